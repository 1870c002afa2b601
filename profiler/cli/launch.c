/* Starting a program under knit: see launch.h. */
#define _GNU_SOURCE
#include "cli/launch.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/paths.h"
#include "cli/runtimes.h"
#include "unwind/isa.h"

static bool is_executable_file(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool knit_find_program(const char *name, char *out, size_t outlen)
{
  if (strchr(name, '/')) {
    if (!is_executable_file(name))
      return false;
    snprintf(out, outlen, "%s", name);
    return true;
  }
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t len = colon ? (size_t)(colon - path) : strlen(path);
    bool fits = len ? knit_path_printf(out, outlen, "%.*s/%s", (int)len, path, name)
                    : knit_path_printf(out, outlen, "./%s", name);
    if (fits && is_executable_file(out))
      return true;
    path += len + (colon ? 1 : 0);
  }
  return false;
}

bool knit_tree_root(char *out, size_t outlen)
{
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return false;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash)
    return false;
  *slash = '\0';
  return knit_path_printf(out, outlen, "%s/..", self);
}

/* The machine table's row for the program's ELF header, or NULL. */
static const knit_isa_ops *program_isa(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  Elf64_Ehdr eh;
  ssize_t n = read(fd, &eh, sizeof eh);
  close(fd);
  if (n != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return NULL;
  /* e_machine in the file's byte order, whatever the host's. */
  const uint8_t *m = (const uint8_t *)&eh.e_machine;
  uint16_t machine = eh.e_ident[EI_DATA] == ELFDATA2MSB ? (uint16_t)(m[0] << 8 | m[1])
                                                        : (uint16_t)(m[1] << 8 | m[0]);
  return knit_isa_for_elf(machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
}

static bool is_elf(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char magic[SELFMAG];
  ssize_t n = read(fd, magic, sizeof magic);
  close(fd);
  return n == SELFMAG && memcmp(magic, ELFMAG, SELFMAG) == 0;
}

/* A runtime other than the system's is a folder of knit's build holding a
 * library with the real runtime's soname, put first on the library path. A
 * program must not run on a runtime that does not speak its ABI: it would
 * fail to load, or worse. */
static bool prepare_named_runtime(knit_launch *l, const char *libdir, const char *isa, char *err,
                                  size_t errlen)
{
  const knit_runtime *rt = knit_runtime_find(l->runtime);
  if (!rt) {
    char names[256];
    knit_runtime_names(names, sizeof names);
    snprintf(err, errlen, "unknown runtime '%s' (%s)", l->runtime, names);
    return false;
  }
  if (rt->dir) {
    char probe[PATH_MAX + 32];
    if (!knit_path_printf(l->runtime_dir, sizeof l->runtime_dir, "%s/%s", libdir, rt->dir) ||
        !knit_path_printf(probe, sizeof probe, "%s/%s", l->runtime_dir, rt->soname) ||
        access(probe, R_OK) != 0) {
      snprintf(err, errlen, "runtime %s is not built for %s (no %s)", rt->name, isa, probe);
      return false;
    }
  }
  unsigned needs = knit_program_abis(l->program);
  if (rt->abis && needs && (needs & ~rt->abis)) {
    snprintf(err, errlen, "%s uses the %s ABI, which runtime %s does not speak (it is %s)",
             l->program,
             needs & KNIT_ABI_KMPC ? "__kmpc_* (clang, libomp.so.5)" : "GOMP_* (gcc, libgomp.so.1)",
             rt->name, rt->what);
    return false;
  }
  return true;
}

bool knit_launch_prepare(knit_launch *l, char *err, size_t errlen)
{
  /* A script (or anything that is not an ELF program) runs natively: the
   * programs it starts inherit the preload and are profiled. */
  const knit_isa_ops *isa = program_isa(l->program);
  if (!isa && is_elf(l->program)) {
    char names[128];
    knit_isa_names(names, sizeof names);
    snprintf(err, errlen, "%s is not an ELF program of an ISA knit knows (%s)", l->program, names);
    return false;
  }
  if (!isa && l->qemu) {
    snprintf(err, errlen, "%s is not an ELF program: --qemu needs one", l->program);
    return false;
  }
  const knit_isa_ops *native = knit_isa_native();
  if (!isa)
    isa = native;
  l->isa = isa->name;
  bool foreign = native != isa;
  if (foreign && !l->qemu) {
    snprintf(err, errlen, "%s is an %s program: run it with --qemu", l->program, isa->name);
    return false;
  }

  char root[PATH_MAX];
  if (!knit_tree_root(root, sizeof root)) {
    snprintf(err, errlen, "cannot tell where knit is installed (/proc/self/exe)");
    return false;
  }
  /* The native tree is bin/../lib; another ISA's is built beside it, in
   * ../<isa>/lib (build/native, build/aarch64, build/ppc64le). */
  char libdir[PATH_MAX];
  const char *env_dir = getenv("KNIT_LIBDIR");
  bool fits;
  if (env_dir && *env_dir)
    fits = knit_path_printf(libdir, sizeof libdir, "%s", env_dir);
  else if (!foreign)
    fits = knit_path_printf(libdir, sizeof libdir, "%s/lib", root);
  else
    fits = knit_path_printf(libdir, sizeof libdir, "%s/../%s/lib", root, isa->name);
  fits = fits && knit_path_printf(l->tool, sizeof l->tool, "%s/libknit.so", libdir);
  if (!fits) {
    snprintf(err, errlen, "the path of knit's libraries is too long");
    return false;
  }
  if (access(l->tool, R_OK) != 0) {
    snprintf(err, errlen,
             "no libknit.so for %s at %s (build that ISA's tree, or set "
             "KNIT_LIBDIR)",
             isa->name, l->tool);
    return false;
  }

  l->runtime_dir[0] = '\0';
  if (l->runtime_path) {
    if (!knit_path_printf(l->runtime_dir, sizeof l->runtime_dir, "%s", l->runtime_path)) {
      snprintf(err, errlen, "the runtime's path is too long");
      return false;
    }
  } else if (!prepare_named_runtime(l, libdir, isa->name, err, errlen)) {
    return false;
  }
  if (l->qemu) {
    snprintf(l->qemu_binary, sizeof l->qemu_binary, "%s", isa->qemu);
    snprintf(l->qemu_sysroot, sizeof l->qemu_sysroot, "%s", isa->sysroot);
    char found[PATH_MAX];
    if (!knit_find_program(l->qemu_binary, found, sizeof found)) {
      snprintf(err, errlen, "%s is not installed (ci/deps.sh installs qemu-user)", l->qemu_binary);
      return false;
    }
  }
  return true;
}

static char *joined(const char *name, const char *value)
{
  size_t n = strlen(name) + strlen(value) + 2;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s=%s", name, value);
  return s;
}

/* In a sanitized build (make check-asan, check-tsan) libknit.so and the
 * mock runtimes are instrumented; loaded into a program that is not, they
 * need the sanitizer's runtime loaded before everything else. NULL when the
 * program gets none of knit's libraries, and in an ordinary build. */
static const char *sanitizer_runtime(const knit_launch *l)
{
#ifdef KNIT_SANITIZER_RUNTIME
  if (l->profile || l->runtime_dir[0])
    return KNIT_SANITIZER_RUNTIME;
#else
  (void)l;
#endif
  return NULL;
}

/* In the forked child: the environment, the log, then the program. */
static void run_child(const knit_launch *l, char **args, const char *ld_path)
{
  if (l->profile) {
    setenv("KNIT_EVENT", l->event, 1);
    setenv("KNIT_OUTPUT", l->output, 1);
    /* The measured process is this one (qemu runs the guest in it): its
     * descendants write their own measurements (profiler/core/session.c). */
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    setenv("KNIT_ROOT_PID", self, 1);
  }
  if (!l->qemu) {
    const char *first = sanitizer_runtime(l);
    if (first && l->profile) {
      char both[PATH_MAX * 2 + 2];
      snprintf(both, sizeof both, "%s:%s", first, l->tool);
      setenv("LD_PRELOAD", both, 1);
    } else if (first) {
      setenv("LD_PRELOAD", first, 1);
    } else if (l->profile) {
      setenv("LD_PRELOAD", l->tool, 1);
    }
    if (ld_path[0])
      setenv("LD_LIBRARY_PATH", ld_path, 1);
  }
  if (l->log) {
    int fd = open(l->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
      fprintf(stderr, "knit: cannot write %s: %s\n", l->log, strerror(errno));
      _exit(127);
    }
  }
  execvp(args[0], args);
  fprintf(stderr, "knit: cannot run %s: %s\n", args[0], strerror(errno));
  _exit(127);
}

/* The program knit waits for, to pass signals on to. */
static volatile pid_t waited_program;

/* SIGTERM or SIGHUP sent to knit alone (a job scheduler's, a timeout's) is
 * meant for the run: the program gets it, ends as it would without knit,
 * its measurement written, and knit reports as usual after. */
static void pass_on(int sig)
{
  if (waited_program > 0)
    kill(waited_program, sig);
}

/* Waits for the program; one that outlives its timeout is killed. */
static int wait_for(pid_t pid, unsigned timeout, char *err, size_t errlen)
{
  int status;
  long waited_ms = 0;
  for (;;) {
    pid_t got = waitpid(pid, &status, timeout ? WNOHANG : 0);
    if (got == pid)
      return status;
    if (got < 0 && errno != EINTR) {
      snprintf(err, errlen, "waitpid: %s", strerror(errno));
      return -1;
    }
    if (got == 0) {
      if (waited_ms >= (long)timeout * 1000)
        kill(pid, SIGKILL);
      struct timespec ten_ms = {0, 10000000};
      nanosleep(&ten_ms, NULL);
      waited_ms += 10;
    }
  }
}

int knit_launch_run(const knit_launch *l, char *err, size_t errlen)
{
  char ld_path[PATH_MAX * 4];
  const char *old = getenv("LD_LIBRARY_PATH");
  bool fits = l->runtime_dir[0]
                  ? knit_path_printf(ld_path, sizeof ld_path, "%s%s%s", l->runtime_dir,
                                     old && *old ? ":" : "", old ? old : "")
                  : knit_path_printf(ld_path, sizeof ld_path, "%s", old ? old : "");
  if (!fits) {
    snprintf(err, errlen, "LD_LIBRARY_PATH is too long");
    return -1;
  }

  /* The guest's environment: natively the process environment itself; under
   * QEMU it goes in with -E, so that qemu's own (host) loader does not try
   * to preload a library of the guest's ISA. Natively it is set in the
   * child, so that a caller that runs many programs keeps its own. */
  int given = 0;
  while (l->argv[given])
    given++;
  /* QEMU's binary, its sysroot and two environment settings come first. */
  char **args = calloc((size_t)given + 8, sizeof *args);
  if (!args) {
    snprintf(err, errlen, "out of memory for %d arguments", given);
    return -1;
  }
  int n = 0;
  /* The "-E NAME=VALUE" settings made for QEMU, freed with args. */
  char *made[2] = {NULL, NULL};
  if (l->qemu) {
    args[n++] = (char *)l->qemu_binary;
    if (l->qemu_sysroot[0]) {
      args[n++] = "-L";
      args[n++] = (char *)l->qemu_sysroot;
    }
    if (l->profile) {
      args[n++] = "-E";
      args[n++] = made[0] = joined("LD_PRELOAD", l->tool);
    }
    if (ld_path[0]) {
      args[n++] = "-E";
      args[n++] = made[1] = joined("LD_LIBRARY_PATH", ld_path);
    }
  }
  args[n++] = (char *)l->program;
  for (int i = 1; l->argv[i]; i++)
    args[n++] = l->argv[i];
  args[n] = NULL;

  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    free(made[0]);
    free(made[1]);
    free(args);
    return -1;
  }
  if (pid == 0)
    run_child(l, args, ld_path);
  /* The program gets the terminal's signals; knit waits for it to end. */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  waited_program = pid;
  struct sigaction forward;
  memset(&forward, 0, sizeof forward);
  forward.sa_handler = pass_on;
  forward.sa_flags = SA_RESTART;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGTERM, &forward, NULL);
  sigaction(SIGHUP, &forward, NULL);
  free(made[0]);
  free(made[1]);
  free(args);
  return wait_for(pid, l->timeout, err, errlen);
}
