/* Writing a whole buffer: see write_all.h. */
#include "base/write_all.h"

#include <errno.h>
#include <unistd.h>

int knit_write_all(int fd, const void *data, size_t len)
{
  const char *at = data;
  while (len > 0) {
    ssize_t n = write(fd, at, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    if (n == 0)
      return -EIO;
    at += n;
    len -= (size_t)n;
  }
  return 0;
}
