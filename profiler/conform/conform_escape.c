/* Text escaped for knit conform's formats (conform_escape.h). */
#include "conform/conform_escape.h"

void knit_put_json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(out, "\\u%04x", *s);
    else
      fputc(*s, out);
  }
  fputc('"', out);
}

void knit_put_xml_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out);
    }
  }
}

/* Markdown renderers pass HTML through, and a '|' ends a table cell, so
 * text from a runtime (its version string, its path, a check's evidence)
 * could end a cell early or inject markup. A line break would end the
 * table row: it becomes a space, as do the other control characters. */
void knit_put_md_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '|': fputs("\\|", out); break;
    case '\\': fputs("\\\\", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    default: fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
    }
  }
}
