/* Cost of OMPT in a runtime with no tool attached: the mock runtime as
 * shipped (OMPT compiled in: dispatch tests, states and frames kept)
 * against the same runtime built without OMPT (MOCKRT_NO_OMPT), on tiny
 * parallel regions and on fine-grained tasks.
 *
 * Each measurement is one run of bench_ompt_overhead_child on one of the
 * two builds (chosen by LD_LIBRARY_PATH); the builds take turns, round
 * after round, so whatever else the machine does falls on both alike, and
 * each figure is the median of its rounds.
 *
 *   bench_ompt_overhead [ROUNDS [REGIONS [TASKS]]]   prints a table and the ratios
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child_run.h"

#ifndef CHILD
#error "CHILD: the path of bench_ompt_overhead_child"
#endif
#ifndef WITH_OMPT_DIR
#error "WITH_OMPT_DIR, WITHOUT_OMPT_DIR: the two builds of the mock libgomp.so.1"
#endif

#define MAX_ROUNDS 64

/* One run's setting: the runtime build and the team size. */
typedef struct run_env {
  const char *libdir;
  const char *threads;
} run_env;

static void set_env(const void *arg)
{
  const run_env *e = arg;
  setenv("LD_LIBRARY_PATH", e->libdir, 1);
  /* At most one thread per core of the 2-core budget: the figure is the
   * runtime's cost, not the scheduler's. Passive: waiting threads sleep. */
  setenv("OMP_NUM_THREADS", e->threads, 1);
  setenv("OMP_WAIT_POLICY", "passive", 1);
  unsetenv("OMP_TOOL_LIBRARIES");
  unsetenv("LD_PRELOAD");
}

/* Runs the child once; returns its ns per item (negative on failure) and
 * its checksum line in sum. */
static double run_child(const char *libdir, const char *what, long count, const char *threads,
                        char *sum, size_t sum_len)
{
  char n[32];
  snprintf(n, sizeof n, "%ld", count);
  char *argv[] = {CHILD, (char *)what, n, NULL};
  run_env e = {libdir, threads};
  return bench_run_child(CHILD, argv, set_env, &e, sum, sum_len);
}

/* Measures one workload on both builds; prints a line and returns the
 * ratio (with OMPT / without), or a negative value on failure. */
static double compare(const char *what, long count, const char *threads, int rounds)
{
  const char *dirs[2] = {WITHOUT_OMPT_DIR, WITH_OMPT_DIR};
  double ns[2][MAX_ROUNDS];
  char sums[2][64] = {"", ""};
  for (int k = 0; k < rounds; k++) {
    for (int b = 0; b < 2; b++) {
      /* The order alternates too: the second of two runs may find the
       * machine warmer. */
      int build = (k & 1) ? 1 - b : b;
      char sum[64];
      ns[build][k] = run_child(dirs[build], what, count, threads, sum, sizeof sum);
      if (ns[build][k] < 0) {
        fprintf(stderr, "bench_ompt_overhead: %s on %s failed\n", what, dirs[build]);
        return -1;
      }
      if (k == 0)
        snprintf(sums[build], sizeof sums[build], "%s", sum);
      else if (strcmp(sums[build], sum) != 0) {
        fprintf(stderr, "bench_ompt_overhead: %s: results differ between runs (%s, %s)\n", what,
                sums[build], sum);
        return -1;
      }
    }
  }
  if (strcmp(sums[0], sums[1]) != 0) {
    fprintf(stderr, "bench_ompt_overhead: %s: the builds disagree (%s, %s)\n", what, sums[0],
            sums[1]);
    return -1;
  }
  double median[2];
  for (int b = 0; b < 2; b++)
    median[b] = bench_median(ns[b], rounds);
  double ratio = median[1] / median[0];
  printf("  %-8s %s thread%s %8ld  without OMPT %9.1f ns  with OMPT, no tool %9.1f ns  "
         "ratio %.3f\n", what, threads, strcmp(threads, "1") == 0 ? " " : "s", count, median[0],
         median[1], ratio);
  return ratio;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 11;
  long nregions = argc > 2 ? atol(argv[2]) : 20000;
  long ntasks = argc > 3 ? atol(argv[3]) : 100000;
  if (rounds < 1 || rounds > MAX_ROUNDS || nregions < 1 || ntasks < 1) {
    fprintf(stderr, "usage: bench_ompt_overhead [ROUNDS (1-%d) [REGIONS [TASKS]]]\n", MAX_ROUNDS);
    return 2;
  }
  printf("OMPT compiled in, no tool attached, against the mock GNU runtime built without it\n"
         "(ns per region or task, median of %d interleaved runs each)\n", rounds);
  /* One thread: the runtime's own path, without the wake-ups of a team,
   * whose timing on a busy machine varies far more than OMPT costs. */
  double r0 = compare("regions", nregions, "1", rounds);
  double r1 = compare("regions", nregions, "2", rounds);
  double r2 = compare("tasks", ntasks, "2", rounds);
  if (r0 < 0 || r1 < 0 || r2 < 0)
    return 1;
  printf("ratio with/without OMPT: regions %.3f (1 thread) %.3f (2 threads), tasks %.3f "
         "(target: at most 1.010)\n", r0, r1, r2);
  return 0;
}
