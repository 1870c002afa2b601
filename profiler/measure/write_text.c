/* Signal-safe text formatting; see write_text.h. Only plain loops over the
 * caller's buffer and write(2): no libc function that could allocate. */
#include "measure/write_text.h"

#include <errno.h>
#include <unistd.h>

void knit_text_init(knit_text *t, char *buf, size_t cap)
{
  t->buf = buf;
  t->cap = cap;
  t->len = 0;
  t->overflow = cap == 0;
  if (cap > 0)
    buf[0] = '\0';
}

void knit_text_char(knit_text *t, char c)
{
  if (t->len + 1 >= t->cap) {
    t->overflow = 1;
    return;
  }
  t->buf[t->len++] = c;
  t->buf[t->len] = '\0';
}

void knit_text_str_n(knit_text *t, const char *s, size_t n)
{
  for (size_t i = 0; i < n && s[i] != '\0'; i++)
    knit_text_char(t, s[i]);
}

void knit_text_str(knit_text *t, const char *s)
{
  while (*s != '\0')
    knit_text_char(t, *s++);
}

void knit_text_u64(knit_text *t, uint64_t v)
{
  /* Digits come out least significant first; 20 is enough for 2^64-1. */
  char digits[20];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    knit_text_char(t, digits[--n]);
}

void knit_text_i64(knit_text *t, int64_t v)
{
  if (v < 0) {
    knit_text_char(t, '-');
    /* Negating in unsigned arithmetic keeps INT64_MIN correct. */
    knit_text_u64(t, (uint64_t)0 - (uint64_t)v);
  } else {
    knit_text_u64(t, (uint64_t)v);
  }
}

void knit_text_hex(knit_text *t, uint64_t v)
{
  static const char hex[] = "0123456789abcdef";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = hex[v & 0xf];
    v >>= 4;
  } while (v != 0);
  knit_text_str(t, "0x");
  while (n > 0)
    knit_text_char(t, digits[--n]);
}

int knit_text_write_fd(const knit_text *t, int fd)
{
  size_t done = 0;
  while (done < t->len) {
    ssize_t n = write(fd, t->buf + done, t->len - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    done += (size_t)n;
  }
  return 0;
}
