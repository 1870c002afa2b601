/* The viewer's page with its data; see html_page.h.
 *
 * The page template holds markers, each an HTML comment on a line of its
 * own, where the style, the script and the data go. A marker the template
 * lacks is an error of the build, not of the user: the page would not work,
 * so it is written anyway and the page's own check reports what is missing. */
#include "report/html_page.h"

#include <string.h>

#include "view/view_assets.h"

#define MARKER_OPEN "<!--KNIT:"

/* JSON inside a script element: '<' is the only character that could end
 * the element ("</script") or open a comment there, and in valid JSON it
 * appears only inside strings, where \u003c stands for it. */
static void write_json_for_script(FILE *out, const char *json, size_t len)
{
  size_t start = 0;
  for (size_t i = 0; i < len; i++) {
    if (json[i] == '<') {
      fwrite(json + start, 1, i - start, out);
      fputs("\\u003c", out);
      start = i + 1;
    }
  }
  fwrite(json + start, 1, len - start, out);
}

static void write_data(FILE *out, const char *id, const char *json, size_t len)
{
  fprintf(out, "<script type=\"application/json\" id=\"%s\">", id);
  write_json_for_script(out, json, len);
  fputs("</script>\n", out);
}

int knit_html_page_write(FILE *out, const char *profile, size_t profile_len, const char *trace,
                         size_t trace_len)
{
  const char *page = knit_view_html, *end = knit_view_html + knit_view_html_size;
  while (page < end) {
    const char *marker = strstr(page, MARKER_OPEN);
    if (marker == NULL) {
      fwrite(page, 1, (size_t)(end - page), out);
      break;
    }
    fwrite(page, 1, (size_t)(marker - page), out);
    const char *name = marker + strlen(MARKER_OPEN);
    const char *close = strstr(name, "-->");
    if (close == NULL) {
      fwrite(marker, 1, (size_t)(end - marker), out);
      break;
    }
    size_t name_len = (size_t)(close - name);
    if (name_len == 5 && strncmp(name, "STYLE", 5) == 0) {
      fputs("<style>\n", out);
      fwrite(knit_view_css, 1, knit_view_css_size, out);
      fputs("</style>", out);
    } else if (name_len == 6 && strncmp(name, "SCRIPT", 6) == 0) {
      fputs("<script>\n", out);
      fwrite(knit_view_js, 1, knit_view_js_size, out);
      fputs("</script>", out);
    } else if (name_len == 4 && strncmp(name, "DATA", 4) == 0) {
      write_data(out, "knit-profile", profile, profile_len);
      if (trace != NULL)
        write_data(out, "knit-trace", trace, trace_len);
    }
    page = close + 3;
  }
  return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
