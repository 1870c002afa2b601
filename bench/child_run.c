/* Running the benchmarks' child programs: see child_run.h. */
#define _GNU_SOURCE
#include "child_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

double bench_run_child(const char *path, char *const argv[], void (*setup)(const void *arg),
                       const void *arg, char *sum, size_t sum_len)
{
  return bench_run_child_rss(path, argv, setup, arg, sum, sum_len, NULL);
}

double bench_run_child_rss(const char *path, char *const argv[], void (*setup)(const void *arg),
                           const void *arg, char *sum, size_t sum_len, long *max_rss_kb)
{
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    setup(arg);
    execv(path, argv);
    _exit(127);
  }
  close(fds[1]);
  char out[256];
  size_t len = 0;
  ssize_t r;
  while (len + 1 < sizeof out && (r = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
    len += (size_t)r;
  out[len] = 0;
  close(fds[0]);
  /* wait4, not waitpid: the child's own rusage, not that of all the
   * children so far (getrusage(RUSAGE_CHILDREN) keeps the largest). */
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid)
    return -1;
  if (max_rss_kb)
    *max_rss_kb = usage.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  const char *line = strstr(out, "checksum ");
  if (!line)
    return -1;
  snprintf(sum, sum_len, "%.*s", (int)strcspn(line, "\n"), line);
  return atof(out);
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
