/* JSON strings and numbers; see json_write.h. */
#include "report/json_write.h"

#include <math.h>
#include <string.h>

size_t knit_utf8_sequence(const unsigned char *s, size_t len)
{
  if (len == 0)
    return 0;
  unsigned char b = s[0];
  if (b < 0x80)
    return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xBF; /* the second byte's range, narrower for
                                    the forms that would be overlong or
                                    surrogates or past U+10FFFF */
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0)
      lo = 0xA0;
    else if (b == 0xED)
      hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0)
      lo = 0x90;
    else if (b == 0xF4)
      hi = 0x8F;
  } else
    return 0;
  if (len < n || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF)
      return 0;
  return n;
}

void knit_json_string(FILE *out, const char *s)
{
  if (s == NULL) {
    fputs("null", out);
    return;
  }
  const unsigned char *p = (const unsigned char *)s;
  size_t len = strlen(s);
  fputc('"', out);
  for (size_t i = 0; i < len;) {
    unsigned char c = p[i];
    if (c == '"' || c == '\\') {
      fputc('\\', out);
      fputc(c, out);
      i++;
    } else if (c == '\n') {
      fputs("\\n", out);
      i++;
    } else if (c == '\t') {
      fputs("\\t", out);
      i++;
    } else if (c < 0x20 || c == 0x7F || c == '<' || c == '>' || c == '&') {
      fprintf(out, "\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      fputc(c, out);
      i++;
    } else {
      size_t n = knit_utf8_sequence(p + i, len - i);
      if (n == 0) {
        fputs("\\ufffd", out);
        i++;
      } else {
        fwrite(p + i, 1, n, out);
        i += n;
      }
    }
  }
  fputc('"', out);
}

void knit_json_number(FILE *out, double v)
{
  if (!isfinite(v)) {
    fputc('0', out);
    return;
  }
  if (v == floor(v) && fabs(v) < 1e15) {
    fprintf(out, "%.0f", v);
    return;
  }
  fprintf(out, "%.12g", v);
}
