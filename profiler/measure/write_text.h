/* Signal-safe text formatting: appends strings and numbers to a fixed
 * caller-owned buffer. Nothing here allocates, locks or calls stdio, so it
 * may run in a signal handler or a crash handler (log lines, file names).
 *
 * A text that would overflow its buffer is cut at the last byte that fits and
 * remembers the overflow; the buffer always stays NUL-terminated.
 */
#ifndef KNIT_MEASURE_WRITE_TEXT_H
#define KNIT_MEASURE_WRITE_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct knit_text {
  char *buf;    /* caller's storage, always NUL-terminated */
  size_t cap;   /* size of buf in bytes, including the NUL */
  size_t len;   /* bytes of text, excluding the NUL */
  int overflow; /* 1 once anything did not fit */
} knit_text;

/* Starts an empty text in buf[0..cap). cap may be 0 (everything overflows). */
void knit_text_init(knit_text *t, char *buf, size_t cap);

/* Appends a NUL-terminated string, or its first n bytes (_n). */
void knit_text_str(knit_text *t, const char *s);
void knit_text_str_n(knit_text *t, const char *s, size_t n);
void knit_text_char(knit_text *t, char c);

/* Appends an unsigned or signed decimal number. */
void knit_text_u64(knit_text *t, uint64_t v);
void knit_text_i64(knit_text *t, int64_t v);

/* Appends "0x" and the lower-case hexadecimal digits of v, no padding. */
void knit_text_hex(knit_text *t, uint64_t v);

/* Writes the text to fd with write(2), retrying on EINTR and short writes.
 * Returns 0, or -errno of the failing write. */
int knit_text_write_fd(const knit_text *t, int fd);

#endif /* KNIT_MEASURE_WRITE_TEXT_H */
