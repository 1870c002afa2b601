/* Running the benchmarks' child programs: see child_run.h. */
#define _GNU_SOURCE
#include "child_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool bench_run_child_full(const char *path, char *const argv[], void (*setup)(const void *arg),
                          const void *arg, bench_child_run *r)
{
  memset(r, 0, sizeof *r);
  int fds[2];
  if (pipe(fds) != 0)
    return false;
  double start = now_s();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setup(arg);
    execv(path, argv);
    _exit(127);
  }
  close(fds[1]);
  char out[4096];
  size_t len = 0;
  ssize_t n;
  while (len + 1 < sizeof out && (n = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
    len += (size_t)n;
  out[len] = 0;
  close(fds[0]);
  /* wait4, not waitpid: the child's own rusage, not that of all the
   * children so far (getrusage(RUSAGE_CHILDREN) keeps the largest). */
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid)
    return false;
  r->wall_s = now_s() - start;
  r->cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  r->max_rss_kb = usage.ru_maxrss;
  r->figure = atof(out);
  const char *line = strstr(out, "checksum ");
  if (line)
    snprintf(r->checksum, sizeof r->checksum, "%.*s", (int)strcspn(line, "\n"), line);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && line;
}

double bench_run_child(const char *path, char *const argv[], void (*setup)(const void *arg),
                       const void *arg, char *sum, size_t sum_len)
{
  return bench_run_child_rss(path, argv, setup, arg, sum, sum_len, NULL);
}

double bench_run_child_rss(const char *path, char *const argv[], void (*setup)(const void *arg),
                           const void *arg, char *sum, size_t sum_len, long *max_rss_kb)
{
  bench_child_run r;
  bool ok = bench_run_child_full(path, argv, setup, arg, &r);
  if (max_rss_kb)
    *max_rss_kb = r.max_rss_kb;
  if (!ok)
    return -1;
  snprintf(sum, sum_len, "%s", r.checksum);
  return r.figure;
}

/* Sets name to value, or unsets it for NULL. */
static void set_or_unset(const char *name, const char *value)
{
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

void bench_attach_env(const bench_attach *a)
{
  setenv("LD_LIBRARY_PATH", a->libdir, 1);
  setenv("OMP_NUM_THREADS", a->threads, 1);
  set_or_unset("OMP_WAIT_POLICY", a->wait_policy);
  char layout[16];
  snprintf(layout, sizeof layout, "%d", a->layout);
  set_or_unset("BENCH_LAYOUT", a->layout >= 0 ? layout : NULL);
  /* A measurement of its own: not a child process of a knit record. */
  unsetenv("KNIT_ROOT_PID");
  set_or_unset("OMP_TOOL_LIBRARIES", a->empty_tool);
  set_or_unset("KNIT_BENCH_TOOL_MARK", a->empty_tool ? a->tool_mark : NULL);
  set_or_unset("OMP_TOOL", a->tool_disabled ? "disabled" : NULL);
  bool knit = a->knit_lib != NULL;
  set_or_unset("LD_PRELOAD", a->knit_lib);
  set_or_unset("KNIT_EVENT", knit ? a->event : NULL);
  set_or_unset("KNIT_OUTPUT", knit ? a->out_dir : NULL);
  set_or_unset("KNIT_CAPTURE_CACHE", knit ? a->capture_cache : NULL);
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof v[0], by_value);
  return v[n / 2];
}
