/* What knit costs per sample, against the cheapest sampler there can be.
 *
 * The child (bench/sample_cost_child.c) runs a fixed amount of integer work
 * at the bottom of a recursion DEPTH calls deep, on its main thread, in
 * three setups, measured in the same run in turn, round after round (the
 * order turning too), so that whatever else the machine does falls on all
 * alike:
 *   alone  the child alone
 *   peer   an empty sampler preloaded (bench/sample_cost_peer.c): a
 *          per-thread timer made as knit makes its REALTIME one, at 10 kHz,
 *          and a SIGPROF handler that only counts; what any timer-driven
 *          sampler pays the kernel per sample
 *   knit   libknit.so preloaded, sampling REALTIME@f10000: the same timer,
 *          and knit's handler unwinding DEPTH frames and more per sample
 * A setup's cost per signal is its time less alone's, in the same round,
 * over the signals it handled (the peer's count, or knit's SUMMARY
 * samples= + blocked=); the ratio is knit's cost per signal over the
 * peer's. Each figure is the median of the rounds' own figures, the ratio
 * the median of the rounds' own ratios: a round runs the setups one after
 * the other, so what the rest of the machine does over minutes falls on
 * all three.
 *
 * Times: each run is timed by the driver, from fork to wait (the child's
 * start and exit included: what a user waits for, knit's start-up and the
 * writing of its measurement too). The child's own time of its work, read
 * inside it around the recursion, gives the same costs without start and
 * exit; they are printed beside, without a target, to tell a cost per
 * signal from a cost per run.
 *
 * Verdicts: per depth, "met" when the ratio is at most 1.25, else
 * "MISSED". The exit status is 1 when one is missed, except where the
 * middle half of the rounds' ratios spans the target (the machine was too
 * noisy for the verdict to hold from run to run: it says so), and except
 * below VERDICT_ITERATIONS, where a run takes too few signals for its cost
 * to show over the machine's noise (ctest runs tiny counts, to check that
 * every setup runs and took its signals: never timings). A run that fails,
 * a setup that took no signal, or a sampler that changed the result is a
 * failure at any count.
 *
 *   bench_sample_cost [ROUNDS [ITERATIONS]]   prints a table per depth and the verdicts
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child_run.h"
#include "scratch.h"
#include "measure/read_file.h"

#ifndef CHILD
#error "CHILD: the path of bench_sample_cost_child"
#endif
#ifndef PEER
#error "PEER: the path of bench_sample_cost_peer.so"
#endif
#ifndef KNIT_LIB
#error "KNIT_LIB: the path of libknit.so"
#endif

#define MAX_ROUNDS         101
#define EVENT              "REALTIME@f10000"
#define TARGET             1.25
#define DEFAULT_ROUNDS     21
/* About 0.4 s of work natively: some 4,000 signals a run at 10 kHz. */
#define DEFAULT_ITERATIONS 300000000L
/* Fewer iterations: the targets decide nothing. */
#define VERDICT_ITERATIONS 30000000L

/* The setups, in the order the table lists them. */
#define SETUPS 3
enum { ALONE, PEER_SETUP, KNIT };
static const char *const labels[SETUPS] = {"alone", "peer", "knit"};

static const int depths[] = {30, 100};


static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* What one run gave. */
typedef struct run_result {
  double wall_ns;             /* fork to wait, read by the driver */
  double work_ns;             /* the child's own time of its work */
  unsigned long long signals; /* handled by the sampler: 0 alone */
  /* knit only, from its SUMMARY and its thread files' statistics: */
  unsigned long long samples, partial, wrong, frames;
} run_result;

/* One run's setting: the setup, and where the sampler writes. */
typedef struct run_env {
  int setup;
  const char *out_dir;      /* knit's KNIT_OUTPUT */
  const char *signals_file; /* the peer's BENCH_SIGNALS_OUT */
} run_env;

static void set_env(const void *arg)
{
  const run_env *e = arg;
  unsetenv("KNIT_ROOT_PID");
  unsetenv("KNIT_CAPTURE_CACHE");
  unsetenv("LD_PRELOAD");
  unsetenv("KNIT_EVENT");
  unsetenv("KNIT_OUTPUT");
  unsetenv("BENCH_SIGNALS_OUT");
  if (e->setup == PEER_SETUP) {
    setenv("LD_PRELOAD", PEER, 1);
    setenv("BENCH_SIGNALS_OUT", e->signals_file, 1);
  } else if (e->setup == KNIT) {
    setenv("LD_PRELOAD", KNIT_LIB, 1);
    setenv("KNIT_EVENT", EVENT, 1);
    setenv("KNIT_OUTPUT", e->out_dir, 1);
  }
}

/* The peer's count of signals, from the file it wrote at exit; false when
 * there is none (the peer was not loaded, or did not arm its timer). */
static bool read_peer_signals(const char *path, unsigned long long *signals)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  bool ok = fscanf(f, "%llu", signals) == 1;
  fclose(f);
  return ok;
}

/* knit's counts in dir: its SUMMARY line's and the frames its thread files
 * say it unwound. False when there is no measurement or no SUMMARY. */
static bool read_knit(const char *dir, run_result *r)
{
  knit_measurement m;
  char err[256];
  if (knit_measurement_read(dir, &m, err, sizeof err) != 0) {
    fprintf(stderr, "bench_sample_cost: %s: %s\n", dir, err);
    return false;
  }
  uint64_t samples = 0, blocked = 0, partial = 0, wrong = 0;
  bool ok = m.summary && knit_summary_u64(m.summary, "samples", &samples) == 0 &&
            knit_summary_u64(m.summary, "blocked", &blocked) == 0 &&
            knit_summary_u64(m.summary, "partial", &partial) == 0 &&
            knit_summary_u64(m.summary, "wrong", &wrong) == 0;
  r->samples = samples;
  r->partial = partial;
  r->wrong = wrong;
  r->signals = samples + blocked;
  r->frames = 0;
  for (size_t k = 0; k < m.thread_count; k++)
    r->frames += m.threads[k].stats[KNIT_STAT_FRAMES];
  knit_measurement_free(&m);
  return ok;
}

/* Runs the child once in a setup; false on failure (said on stderr). The
 * checksum line goes into sum. */
static bool run_child(int setup, int depth, long iterations, run_result *r, char *sum,
                      size_t sum_len)
{
  char out_dir[4200], signals_file[4200];
  unsigned id = bench_scratch_next();
  bench_scratch_path_of(out_dir, sizeof out_dir, "run", id);
  bench_scratch_path_of(signals_file, sizeof signals_file, "signals", id);
  char d[16], n[32];
  snprintf(d, sizeof d, "%d", depth);
  snprintf(n, sizeof n, "%ld", iterations);
  char *argv[] = {CHILD, d, n, NULL};
  run_env e = {setup, out_dir, signals_file};
  memset(r, 0, sizeof *r);
  double start = now_ns();
  r->work_ns = bench_run_child(CHILD, argv, set_env, &e, sum, sum_len);
  r->wall_ns = now_ns() - start;
  bool ok = r->work_ns >= 0;
  if (!ok)
    fprintf(stderr, "bench_sample_cost: %s, depth %d: the child failed\n", labels[setup], depth);
  if (ok && setup == PEER_SETUP &&
      (!read_peer_signals(signals_file, &r->signals) || r->signals == 0)) {
    fprintf(stderr, "bench_sample_cost: peer, depth %d: no signal handled (%s)\n", depth,
            signals_file);
    ok = false;
  }
  if (ok && setup == KNIT && (!read_knit(out_dir, r) || r->samples == 0)) {
    fprintf(stderr, "bench_sample_cost: knit, depth %d: no SUMMARY, or no sample in it (%s)\n",
            depth, out_dir);
    ok = false;
  }
  bench_remove_tree(out_dir);
  remove(signals_file);
  return ok;
}

/* The median of v[0..n), leaving v as it is. */
static double median_of(const double *v, int n)
{
  double copy[MAX_ROUNDS];
  memcpy(copy, v, (size_t)n * sizeof v[0]);
  return bench_median(copy, n);
}

/* A setup's cost per signal in a round, in ns: its time over alone's, per
 * signal. */
static double cost_per_signal(double t, double alone, unsigned long long signals)
{
  return (t - alone) / (double)signals;
}

/* knit's cost over the peer's in a round. A round where the peer's cost
 * came out at zero or below (the machine's noise larger than the peer's
 * whole cost) counts as the worst ratio, not as a division by it. */
static double ratio_of(double knit, double peer)
{
  return peer > 0 ? knit / peer : INFINITY;
}

/* What one depth gave. */
typedef struct verdict {
  bool missed;       /* the target missed outside the noise */
  bool within_noise; /* missed, the rounds' middle half spanning the target */
} verdict;

/* Measures one depth, prints its table and verdict; false on failure. */
static bool measure(int depth, long iterations, int rounds, verdict *v)
{
  static run_result res[SETUPS][MAX_ROUNDS];
  char sums[SETUPS][64];
  for (int k = 0; k < rounds; k++)
    for (int b = 0; b < SETUPS; b++) {
      /* The order turns too: a later run may find the machine warmer. */
      int which = (b + k) % SETUPS;
      char sum[64];
      if (!run_child(which, depth, iterations, &res[which][k], sum, sizeof sum))
        return false;
      if (k == 0)
        snprintf(sums[which], sizeof sums[which], "%s", sum);
      else if (strcmp(sums[which], sum) != 0) {
        fprintf(stderr, "bench_sample_cost: %s, depth %d: results differ between runs (%s, %s)\n",
                labels[which], depth, sums[which], sum);
        return false;
      }
    }
  for (int b = 1; b < SETUPS; b++)
    if (strcmp(sums[ALONE], sums[b]) != 0) {
      fprintf(stderr, "bench_sample_cost: depth %d: %s changed the result (%s, %s)\n", depth,
              labels[b], sums[ALONE], sums[b]);
      return false;
    }

  /* The rounds' own figures: each setup's times and signals, and the
   * samplers' costs per signal (from the driver's times and from the
   * child's), and knit's over the peer's. */
  double wall[SETUPS][MAX_ROUNDS], work[SETUPS][MAX_ROUNDS], signals[SETUPS][MAX_ROUNDS];
  double cost[SETUPS][MAX_ROUNDS], work_cost[SETUPS][MAX_ROUNDS];
  double ratio[MAX_ROUNDS], work_ratio[MAX_ROUNDS];
  unsigned long long samples = 0, partial = 0, wrong = 0, frames = 0;
  for (int k = 0; k < rounds; k++) {
    for (int b = 0; b < SETUPS; b++) {
      const run_result *r = &res[b][k];
      wall[b][k] = r->wall_ns;
      work[b][k] = r->work_ns;
      signals[b][k] = (double)r->signals;
      if (b != ALONE) {
        cost[b][k] = cost_per_signal(r->wall_ns, res[ALONE][k].wall_ns, r->signals);
        work_cost[b][k] = cost_per_signal(r->work_ns, res[ALONE][k].work_ns, r->signals);
      }
    }
    ratio[k] = ratio_of(cost[KNIT][k], cost[PEER_SETUP][k]);
    work_ratio[k] = ratio_of(work_cost[KNIT][k], work_cost[PEER_SETUP][k]);
    samples += res[KNIT][k].samples;
    partial += res[KNIT][k].partial;
    wrong += res[KNIT][k].wrong;
    frames += res[KNIT][k].frames;
  }

  printf("depth %d (%d frames of recursion over main), %ld iterations, %d rounds:\n", depth, depth,
         iterations, rounds);
  printf("  %-6s %9s %9s %8s %11s %11s\n", "setup", "run ms", "work ms", "signals", "ns/signal",
         "(work)");
  for (int b = 0; b < SETUPS; b++) {
    printf("  %-6s %9.1f %9.1f %8.0f", labels[b], median_of(wall[b], rounds) / 1e6,
           median_of(work[b], rounds) / 1e6, median_of(signals[b], rounds));
    if (b == ALONE)
      printf(" %11s %11s\n", "-", "-");
    else
      printf(" %11.1f %11.1f\n", median_of(cost[b], rounds), median_of(work_cost[b], rounds));
  }
  double r = bench_median(ratio, rounds); /* sorts */
  double q1 = ratio[rounds / 4], q3 = ratio[rounds - 1 - rounds / 4];
  double wr = bench_median(work_ratio, rounds); /* sorts */
  bool met = r <= TARGET;
  bool noisy = !met && q1 <= TARGET;
  printf("  knit / peer, per signal: %.3f (rounds %.3f-%.3f, middle half %.3f-%.3f; target <= "
         "%.2f)%s  %s\n",
         r, ratio[0], ratio[rounds - 1], q1, q3, TARGET, noisy ? " noisy" : "",
         met ? "met" : "MISSED");
  printf("  the same on the child's own work time (no start or exit; no target): %.3f\n", wr);
  printf("  knit: %.1f frames per sample; partial=%llu wrong=%llu in %llu samples "
         "(all %d knit runs)\n",
         samples ? (double)frames / (double)samples : 0.0, partial, wrong, samples, rounds);
  v->missed |= !met && !noisy;
  v->within_noise |= noisy;
  return true;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;
  long iterations = argc > 2 ? atol(argv[2]) : DEFAULT_ITERATIONS;
  if (argc > 3 || rounds < 1 || rounds > MAX_ROUNDS || iterations < 1) {
    fprintf(stderr, "usage: bench_sample_cost [ROUNDS (1-%d) [ITERATIONS (1 or more)]]\n",
            MAX_ROUNDS);
    return 2;
  }
  if (!bench_scratch_open("sample"))
    return 1;
  printf("knit's cost per sample against an empty sampler: integer work at the bottom of a\n"
         "recursion, on the main thread, in three setups run in turn, round after round:\n"
         "  alone  the child alone\n"
         "  peer   a per-thread CLOCK_MONOTONIC timer at 10 kHz (as knit's REALTIME) and a\n"
         "         SIGPROF handler that only counts (bench/sample_cost_peer.c)\n"
         "  knit   libknit.so, %s\n"
         "run ms: fork to wait, from the driver; work ms: the child's own time of its work.\n"
         "ns/signal: (the setup's time - alone's) / the signals it handled (knit: samples= +\n"
         "blocked=), from run ms, and under (work) from work ms. Medians of the rounds' own\n"
         "figures; the ratio is the median of the rounds' own ratios.\n",
         EVENT);
  bool failed = false;
  verdict v = {false, false};
  for (size_t k = 0; k < sizeof depths / sizeof depths[0] && !failed; k++)
    failed = !measure(depths[k], iterations, rounds, &v);
  bench_scratch_close();
  if (failed)
    return 1;
  if (v.within_noise)
    printf("a verdict whose middle half spans %.2f is within this machine's noise: run again,\n"
           "with more rounds, when it is quieter\n",
           TARGET);
  if (iterations < VERDICT_ITERATIONS) {
    printf("fewer than %ld iterations: too few signals a run for the verdicts to decide "
           "anything\n",
           VERDICT_ITERATIONS);
    return 0;
  }
  return v.missed ? 1 : 0;
}
