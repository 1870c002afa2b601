/* Writing a whole buffer to a file descriptor. */
#ifndef KNIT_BASE_WRITE_ALL_H
#define KNIT_BASE_WRITE_ALL_H

#include <stddef.h>

/* Writes all of [data, data+len) to fd, again after an interruption or a
 * short write. Returns 0, or a negative errno (-EIO when the file takes no
 * more bytes without saying why). Async-signal-safe: the tool's writers
 * (thread files, traces) use it on the crash path too. */
int knit_write_all(int fd, const void *data, size_t len);

#endif /* KNIT_BASE_WRITE_ALL_H */
