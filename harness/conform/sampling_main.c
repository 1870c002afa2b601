/*
 * conform_sampling: runs the platform's sampling acceptance tests
 * (sampling.h) one after another and writes a verdict line for each to
 * $KNIT_CONFORM_OUT (or stdout), as the OMPT checker does:
 *   check <name> platform <pass|fail|not supported> <evidence>
 * Exit status 0 when nothing failed, 1 otherwise; `conform_sampling NAME`
 * runs one test.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conform/checks.h"
#include "sampling.h"

static const struct {
  const char *name;
  sampling_test_fn run;
} tests[] = {
    {"sigaction_context", sampling_sigaction_context},
    {"many_threads", sampling_many_threads},
    {"thread_timer_target", sampling_thread_timer_target},
    {"fork_sampling", sampling_fork},
    {"exec_sampling", sampling_exec},
    {"nested_sigsegv", sampling_nested_sigsegv},
    {"handler_mask_restored", sampling_handler_mask_restored},
    {"itimer_prof_signal", sampling_itimer_prof_signal},
    {"mmap_in_handler", sampling_mmap_in_handler},
};

bool sampling_spin_until(volatile int *done, int max_ms)
{
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile unsigned long sink = 0;
  while (!*done) {
    for (int i = 0; i < 10000; i++)
      sink += (unsigned long)i;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (ms > max_ms)
      return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--exec-child") == 0)
    return sampling_exec_child();
  const char *path = getenv("KNIT_CONFORM_OUT");
  FILE *out = path && *path ? fopen(path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "conform_sampling: cannot write %s\n", path);
    return 2;
  }
  static const char *const words[] = {"pass", "fail", "not supported"};
  int failures = 0, ran = 0;
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
      continue;
    char evidence[256] = "";
    sampling_verdict v = tests[i].run(evidence, sizeof evidence);
    fprintf(out, "check\t%s\t%s\t%s\t%s\n", tests[i].name,
            knit_check_category_name(KNIT_CATEGORY_PLATFORM), words[v], evidence);
    fflush(out);
    fprintf(stderr, "conform_sampling: %s: %s: %s\n", tests[i].name, words[v], evidence);
    failures += v == SAMPLING_FAIL;
    ran++;
  }
  if (out != stdout)
    fclose(out);
  if (ran == 0) {
    fprintf(stderr, "conform_sampling: no test called '%s'\n", argv[1]);
    return 2;
  }
  return failures ? 1 : 0;
}
