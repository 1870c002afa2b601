/* What tracing (`knit record -t`) adds to knit's cost: the proxy
 * application of bench_proxy_app (bench/proxy_app_child.cpp, a time-step
 * loop of 34 short parallel loops a step) on 2 threads (or THREADS), on
 * the system's libgomp, with knit sampling CPUTIME 1000 times a second
 * per thread, once without traces and once with them (KNIT_TRACE=1, as
 * -t sets it): every sample and every region, barrier and idle transition
 * then goes into a per-thread ring, and the flusher thread writes the
 * rings out every 50 ms.
 *
 * The runtime waits passively (OMP_WAIT_POLICY=passive): a thread that
 * spins at a barrier burns CPU time in proportion to how late the other
 * is, which on a shared machine swamped the trace's cost (pairs' ratios
 * from 0.6 to 4.2 with libgomp's default policy).
 *
 * The peer is knit itself without -t, not the program alone: what is
 * priced is the trace, in the same run of the driver, the pairs' order
 * turning from pair to pair. Each run is timed by the driver (its CPU time,
 * user + system of the child, and fork to wait); a ratio is the median of
 * the pairs' own ratios, printed with their lowest and highest and their
 * middle half (first to third quartile), as bench_proxy_app prints them.
 * The trace's own counts follow (records written, events dropped): a
 * trace that lost events costs less than one that did not, and so says so.
 *
 * Target: CPU time, traced / untraced, at most 1.01. The exit status is 1
 * when it is missed outside the noise (the middle half of the pairs'
 * ratios above it), and below VERDICT_WORK element-steps never for the
 * timings (ctest runs a tiny problem: that both setups run, that the
 * traced run wrote its trace and the other none, and that the checksum is
 * the same in every run).
 *
 *   bench_trace_overhead [PAIRS [SIZE [STEPS [THREADS]]]]
 */
#define _GNU_SOURCE
#include <dirent.h>
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

#define MAX_PAIRS    101
#define EVENT        "CPUTIME@f1000"
#define CPU_TARGET   1.01
#define VERDICT_WORK 1000000.0 /* element-steps; fewer: the target decides nothing */

static const char *threads = "2";

typedef struct run_env {
  bool trace;
  const char *out_dir;
} run_env;

static void set_env(const void *arg)
{
  const run_env *e = arg;
  bench_attach a = {.libdir = "",
                    .threads = threads,
                    .wait_policy = "passive",
                    .layout = -1,
                    .knit_lib = KNIT_LIB,
                    .event = EVENT,
                    .out_dir = e->out_dir};
  bench_attach_env(&a);
  if (e->trace)
    setenv("KNIT_TRACE", "1", 1);
  else
    unsetenv("KNIT_TRACE");
}

/* The trace's counts, from knit.log's "trace: N records in F trace files,
 * D events dropped ..." line; found false without one. */
typedef struct trace_log {
  bool found;
  unsigned long long records, dropped;
  unsigned files;
} trace_log;

static trace_log trace_log_read(const char *dir)
{
  trace_log t = {false, 0, 0, 0};
  char path[4300], line[1024];
  snprintf(path, sizeof path, "%s/knit.log", dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return t;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "trace: %llu records in %u trace files, %llu events dropped", &t.records,
               &t.files, &t.dropped) == 3)
      t.found = true;
  fclose(f);
  return t;
}

/* Whether dir holds a trace file. */
static bool has_trace_files(const char *dir)
{
  DIR *d = opendir(dir);
  bool found = false;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    found |= strncmp(e->d_name, "trace-", 6) == 0;
  if (d)
    closedir(d);
  return found;
}

typedef struct run_result {
  double cpu, wall;
  char checksum[64];
  trace_log trace;
} run_result;

/* One run; false when it failed, knit was not active, or the trace files
 * are not as the setting asks (traced: a trace; untraced: none). */
static bool run_child(bool trace, const char *size, const char *steps, run_result *r)
{
  char out_dir[4200];
  bench_scratch_path_of(out_dir, sizeof out_dir, "run", bench_scratch_next());
  char *argv[] = {CHILD, (char *)size, (char *)steps, NULL};
  run_env e = {trace, out_dir};
  bench_child_run run;
  bool ok = bench_run_child_full(CHILD, argv, set_env, &e, &run);
  r->cpu = run.cpu_s;
  r->wall = run.wall_s;
  snprintf(r->checksum, sizeof r->checksum, "%s", run.checksum);
  const char *setting = trace ? "knit -t" : "knit";
  if (!ok)
    fprintf(stderr, "bench_trace_overhead: %s: the child failed\n", setting);
  bench_knit_log log = bench_knit_log_read(out_dir);
  if (ok && (!log.active || !log.summary)) {
    fprintf(stderr, "bench_trace_overhead: %s: knit was not active or wrote no SUMMARY (%s)\n",
            setting, out_dir);
    ok = false;
  }
  r->trace = trace_log_read(out_dir);
  if (ok && trace != (r->trace.found && r->trace.records > 0 && has_trace_files(out_dir))) {
    fprintf(stderr, "bench_trace_overhead: %s: %s\n", setting,
            trace ? "no trace was written" : "a trace was written without -t");
    ok = false;
  }
  bench_remove_tree(out_dir);
  return ok;
}

int main(int argc, char **argv)
{
  int pairs = argc > 1 ? atoi(argv[1]) : 15;
  const char *size = argc > 2 ? argv[2] : "28";
  const char *steps = argc > 3 ? argv[3] : "150";
  if (argc > 4)
    threads = argv[4];
  if (pairs < 1 || pairs > MAX_PAIRS || atoi(size) < 1 || atoi(size) > 200 || atoi(steps) < 0 ||
      atoi(threads) < 1) {
    fprintf(stderr, "usage: bench_trace_overhead [PAIRS (1-%d) [SIZE (1-200) [STEPS [THREADS]]]]\n",
            MAX_PAIRS);
    return 2;
  }
  if (!bench_scratch_open("trace"))
    return 1;
  printf("knit -t against knit on the proxy application: %s^3 elements, %s steps, %s thread%s,\n"
         "libgomp (passive waits); knit sampling %s. %d pair%s of runs (the order turning\n"
         "each pair); a ratio is the median of the pairs' own ratios.\n",
         size, steps, threads, strcmp(threads, "1") == 0 ? "" : "s", EVENT, pairs,
         pairs == 1 ? "" : "s");
  double cpu[2][MAX_PAIRS], wall[2][MAX_PAIRS], cpu_ratio[MAX_PAIRS], wall_ratio[MAX_PAIRS];
  char checksum[64] = "";
  unsigned long long records = 0, dropped = 0;
  bool failed = false;
  for (int k = 0; k < pairs && !failed; k++)
    for (int b = 0; b < 2 && !failed; b++) {
      int trace = (b + k) % 2;
      run_result r;
      if (!run_child(trace, size, steps, &r)) {
        failed = true;
        break;
      }
      if (!checksum[0])
        snprintf(checksum, sizeof checksum, "%s", r.checksum);
      else if (strcmp(checksum, r.checksum) != 0) {
        fprintf(stderr, "bench_trace_overhead: %s, where the first run printed %s\n", r.checksum,
                checksum);
        failed = true;
      }
      cpu[trace][k] = r.cpu;
      wall[trace][k] = r.wall;
      records += r.trace.records;
      dropped += r.trace.dropped;
    }
  bench_scratch_close();
  if (failed)
    return 1;
  for (int k = 0; k < pairs; k++) {
    cpu_ratio[k] = cpu[1][k] / cpu[0][k];
    wall_ratio[k] = wall[1][k] / wall[0][k];
  }
  double c = bench_median(cpu_ratio, pairs), w = bench_median(wall_ratio, pairs);
  double c_q1 = cpu_ratio[pairs / 4], c_q3 = cpu_ratio[pairs - 1 - pairs / 4];
  double w_q1 = wall_ratio[pairs / 4], w_q3 = wall_ratio[pairs - 1 - pairs / 4];
  double cpu_off = bench_median(cpu[0], pairs), cpu_on = bench_median(cpu[1], pairs);
  double wall_off = bench_median(wall[0], pairs), wall_on = bench_median(wall[1], pairs);
  printf("  %-30s %10s %10s\n", "setup (medians)", "CPU s", "wall s");
  printf("  %-30s %10.3f %10.3f\n", "knit", cpu_off, wall_off);
  printf("  %-30s %10.3f %10.3f\n", "knit -t", cpu_on, wall_on);
  bool met = c <= CPU_TARGET, noisy = !met && c_q1 <= CPU_TARGET;
  printf("    %-28s %6.3f (pairs %.3f-%.3f, middle half %.3f-%.3f; target <= %.2f)%s  %s\n",
         "CPU time, -t / without", c, cpu_ratio[0], cpu_ratio[pairs - 1], c_q1, c_q3, CPU_TARGET,
         noisy ? " noisy" : "", met ? "met" : "MISSED");
  printf("    %-28s %6.3f (pairs %.3f-%.3f, middle half %.3f-%.3f; no target)\n",
         "wall time, -t / without", w, wall_ratio[0], wall_ratio[pairs - 1], w_q1, w_q3);
  printf("    %-28s %llu records written, %llu events dropped (all %d traced runs)\n", "trace",
         records, dropped, pairs);
  printf("    %-28s %s in all %d runs\n", "result", checksum, 2 * pairs);
  if (noisy)
    printf("a MISSED marked noisy has its pairs' middle half spanning the target: within this\n"
           "machine's noise; run again, with more pairs, when it is quieter\n");
  double work = (double)atoi(size) * atoi(size) * atoi(size) * atoi(steps);
  if (work < VERDICT_WORK) {
    printf("fewer than %.0f element-steps: start-up makes these figures; the target decides "
           "nothing\n",
           VERDICT_WORK);
    return 0;
  }
  return !met && !noisy ? 1 : 0;
}
