/* The measurement's log: see log_file.h. */
#define _GNU_SOURCE
#include "core/log_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/file_limit.h"
#include "base/safe_format.h"

static int log_fd = -1;
static dev_t log_dev;
static ino_t log_ino;
static char log_path[PATH_MAX + 16];

/* The lowest descriptor knit asks for: high enough that programs counting
 * up from 3 do not meet it, below the usual soft limit of 1024. */
#define LOG_FD_FLOOR 900

static int open_log(void)
{
  int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    return -1;
  struct rlimit lim;
  int floor = LOG_FD_FLOOR;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      lim.rlim_cur <= (rlim_t)floor + 16)
    floor = lim.rlim_cur > 64 ? (int)lim.rlim_cur / 2 : fd;
  if (fd < floor) {
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high >= 0) {
      close(fd);
      fd = high;
    }
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  log_dev = st.st_dev;
  log_ino = st.st_ino;
  return fd;
}

bool knit_log_open(const char *dir)
{
  if (knit_safe_snprintf(log_path, sizeof log_path, "%s/knit.log", dir) >= (int)sizeof log_path)
    return false;
  log_fd = open_log();
  return log_fd >= 0;
}

/* True when log_fd is still the log: the program may have closed it, and
 * opened something else that got its number. */
static bool still_the_log(void)
{
  struct stat st;
  return log_fd >= 0 && fstat(log_fd, &st) == 0 && st.st_dev == log_dev && st.st_ino == log_ino;
}

void knit_log_line(const char *line)
{
  if (!log_path[0])
    return;
  if (!still_the_log()) {
    /* Not closed: the number is the program's now, or nobody's. */
    log_fd = open_log();
    if (log_fd < 0)
      return;
  }
  struct iovec parts[2] = {{(void *)line, strlen(line)}, {(void *)"\n", 1}};
  int saved = errno;
  knit_file_limit_hold hold;
  knit_file_limit_enter(&hold);
  ssize_t rc = writev(log_fd, parts, 2);
  knit_file_limit_leave(&hold);
  (void)rc;
  errno = saved;
}

void knit_log_forget(void)
{
  log_fd = -1;
  log_path[0] = '\0';
}
