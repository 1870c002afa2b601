/* Cost of OMPT in a runtime with no tool attached: the mock runtime as
 * shipped (OMPT compiled in) against the same runtime built without OMPT
 * (MOCKRT_NO_OMPT), on tiny parallel regions and on fine-grained tasks.
 * The target is a ratio (with OMPT / without) of at most 1.010.
 *
 * Each measurement is one run of bench_ompt_overhead_child on one of the
 * two builds (chosen by LD_LIBRARY_PATH). The builds take turns, round
 * after round and in alternating order, so that whatever else the machine
 * does falls on both alike. For each build the median and the best of its
 * rounds are printed; the ratio is the median of the rounds' ratios (each
 * round's two runs ran back to back, so a slow drift of the machine cancels
 * out), and the ratio of the bests is printed next to it. On a quiet
 * machine the two agree to a fraction of a percent; when they do not, the
 * machine was too busy for a 1% verdict and the run should be repeated
 * (with more rounds).
 *
 * Every run sets OMP_WAIT_POLICY=active: a waiting thread polls (then
 * yields) instead of sleeping on a futex. With the default policy a
 * 2-thread region on a VM usually costs a futex sleep and wake-up per
 * thread, some microseconds that vary by tens of percent from run to run
 * and have nothing to do with OMPT; polling leaves the runtime's own path
 * to be measured. One thread per core of the 2-core budget at most, so
 * the pollers do not take the CPU from the threads they wait for.
 *
 * Wall-clock figures can only ever be as steady as the machine. The exact,
 * noise-free measure is the instruction count, from callgrind, on 1 thread
 * (the child warms up with COUNT/10 + 1 items, so the cost of one item is
 * the difference of two runs divided by 1.1 times the difference of their
 * COUNTs):
 *
 *   for v in mock-gomp mock-gomp-noompt; do for n in 10000 20000; do
 *     LD_LIBRARY_PATH=build/native/lib/$v OMP_NUM_THREADS=1 valgrind \
 *       --tool=callgrind --callgrind-out-file=cg.$v.$n \
 *       build/native/bin/bench_ompt_overhead_child regions $n; done; done
 *
 * (and the same with tasks). docs/design-notes.md has the figures.
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

#define MAX_ROUNDS 201
#define TARGET     1.010

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
   * runtime's cost, not the scheduler's. Active: waiting threads poll, so
   * a region costs no futex wake-up (see the top of this file). */
  setenv("OMP_NUM_THREADS", e->threads, 1);
  setenv("OMP_WAIT_POLICY", "active", 1);
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

static double smallest(const double *v, int n)
{
  double m = v[0];
  for (int i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

/* The median of v[0..n), leaving v as it is. */
static double median_of(const double *v, int n)
{
  double copy[MAX_ROUNDS];
  memcpy(copy, v, sizeof v[0] * (size_t)n);
  return bench_median(copy, n);
}

typedef struct result {
  const char *what;
  const char *threads;
  double ratio;      /* median of the rounds' ratios */
  double best_ratio; /* best with OMPT / best without */
} result;

/* Measures one workload on both builds and prints its line; false on
 * failure. */
static int compare(const char *what, long count, const char *threads, int rounds, result *r)
{
  const char *dirs[2] = {WITHOUT_OMPT_DIR, WITH_OMPT_DIR};
  double ns[2][MAX_ROUNDS], ratios[MAX_ROUNDS];
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
        return 0;
      }
      if (k == 0)
        snprintf(sums[build], sizeof sums[build], "%s", sum);
      else if (strcmp(sums[build], sum) != 0) {
        fprintf(stderr, "bench_ompt_overhead: %s: results differ between runs (%s, %s)\n", what,
                sums[build], sum);
        return 0;
      }
    }
    ratios[k] = ns[1][k] / ns[0][k];
  }
  if (strcmp(sums[0], sums[1]) != 0) {
    fprintf(stderr, "bench_ompt_overhead: %s: the builds disagree (%s, %s)\n", what, sums[0],
            sums[1]);
    return 0;
  }
  double med[2], best[2];
  for (int b = 0; b < 2; b++) {
    med[b] = median_of(ns[b], rounds);
    best[b] = smallest(ns[b], rounds);
  }
  r->what = what;
  r->threads = threads;
  r->ratio = median_of(ratios, rounds);
  r->best_ratio = best[1] / best[0];
  printf("  %-8s %3s %8ld  %9.1f %9.1f   %9.1f %9.1f   %7.3f %7.3f\n", what, threads, count, med[0],
         best[0], med[1], best[1], r->ratio, r->best_ratio);
  return 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  long nregions = argc > 2 ? atol(argv[2]) : 20000;
  long ntasks = argc > 3 ? atol(argv[3]) : 100000;
  if (rounds < 1 || rounds > MAX_ROUNDS || nregions < 1 || ntasks < 1) {
    fprintf(stderr, "usage: bench_ompt_overhead [ROUNDS (1-%d) [REGIONS [TASKS]]]\n", MAX_ROUNDS);
    return 2;
  }
  printf("OMPT compiled in, no tool attached, against the mock GNU runtime built without it\n"
         "(ns per region or task; %d runs of each build, taking turns; OMP_WAIT_POLICY=active)\n\n"
         "                         without OMPT          with OMPT, no tool    ratio with/without\n"
         "  workload thr    count     median      best      median      best    median    best\n",
         rounds);
  result res[3];
  /* One thread: the runtime's own path, without a team's hand-offs. */
  if (!compare("regions", nregions, "1", rounds, &res[0]) ||
      !compare("regions", nregions, "2", rounds, &res[1]) ||
      !compare("tasks", ntasks, "2", rounds, &res[2]))
    return 1;
  printf("\nratio with/without OMPT, median of the rounds' ratios (target: at most %.3f):\n",
         TARGET);
  for (int i = 0; i < 3; i++)
    printf("  %-8s %s thread%s  %.3f  %s   (ratio of the bests %.3f)\n", res[i].what,
           res[i].threads, strcmp(res[i].threads, "1") == 0 ? " " : "s", res[i].ratio,
           res[i].ratio <= TARGET ? "within target" : "over target  ", res[i].best_ratio);
  for (int i = 0; i < 3; i++) {
    double d = res[i].ratio - res[i].best_ratio;
    if (d > TARGET - 1 || d < 1 - TARGET) {
      printf("median and best disagree by more than the margin: the machine was too busy for\n"
             "a verdict at this level; run again, with more rounds, when it is quieter\n");
      break;
    }
  }
  return 0;
}
