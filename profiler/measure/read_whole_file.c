/* Reading a measurement's file whole; see read_whole_file.h. */
#include "measure/read_whole_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int knit_read_whole_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
  *data = NULL;
  *len = 0;
  /* Only a regular file is read. Opening a FIFO blocks until someone writes
   * to it, and so would reading a FIFO or a terminal: O_NONBLOCK makes the
   * open return at once whatever the file is (it changes nothing for a
   * regular file), and fstat on what was opened, not on the name, which
   * could be swapped in between, then says what it is. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "not a regular file; skipped");
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *bytes = malloc(size ? size : 1);
  if (bytes == NULL) {
    snprintf(err, errlen, "out of memory for %zu bytes", size);
    close(fd);
    return -1;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, bytes + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  int read_errno = errno;
  close(fd);
  if (got < size && got == 0 && size > 0) {
    snprintf(err, errlen, "cannot read: %s", strerror(read_errno));
    free(bytes);
    return -1;
  }
  *data = bytes;
  *len = got;
  return 0;
}
