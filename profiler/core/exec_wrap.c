/* exec without fork replaces the program's image, and with it every thread
 * and everything knit held in memory: without a word, the first image's
 * samples would be lost (a launcher script that ends in `exec app`, a
 * program that re-executes itself). knit wraps the exec family: just
 * before the image goes, its measurement is written to a directory of its
 * own, DIR/process-PID-image-N (N counts the images this process has had),
 * and DIR is left to the image that follows, which loads knit again (the
 * environment goes with it) and measures itself there, as the program
 * `knit record` was asked to run.
 *
 * The C library's exec functions call one another inside the library, past
 * any wrapper, so each is wrapped on its own. The write-out happens only
 * when the exec is going to find its program; when it fails all the same
 * (the kernel refuses the file: under QEMU user mode, a guest cannot exec
 * another guest program), the write-out is undone and the image goes on,
 * measured (knit_session_resume). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safe_format.h"
#include "core/session.h"
#include "core/next_symbol.h"

/* Whether path names a file this process may execute. */
static bool executable(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Whether file, looked up in PATH as execvp does, will be found. */
static bool found_on_path(const char *file)
{
  if (!file || !*file)
    return false;
  if (strchr(file, '/'))
    return executable(file);
  const char *path = getenv("PATH");
  if (!path)
    path = "/bin:/usr/bin";
  char candidate[PATH_MAX];
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t len = colon ? (size_t)(colon - path) : strlen(path);
    int n = len ? knit_safe_snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, path, file)
                : knit_safe_snprintf(candidate, sizeof candidate, "%s", file);
    if (n < (int)sizeof candidate && executable(candidate))
      return true;
    path += len + (colon ? 1 : 0);
  }
  return false;
}

/* The measurement directory before the exec, and the image's own. */
typedef struct exec_dirs {
  char root[PATH_MAX];
  char image[PATH_MAX];
  bool written;
} exec_dirs;

/* Writes this image's measurement to DIR/process-PID-image-N before an exec
 * that will replace it. */
static void before_exec(const char *program, exec_dirs *d)
{
  knit_session *s = &knit_the_session;
  d->written = false;
  if (!s->active || getpid() != s->pid || atomic_load(&s->stopping))
    return;
  char *root = d->root, *dir = d->image;
  knit_safe_snprintf(root, sizeof d->root, "%s", s->output);
  bool made = false;
  for (int n = 1; n < 1000 && !made; n++) {
    if (knit_safe_snprintf(dir, sizeof d->image, "%s/process-%d-image-%d", root, (int)s->pid, n) >=
        (int)sizeof d->image)
      break;
    made = mkdir(dir, 0777) == 0;
    if (!made && errno != EEXIST)
      break;
  }
  char line[PATH_MAX * 2 + 64];
  if (!made) {
    knit_safe_snprintf(line, sizeof line, "exec %s: no directory for this image's data; it is lost",
                       program);
    knit_log_line(line);
    return;
  }
  knit_safe_snprintf(line, sizeof line, "exec %s: this image's data is in %s", program, dir);
  knit_log_line(line);
  knit_safe_snprintf(s->output, sizeof s->output, "%s", dir);
  knit_log_open(dir);
  knit_session_finish("exec");
  d->written = true;
}

/* An exec that failed after the write-out: the image goes on, measured in
 * the directory it had. */
static void exec_failed(const char *program, int err, const exec_dirs *d)
{
  if (!d->written)
    return;
  knit_session_resume(d->root, d->image);
  char line[PATH_MAX + 128];
  knit_safe_snprintf(line, sizeof line, "exec %s failed (errno %d): the image goes on", program,
                     err);
  knit_log_line(line);
  errno = err;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static int real_execve(const char *path, char *const argv[], char *const envp[])
{
  execve_fn real = KNIT_NEXT_SYMBOL(execve_fn, "execve");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(path, argv, envp);
}

static int real_execvpe(const char *file, char *const argv[], char *const envp[])
{
  execvpe_fn real = KNIT_NEXT_SYMBOL(execvpe_fn, "execvpe");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(file, argv, envp);
}

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
                                                  char *const envp[])
{
  exec_dirs d = {.written = false};
  if (executable(path))
    before_exec(path, &d);
  int rc = real_execve(path, argv, envp);
  exec_failed(path, errno, &d);
  return rc;
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
  return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[],
                                                   char *const envp[])
{
  exec_dirs d = {.written = false};
  if (found_on_path(file))
    before_exec(file, &d);
  int rc = real_execvpe(file, argv, envp);
  exec_failed(file, errno, &d);
  return rc;
}

__attribute__((visibility("default"))) int execvp(const char *file, char *const argv[])
{
  return execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int fexecve(int fd, char *const argv[], char *const envp[])
{
  fexecve_fn real = KNIT_NEXT_SYMBOL(fexecve_fn, "fexecve");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  struct stat st;
  exec_dirs d = {.written = false};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    before_exec("(a descriptor)", &d);
  int rc = real(fd, argv, envp);
  exec_failed("(a descriptor)", errno, &d);
  return rc;
}

/* execl, execle and execlp: their arguments gathered into a vector, as the
 * C library does, then the vector forms above. */
#define GATHER_ARGS(first, last_arg_ap)                                                            \
  size_t count = 1;                                                                                \
  va_list probe;                                                                                   \
  va_copy(probe, last_arg_ap);                                                                     \
  while (va_arg(probe, const char *))                                                              \
    count++;                                                                                       \
  va_end(probe);                                                                                   \
  char *args[count + 1];                                                                           \
  args[0] = (char *)(first);                                                                       \
  for (size_t i = 1; i <= count; i++)                                                              \
    args[i] = va_arg(last_arg_ap, char *);

__attribute__((visibility("default"))) int execl(const char *path, const char *arg, ...)
{
  va_list ap;
  va_start(ap, arg);
  GATHER_ARGS(arg, ap);
  va_end(ap);
  return execve(path, args, environ);
}

__attribute__((visibility("default"))) int execlp(const char *file, const char *arg, ...)
{
  va_list ap;
  va_start(ap, arg);
  GATHER_ARGS(arg, ap);
  va_end(ap);
  return execvpe(file, args, environ);
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg, ...)
{
  va_list ap;
  va_start(ap, arg);
  GATHER_ARGS(arg, ap);
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, args, envp);
}
