/* A small vsnprintf for signal handlers: see safe_format.h. */
#include "base/safe_format.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct out {
  char *buf;
  size_t size;
  size_t len; /* characters produced so far, written or not */
} out;

static void put(out *o, char c)
{
  if (o->len + 1 < o->size)
    o->buf[o->len] = c;
  o->len++;
}

static void put_padded(out *o, const char *s, size_t n, int width, bool left, char pad)
{
  int fill = width > (int)n ? width - (int)n : 0;
  if (!left)
    while (fill-- > 0)
      put(o, pad);
  for (size_t i = 0; i < n; i++)
    put(o, s[i]);
  if (left)
    while (fill-- > 0)
      put(o, ' ');
}

/* Formats an unsigned magnitude with an optional sign or prefix. */
static void put_number(out *o, uintmax_t v, unsigned base, bool upper, bool negative,
                       const char *prefix, int width, bool left, bool zero)
{
  char digits[64];
  size_t n = 0;
  const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    digits[n++] = set[v % base];
    v /= base;
  } while (v);
  char text[80];
  size_t t = 0;
  if (negative)
    text[t++] = '-';
  for (const char *p = prefix; p && *p; p++)
    text[t++] = *p;
  /* Zero padding goes between the sign/prefix and the digits. */
  if (zero && !left)
    while ((int)(t + n) < width && t < sizeof text - n)
      text[t++] = '0';
  while (n)
    text[t++] = digits[--n];
  put_padded(o, text, t, width, left, ' ');
}

int knit_safe_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  out o = {buf, size, 0};
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      put(&o, *p);
      continue;
    }
    bool left = false, zero = false, alt = false;
    for (;; p++) {
      if (p[1] == '-')
        left = true;
      else if (p[1] == '0')
        zero = true;
      else if (p[1] == '#')
        alt = true;
      else if (p[1] == '+' || p[1] == ' ')
        ;
      else
        break;
    }
    p++;
    int width = 0;
    if (*p == '*') {
      width = va_arg(ap, int);
      p++;
    }
    while (*p >= '0' && *p <= '9')
      width = width * 10 + (*p++ - '0');
    int precision = -1;
    if (*p == '.') {
      precision = 0;
      p++;
      if (*p == '*') {
        precision = va_arg(ap, int);
        p++;
      }
      while (*p >= '0' && *p <= '9')
        precision = precision * 10 + (*p++ - '0');
    }
    int longs = 0; /* -2 hh, -1 h, 1 l, 2 ll, 3 size_t/intmax/ptrdiff */
    for (;; p++) {
      if (*p == 'h')
        longs = longs == -1 ? -2 : -1;
      else if (*p == 'l')
        longs = longs == 1 ? 2 : 1;
      else if (*p == 'z' || *p == 'j' || *p == 't')
        longs = 3;
      else
        break;
    }
    char conv = *p;
    if (!conv)
      break;
    switch (conv) {
    case 'd':
    case 'i': {
      intmax_t v;
      if (longs >= 2)
        v = va_arg(ap, long long);
      else if (longs == 1)
        v = va_arg(ap, long);
      else
        v = va_arg(ap, int);
      if (longs == -1)
        v = (short)v;
      else if (longs == -2)
        v = (signed char)v;
      bool neg = v < 0;
      uintmax_t mag = neg ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
      put_number(&o, mag, 10, false, neg, NULL, width, left, zero);
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      uintmax_t v;
      if (longs >= 2)
        v = va_arg(ap, unsigned long long);
      else if (longs == 1)
        v = va_arg(ap, unsigned long);
      else
        v = va_arg(ap, unsigned int);
      if (longs == -1)
        v = (unsigned short)v;
      else if (longs == -2)
        v = (unsigned char)v;
      unsigned base = conv == 'u' ? 10 : conv == 'o' ? 8 : 16;
      const char *prefix = NULL;
      if (alt && v && base == 16)
        prefix = conv == 'X' ? "0X" : "0x";
      else if (alt && base == 8)
        prefix = "0";
      put_number(&o, v, base, conv == 'X', false, prefix, width, left, zero);
      break;
    }
    case 'p':
      put_number(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, "0x", width, left, false);
      break;
    case 'c': {
      char c = (char)va_arg(ap, int);
      put_padded(&o, &c, 1, width, left, ' ');
      break;
    }
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (!s)
        s = "(null)";
      size_t n = 0;
      while (s[n] && (precision < 0 || (int)n < precision))
        n++;
      put_padded(&o, s, n, width, left, ' ');
      break;
    }
    case '%': put(&o, '%'); break;
    default:
      /* Unknown conversion: shown as written, so a gap is visible. */
      put(&o, '%');
      put(&o, conv);
      break;
    }
  }
  if (size)
    buf[o.len < size ? o.len : size - 1] = '\0';
  return (int)o.len;
}

int knit_safe_snprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = knit_safe_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}
