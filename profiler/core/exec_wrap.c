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
 * when the exec is going to find its program; one that fails later (a bad
 * ELF file, say) leaves the rest of the image's run unmeasured, and the log
 * says so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/safe_format.h"
#include "core/session.h"

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

/* Writes this image's measurement to DIR/process-PID-image-N before an exec
 * that will replace it. */
static void before_exec(const char *program)
{
  knit_session *s = &knit_the_session;
  if (!s->active || getpid() != s->pid || atomic_load(&s->stopping))
    return;
  char root[sizeof s->output];
  knit_safe_snprintf(root, sizeof root, "%s", s->output);
  char dir[sizeof s->output];
  bool made = false;
  for (int n = 1; n < 1000 && !made; n++) {
    if (knit_safe_snprintf(dir, sizeof dir, "%s/process-%d-image-%d", root, (int)s->pid, n) >=
        (int)sizeof dir)
      break;
    made = mkdir(dir, 0777) == 0;
    if (!made && errno != EEXIST)
      break;
  }
  char line[PATH_MAX * 2 + 64];
  if (!made) {
    knit_safe_snprintf(line, sizeof line,
                       "exec %s: no directory for this image's data; it is lost", program);
    knit_log_line(line);
    return;
  }
  knit_safe_snprintf(line, sizeof line, "exec %s: this image's data is in %s", program, dir);
  knit_log_line(line);
  knit_safe_snprintf(s->output, sizeof s->output, "%s", dir);
  knit_log_open(dir);
  knit_session_finish("exec");
}

/* An exec that failed after the write-out: the image goes on unmeasured. */
static void exec_failed(const char *program, int err)
{
  if (!knit_the_session.active || getpid() != knit_the_session.pid)
    return;
  char line[PATH_MAX + 128];
  knit_safe_snprintf(line, sizeof line,
                     "exec %s failed (errno %d): the rest of this image's run is not measured",
                     program, err);
  knit_log_line(line);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

static int real_execve(const char *path, char *const argv[], char *const envp[])
{
  static execve_fn real;
  if (!real)
    real = (execve_fn)dlsym(RTLD_NEXT, "execve");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(path, argv, envp);
}

static int real_execvpe(const char *file, char *const argv[], char *const envp[])
{
  static execvpe_fn real;
  if (!real)
    real = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(file, argv, envp);
}

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
                                                  char *const envp[])
{
  if (executable(path))
    before_exec(path);
  int rc = real_execve(path, argv, envp);
  exec_failed(path, errno);
  return rc;
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
  return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[],
                                                   char *const envp[])
{
  if (found_on_path(file))
    before_exec(file);
  int rc = real_execvpe(file, argv, envp);
  exec_failed(file, errno);
  return rc;
}

__attribute__((visibility("default"))) int execvp(const char *file, char *const argv[])
{
  return execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int fexecve(int fd, char *const argv[], char *const envp[])
{
  static fexecve_fn real;
  if (!real)
    real = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    before_exec("(a descriptor)");
  int rc = real(fd, argv, envp);
  exec_failed("(a descriptor)", errno);
  return rc;
}

/* execl, execle and execlp: their arguments gathered into a vector, as the
 * C library does, then the vector forms above. */
#define GATHER_ARGS(first, last_arg_ap)                                                         \
  size_t count = 1;                                                                             \
  va_list probe;                                                                                \
  va_copy(probe, last_arg_ap);                                                                  \
  while (va_arg(probe, const char *))                                                           \
    count++;                                                                                    \
  va_end(probe);                                                                                \
  char *args[count + 1];                                                                        \
  args[0] = (char *)(first);                                                                    \
  for (size_t i = 1; i <= count; i++)                                                           \
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
