/* What knit costs a whole application: a proxy shock-hydrodynamics code
 * (bench/proxy_app_child.cpp: a time-step loop of 34 short parallel loops
 * a step over node and element arrays, from C++ templates and lambdas),
 * run to the end on 2 threads (or THREADS), each runtime alone against
 * the same runtime with knit attached (libknit.so preloaded, sampling
 * CPUTIME 200 times a second per thread, each run writing a measurement
 * of its own). The other benchmarks price one thing each (a region, a
 * task, a sample); this one is what a user pays end to end, start-up and
 * the writing of the measurement included.
 *
 * Runtimes: GNU libgomp, the system's (knit through its GOMP wrappers), and
 * LLVM's libomp (knit through OMPT; the child is built by g++, and libomp
 * speaks the GOMP ABI too) when the tree has it. Each runtime runs with
 * its defaults, waiting policy and tool interface included, as a user's
 * program would: the peer is the runtime alone, not an empty tool.
 *
 * Runs: PAIRS pairs per runtime, a run alone and a run with knit, the order
 * turning from pair to pair, so that whatever else the machine does over
 * minutes falls on both sides alike. Each run is timed by the driver: its
 * CPU time (user + system, wait4's rusage of that child alone) and its
 * wall time (fork to wait). A ratio is the median of the pairs' own
 * ratios, printed with the lowest and highest of them and their middle
 * half (first to third quartile). Then knit's fixed cost on its own: the
 * same number of pairs of a child with one element and no step (the
 * runtime starts its team, knit starts, analyses the program's code and
 * writes its measurement), knit's time less the alone run's, the median of
 * the pairs' differences in ms. And the SUMMARY line of knit's log: the
 * samples it took and the signals it dropped (blocked=).
 *
 * Target: CPU time, knit / alone, at most 1.01 (a sampler at 200 Hz should
 * cost an application about nothing). Wall time is printed without a
 * target: the team's barriers turn one thread's delay into the other's
 * waiting, which CPU time counts once and wall time may not count at all.
 *
 * Verdicts: the target line ends in "met" or "MISSED". The exit status is 1
 * when the target is missed, except where the middle half of the pairs'
 * ratios spans it (the machine was too noisy for the verdict to hold from
 * run to run: it says so), and except below VERDICT_WORK element-steps,
 * where the runs are too short for the figures to be anything but
 * start-up (ctest runs a tiny problem, to check that every setup runs,
 * that knit was active and that it left the result alone: never timings).
 * A run that fails, knit not active or without a SUMMARY, or a checksum
 * that differs between runs (knit, or the runtime, changed the result) is
 * a failure at any size.
 *
 *   bench_proxy_app [PAIRS [SIZE [STEPS [THREADS]]]]   prints a table per runtime and the verdicts
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child_run.h"
#include "scratch.h"

#ifndef CHILD
#error "CHILD: the path of bench_proxy_app_child"
#endif
#ifndef KNIT_LIB
#error "KNIT_LIB: the path of libknit.so"
#endif
#ifndef LIBOMP_DIR
#error "LIBOMP_DIR: a folder whose libgomp.so.1 is LLVM's libomp, or \"\""
#endif

#define MAX_PAIRS      101
#define EVENT          "CPUTIME@f200"
#define CPU_TARGET     1.01
#define VERDICT_WORK   1000000.0 /* element-steps; fewer: the targets decide nothing */
#define LOOPS_PER_STEP 34        /* bench/proxy_app_child.cpp's, for the header */

static const char *threads = "2";

/* A runtime: the folder whose libgomp.so.1 the child loads ("" for the
 * loader's own search: the system's libgomp). */
typedef struct runtime {
  const char *name;
  const char *libdir;
} runtime;

/* One run's setting: the runtime, knit or not, and where knit writes. */
typedef struct run_env {
  const runtime *rt;
  bool knit;
  const char *out_dir;
} run_env;

/* Sets the forked child's environment: the runtime, the team size, knit
 * or not; the runtime's own defaults otherwise (its wait policy included):
 * an application is run as its users run it. */
static void set_env(const void *arg)
{
  const run_env *e = arg;
  bench_attach a = {.libdir = e->rt->libdir,
                    .threads = threads,
                    .layout = -1,
                    .knit_lib = e->knit ? KNIT_LIB : NULL,
                    .event = EVENT,
                    .out_dir = e->out_dir};
  bench_attach_env(&a);
}

/* One run's figures. */
typedef struct run_result {
  double cpu, wall;   /* seconds: user + system of the child; fork to wait */
  char checksum[64];  /* the child's "checksum H" line */
  bench_knit_log log; /* knit runs only */
} run_result;

/* Runs the child once on rt (with knit when knit), SIZE^3 elements for
 * STEPS steps; false when it failed, printed no checksum or, with knit,
 * knit was not active or wrote no SUMMARY. */
static bool run_child(const runtime *rt, bool knit, const char *size, const char *steps,
                      run_result *r)
{
  char out_dir[4200];
  bench_scratch_path_of(out_dir, sizeof out_dir, "run", bench_scratch_next());
  char *argv[] = {CHILD, (char *)size, (char *)steps, NULL};
  run_env e = {rt, knit, out_dir};
  bench_child_run run;
  bool ok = bench_run_child_full(CHILD, argv, set_env, &e, &run);
  r->wall = run.wall_s;
  r->cpu = run.cpu_s;
  snprintf(r->checksum, sizeof r->checksum, "%s", run.checksum);
  if (!ok)
    fprintf(stderr, "bench_proxy_app: %s%s, %s^3 elements, %s steps: the child failed\n", rt->name,
            knit ? " + knit" : "", size, steps);
  if (ok && knit) {
    r->log = bench_knit_log_read(out_dir);
    if (!r->log.active || !r->log.summary) {
      fprintf(stderr,
              "bench_proxy_app: %s + knit: knit's OMPT tool or GOMP wrappers were not active, "
              "or it wrote no SUMMARY (%s)\n",
              rt->name, out_dir);
      ok = false;
    }
  }
  bench_remove_tree(out_dir);
  return ok;
}

/* A ratio over the pairs: the median of the pairs' own ratios, their
 * lowest and highest, and their middle half (first and third quartiles). */
typedef struct spread {
  double median, min, max, q1, q3;
} spread;

static spread spread_of(double *v, int pairs)
{
  spread s;
  s.median = bench_median(v, pairs); /* sorts */
  s.min = v[0];
  s.max = v[pairs - 1];
  s.q1 = v[pairs / 4];
  s.q3 = v[pairs - 1 - pairs / 4];
  return s;
}

/* What pairs of runs of one problem gave on one runtime. */
typedef struct measured {
  double cpu[2], wall[2]; /* alone, knit: medians of the pairs, seconds */
  spread cpu_ratio, wall_ratio;
  double cpu_excess, wall_excess; /* knit - alone: medians of the pairs' differences, seconds */
  bench_knit_log first;           /* the first knit run's log */
  unsigned long long samples, blocked; /* over every knit run */
  char checksum[64];                   /* every run's */
} measured;

/* Runs pairs pairs of the problem on rt; false on a failure or when a
 * run's checksum differs from the first run's. */
static bool measure(const runtime *rt, const char *size, const char *steps, int pairs, measured *m)
{
  double cpu[2][MAX_PAIRS], wall[2][MAX_PAIRS];
  double cpu_ratio[MAX_PAIRS], wall_ratio[MAX_PAIRS], cpu_excess[MAX_PAIRS], wall_excess[MAX_PAIRS];
  m->samples = m->blocked = 0;
  m->checksum[0] = 0;
  for (int k = 0; k < pairs; k++)
    for (int b = 0; b < 2; b++) {
      /* The order turns: a later run may find the machine warmer. */
      int knit = (b + k) % 2;
      run_result r;
      if (!run_child(rt, knit, size, steps, &r))
        return false;
      if (!m->checksum[0])
        snprintf(m->checksum, sizeof m->checksum, "%s", r.checksum);
      else if (strcmp(r.checksum, m->checksum) != 0) {
        fprintf(stderr,
                "bench_proxy_app: %s%s, %s^3 elements, %s steps: %s, where the first run "
                "printed %s: the result changed\n",
                rt->name, knit ? " + knit" : "", size, steps, r.checksum, m->checksum);
        return false;
      }
      cpu[knit][k] = r.cpu;
      wall[knit][k] = r.wall;
      if (knit) {
        if (k == 0)
          m->first = r.log;
        m->samples += r.log.samples;
        m->blocked += r.log.blocked;
      }
    }
  for (int k = 0; k < pairs; k++) {
    cpu_ratio[k] = cpu[1][k] / cpu[0][k];
    wall_ratio[k] = wall[1][k] / wall[0][k];
    cpu_excess[k] = cpu[1][k] - cpu[0][k];
    wall_excess[k] = wall[1][k] - wall[0][k];
  }
  m->cpu_ratio = spread_of(cpu_ratio, pairs);
  m->wall_ratio = spread_of(wall_ratio, pairs);
  m->cpu_excess = bench_median(cpu_excess, pairs);
  m->wall_excess = bench_median(wall_excess, pairs);
  for (int b = 0; b < 2; b++) {
    m->cpu[b] = bench_median(cpu[b], pairs);   /* sorts */
    m->wall[b] = bench_median(wall[b], pairs); /* sorts */
  }
  return true;
}

/* The verdicts, over every runtime. */
typedef struct verdicts {
  bool missed;       /* the target missed outside the noise */
  bool within_noise; /* missed, the pairs' middle half spanning the target */
} verdicts;

/* Measures one runtime, the problem and then the fixed cost, and prints
 * its table and verdict. */
static bool report(const runtime *rt, const char *size, const char *steps, int pairs, verdicts *v)
{
  measured full, fixed;
  if (!measure(rt, size, steps, pairs, &full) || !measure(rt, "1", "0", pairs, &fixed))
    return false;
  printf("%s\n  %-30s %10s %10s\n", rt->name, "setup (medians)", "CPU s", "wall s");
  printf("  %-30s %10.3f %10.3f\n", "alone", full.cpu[0], full.wall[0]);
  printf("  %-30s %10.3f %10.3f\n", "knit", full.cpu[1], full.wall[1]);
  const spread *c = &full.cpu_ratio, *w = &full.wall_ratio;
  bool met = c->median <= CPU_TARGET;
  bool noisy = !met && c->q1 <= CPU_TARGET;
  printf("    %-28s %6.3f (pairs %.3f-%.3f, middle half %.3f-%.3f; target <= %.2f)%s  %s\n",
         "CPU time, knit / alone", c->median, c->min, c->max, c->q1, c->q3, CPU_TARGET,
         noisy ? " noisy" : "", met ? "met" : "MISSED");
  v->missed |= !met && !noisy;
  v->within_noise |= noisy;
  printf("    %-28s %6.3f (pairs %.3f-%.3f, middle half %.3f-%.3f; no target)\n",
         "wall time, knit / alone", w->median, w->min, w->max, w->q1, w->q3);
  printf("    %-28s %.1f ms CPU, %.1f ms wall (medians of the pairs' differences)\n",
         "knit - alone, whole run", 1e3 * full.cpu_excess, 1e3 * full.wall_excess);
  printf("    %-28s %.1f ms CPU, %.1f ms wall (1 element, 0 steps, alone %.1f ms CPU)\n",
         "knit - alone, fixed cost", 1e3 * fixed.cpu_excess, 1e3 * fixed.wall_excess,
         1e3 * fixed.cpu[0]);
  printf("    %-28s samples=%llu blocked=%llu (the first knit run; all %d: %llu and %llu)\n",
         "knit's SUMMARY", full.first.samples, full.first.blocked, pairs, full.samples,
         full.blocked);
  printf("    %-28s %s in all %d runs, with knit and without\n", "result", full.checksum,
         2 * pairs);
  return true;
}

int main(int argc, char **argv)
{
  int pairs = argc > 1 ? atoi(argv[1]) : 21;
  const char *size = argc > 2 ? argv[2] : "30";
  const char *steps = argc > 3 ? argv[3] : "80";
  if (argc > 4)
    threads = argv[4];
  if (pairs < 1 || pairs > MAX_PAIRS || atoi(size) < 1 || atoi(size) > 200 || atoi(steps) < 0 ||
      atoi(threads) < 1) {
    fprintf(stderr, "usage: bench_proxy_app [PAIRS (1-%d) [SIZE (1-200) [STEPS [THREADS]]]]\n",
            MAX_PAIRS);
    return 2;
  }
  if (!bench_scratch_open("proxy"))
    return 1;
  double work = (double)atoi(size) * atoi(size) * atoi(size) * atoi(steps);
  printf("knit attached to a proxy shock-hydrodynamics application: %s^3 elements, %s steps of "
         "%d parallel\nloops, on %s thread%s (each runtime's defaults); knit sampling %s. %d "
         "pair%s of runs\n(alone, knit; the order turning each pair); a ratio is the median of "
         "the pairs' own ratios.\n",
         size, steps, LOOPS_PER_STEP, threads, strcmp(threads, "1") == 0 ? "" : "s", EVENT, pairs,
         pairs == 1 ? "" : "s");
  /* The system's libgomp: found by the loader's own search, not a tree's.
   * libomp: a folder in which libgomp.so.1 is libomp, for a gcc-built child. */
  const runtime runtimes[] = {
      {"libgomp (the system's; knit through its GOMP wrappers)", ""},
      {"libomp (LLVM's, through its GOMP ABI; knit through OMPT)", LIBOMP_DIR},
  };
  verdicts v = {false, false};
  bool failed = false;
  for (size_t k = 0; k < sizeof runtimes / sizeof runtimes[0]; k++) {
    if (k == 1 && LIBOMP_DIR[0] == '\0') {
      printf("libomp\n  not measured: not in this tree (lib/real-libomp)\n");
      continue;
    }
    failed |= !report(&runtimes[k], size, steps, pairs, &v);
  }
  bench_scratch_close();
  if (failed)
    return 1;
  /* Pairs that fall on both sides of the target: the verdict is the
   * median's side, and another run may well land on the other. */
  if (v.within_noise)
    printf("a MISSED marked noisy has its pairs' middle half spanning the target: within this\n"
           "machine's noise; run again, with more pairs, when it is quieter\n");
  if (work < VERDICT_WORK) {
    printf("fewer than %.0f element-steps: start-up, not the application, makes these "
           "figures; the target decides nothing\n",
           VERDICT_WORK);
    return 0;
  }
  return v.missed ? 1 : 0;
}
