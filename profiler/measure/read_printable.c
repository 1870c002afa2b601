/* The printable form of text from a measurement; see read_printable.h. */
#include "measure/read_printable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s that is no control
 * character, or 0 when s does not start one (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF; and here no C1 control). */
static size_t utf8_printable(const unsigned char *s)
{
  unsigned char c = s[0];
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1fu;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0fu;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    /* A NUL ends the string: it is no continuation byte either. */
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3fu);
  }
  static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  if (cp <= 0x9f) /* C1 controls */
    return 0;
  return n;
}

/* What the byte at s becomes: *kept bytes copied as they are, or (when
 * *kept is 0) the escape written into esc; returns the output's length. */
static size_t next_piece(const unsigned char *s, size_t *kept, char esc[5])
{
  static const char hex[] = "0123456789abcdef";
  unsigned char c = *s;
  *kept = 0;
  if (c == '\\') {
    memcpy(esc, "\\\\", 2);
    return 2;
  }
  if (c >= 0x20 && c < 0x7f) {
    *kept = 1;
    return 1;
  }
  if (c >= 0x80 && (*kept = utf8_printable(s)) > 0)
    return *kept;
  esc[0] = '\\';
  esc[1] = 'x';
  esc[2] = hex[c >> 4];
  esc[3] = hex[c & 0xf];
  return 4;
}

bool knit_is_printable(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  while (*p != '\0') {
    size_t kept;
    char esc[5];
    next_piece(p, &kept, esc);
    if (kept == 0)
      return false;
    p += kept;
  }
  return true;
}

size_t knit_printable_length(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t len = 0;
  while (*p != '\0') {
    size_t kept;
    char esc[5];
    len += next_piece(p, &kept, esc);
    p += kept ? kept : 1;
  }
  return len;
}

const char *knit_printable(const char *s, char *buf, size_t len)
{
  if (len == 0)
    return buf;
  const unsigned char *p = (const unsigned char *)s;
  size_t used = 0;
  while (*p != '\0') {
    size_t kept;
    char esc[5];
    size_t n = next_piece(p, &kept, esc);
    if (n >= len - used)
      break;
    memcpy(buf + used, kept ? (const char *)p : esc, n);
    used += n;
    p += kept ? kept : 1;
  }
  buf[used] = '\0';
  return buf;
}

char *knit_printable_dup(const char *s)
{
  size_t len = knit_printable_length(s) + 1;
  char *copy = malloc(len);
  if (copy != NULL)
    knit_printable(s, copy, len);
  return copy;
}
