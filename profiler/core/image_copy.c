/* Copies of the modules the report would not find: see image_copy.h. */
#define _GNU_SOURCE
#include "core/image_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/safe_format.h"
#include "base/write_all.h"
#include "core/file_limit.h"
#include "core/log_file.h"
#include "core/session.h"
#include "core/writer.h"

/* What /proc/self/maps says of the mapping that holds a module's code. */
typedef struct image_mapping {
  uint64_t lo, hi;
  unsigned dev_major, dev_minor;
  uint64_t inode;
  bool deleted; /* the kernel's " (deleted)" mark: the file has no name */
  bool memfd;   /* a memfd's, which no directory ever named */
} image_mapping;

static char temp_dir[PATH_MAX]; /* $TMPDIR, when set to a directory path */

/* One copy at a time (the load map's refresh lock): the buffers are
 * static, off the program's heap and stack. */
static char maps_buffer[8192];
static char copy_buffer[64 * 1024];

/* Set once the start-up set of modules has been seen (image_copy.h). */
static bool startup_done;

void knit_image_copy_startup_done(void)
{
  startup_done = true;
}

void knit_image_copy_setup(void)
{
  const char *tmp = getenv("TMPDIR");
  if (tmp && tmp[0] == '/' && strlen(tmp) < sizeof temp_dir)
    strcpy(temp_dir, tmp);
}

static bool under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  return n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Directories whose files a program, or the system, may delete whenever it
 * likes: a file there when the module is loaded says nothing of the
 * report's time, so its module is copied even while the file is still
 * there (libomptarget deletes its images at exit, after knit's last
 * chance to read them may have passed). A path under /proc names a
 * descriptor of the process (a memfd dlopen'ed by /proc/self/fd/N), which
 * names nothing once the process is gone. */
static bool is_temporary(const char *path)
{
  return under(path, "/tmp") || under(path, "/var/tmp") || under(path, "/dev/shm") ||
         under(path, "/proc") || (temp_dir[0] && under(path, temp_dir));
}

static bool parse_mapping(const char *line, uint64_t addr, image_mapping *out)
{
  unsigned long long lo, hi, inode;
  unsigned major_number, minor_number;
  int name_at = 0;
  if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu %n", &lo, &hi, &major_number, &minor_number,
             &inode, &name_at) != 5 ||
      addr < lo || addr >= hi)
    return false;
  const char *name = line + name_at;
  static const char deleted_mark[] = " (deleted)";
  size_t len = strlen(name), mark = sizeof deleted_mark - 1;
  *out = (image_mapping){.lo = lo,
                         .hi = hi,
                         .dev_major = major_number,
                         .dev_minor = minor_number,
                         .inode = inode,
                         .deleted = len >= mark && strcmp(name + len - mark, deleted_mark) == 0,
                         .memfd = strncmp(name, "/memfd:", 7) == 0};
  return true;
}

/* The mapping of /proc/self/maps that contains addr; false when none does
 * (or the file cannot be read: QEMU's user mode makes it up). */
static bool find_mapping(uint64_t addr, image_mapping *out)
{
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool found = false;
  size_t have = 0;
  while (!found) {
    ssize_t n = read(fd, maps_buffer + have, sizeof maps_buffer - 1 - have);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    have += (size_t)n;
    char *start = maps_buffer, *end;
    while (!found && (end = memchr(start, '\n', have - (size_t)(start - maps_buffer)))) {
      *end = '\0';
      found = parse_mapping(start, addr, out);
      start = end + 1;
    }
    size_t rest = have - (size_t)(start - maps_buffer);
    /* A line longer than the buffer (no path is) is dropped. */
    if (rest == sizeof maps_buffer - 1)
      rest = 0;
    memmove(maps_buffer, start, rest);
    have = rest;
  }
  close(fd);
  return found;
}

static bool same_file(const struct stat *st, const image_mapping *map)
{
  return st->st_ino == map->inode && major(st->st_dev) == map->dev_major &&
         minor(st->st_dev) == map->dev_minor;
}

/* Why m's file will not be what the report finds at its path, or NULL when
 * it will. *from_path says whether the path still names the mapped file. */
static const char *reason_to_copy(const knit_module *m, const image_mapping *map, bool mapped,
                                  bool *from_path)
{
  struct stat st;
  bool present = stat(m->path, &st) == 0 && S_ISREG(st.st_mode);
  *from_path = present && (!mapped || same_file(&st, map));
  if (mapped && map->deleted)
    return "deleted";
  if (!present)
    return "missing";
  if (!*from_path)
    return "replaced";
  if ((mapped && map->memfd) || (startup_done && is_temporary(m->path)))
    return "temporary";
  return NULL;
}

/* The mapped file, opened by its path when that still names it, else
 * through /proc/self/map_files (which the kernel lets only a process with
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE open). -1 with errno. */
static int open_image(const knit_module *m, const image_mapping *map, bool mapped, bool from_path)
{
  if (from_path) {
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || !mapped || (fstat(fd, &st) == 0 && same_file(&st, map)))
      return fd;
    close(fd); /* replaced since it was looked at: the mapping's then */
  }
  if (!mapped) {
    errno = ENOENT;
    return -1;
  }
  char path[96];
  knit_safe_snprintf(path, sizeof path, "/proc/self/map_files/%llx-%llx",
                     (unsigned long long)map->lo, (unsigned long long)map->hi);
  return open(path, O_RDONLY | O_CLOEXEC);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* The copy's name: the module's base name, kept to letters, digits and
 * ".+-_" (it is a file name in the measurement, shown in the log), and a
 * hash of what tells one file from another: two modules share a copy only
 * when they are the same file at the same path. */
static void copy_name(const knit_module *m, const struct stat *st, char *out, size_t cap)
{
  const char *slash = strrchr(m->path, '/');
  const char *base = slash ? slash + 1 : m->path;
  char safe[65];
  size_t n = 0;
  for (; base[n] && n < sizeof safe - 1; n++) {
    char c = base[n];
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-' || c == '+';
    safe[n] = plain ? c : '_';
  }
  safe[n] = '\0';
  uint64_t h = fnv1a(0xcbf29ce484222325ull, m->path, strlen(m->path));
  uint64_t identity[5] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
                          (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec};
  h = fnv1a(h, identity, sizeof identity);
  knit_safe_snprintf(out, cap, "%s-%016llx", n ? safe : "module", (unsigned long long)h);
}

/* Copies from fd into path, at most KNIT_IMAGE_COPY_MAX_BYTES. Returns 0
 * or an errno (EFBIG past the bound). */
static int copy_bytes(int from, const char *path, uint64_t *copied)
{
  int to = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (to < 0)
    return errno;
  int err = 0;
  *copied = 0;
  for (;;) {
    ssize_t n = read(from, copy_buffer, sizeof copy_buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      err = errno;
    if (n <= 0)
      break;
    if (*copied + (uint64_t)n > KNIT_IMAGE_COPY_MAX_BYTES) {
      err = EFBIG;
      break;
    }
    int rc = knit_write_all(to, copy_buffer, (size_t)n);
    if (rc != 0) {
      err = -rc;
      break;
    }
    *copied += (uint64_t)n;
  }
  if (close(to) != 0 && err == 0)
    err = errno;
  return err;
}

static void log_not_copied(const knit_module *m, const char *reason, const char *why, int err)
{
  char line[PATH_MAX + 256];
  knit_safe_snprintf(line, sizeof line, "image: %s (%s) not copied: %s%s%s", m->path, reason, why,
                     err ? ": " : "", err ? knit_errno_name(err) : "");
  knit_log_line(line);
}

/* Copies the image under images/NAME (through a temporary name, so that a
 * copy cut short is never taken for the file) and lists it in the index. */
static void save_copy(const knit_module *m, const char *reason, int fd, const struct stat *st)
{
  const char *dir = knit_the_session.output;
  char images[PATH_MAX + 16], name[128], tmp[PATH_MAX + 160], final[PATH_MAX + 160];
  knit_safe_snprintf(images, sizeof images, "%s/images", dir);
  copy_name(m, st, name, sizeof name);
  if (mkdir(images, 0777) != 0 && errno != EEXIST)
    return log_not_copied(m, reason, "cannot create images/", errno);
  knit_safe_snprintf(final, sizeof final, "%s/%s", images, name);
  if (access(final, F_OK) == 0)
    return; /* the same file, mapped again (at another address) */
  knit_safe_snprintf(tmp, sizeof tmp, "%s/.%s.tmp", images, name);
  uint64_t copied = 0;
  int err = copy_bytes(fd, tmp, &copied);
  if (err == 0 && rename(tmp, final) != 0)
    err = errno;
  if (err != 0) {
    unlink(tmp);
    return log_not_copied(m, reason, "cannot write its copy", err);
  }
  char entry[PATH_MAX + 160];
  int len = knit_safe_snprintf(entry, sizeof entry, "%s\t%s\n", name, m->path);
  char index[PATH_MAX + 32];
  knit_safe_snprintf(index, sizeof index, "%s/index", images);
  int out = open(index, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  /* One write per line: an index is whole lines even if the process dies
   * between two copies. */
  int rc = out < 0 ? -errno : knit_write_all(out, entry, (size_t)len);
  if (out >= 0)
    close(out);
  if (rc != 0) {
    unlink(final);
    return log_not_copied(m, reason, "cannot write images/index", -rc);
  }
  char line[PATH_MAX + 256];
  knit_safe_snprintf(line, sizeof line, "image: %s (%s) copied to images/%s, %llu bytes", m->path,
                     reason, name, (unsigned long long)copied);
  knit_log_line(line);
}

void knit_image_copy(const knit_module *m)
{
  /* A name without a directory is no file (the vdso: core/vdso_copy.h);
   * knit's own library is no part of the program. */
  if (!knit_the_session.active || m->path[0] != '/' || m->is_self)
    return;
  /* Reading the process's mappings writes a file under QEMU, which
   * emulates /proc/self/maps through a temporary file of its own: under a
   * file-size limit that write raised SIGXFSZ and ended the program. */
  image_mapping map = {0};
  knit_file_limit_hold maps_hold;
  knit_file_limit_enter(&maps_hold);
  bool mapped = find_mapping(m->text_lo, &map);
  knit_file_limit_leave(&maps_hold);
  bool from_path = false;
  const char *reason = reason_to_copy(m, &map, mapped, &from_path);
  if (!reason)
    return;
  /* The index is text, a line per copy; the path is its last field. */
  if (strchr(m->path, '\n'))
    return log_not_copied(m, reason, "its path holds a newline", 0);
  int fd = open_image(m, &map, mapped, from_path);
  if (fd < 0)
    return log_not_copied(m, reason, "cannot open the mapped file", errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return log_not_copied(m, reason, "not a regular file", 0);
  }
  if ((uint64_t)st.st_size > KNIT_IMAGE_COPY_MAX_BYTES) {
    close(fd);
    return log_not_copied(m, reason, "larger than 256 MiB", 0);
  }
  /* A program under a file-size limit must not be killed by knit's file. */
  knit_file_limit_hold hold;
  knit_file_limit_enter(&hold);
  save_copy(m, reason, fd, &st);
  knit_file_limit_leave(&hold);
  close(fd);
}
