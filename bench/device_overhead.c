/* What knit's device tracing costs a program of many small kernels:
 * bench/device_overhead_child.c launches KERNELS tiny target regions (one
 * 8-byte word mapped tofrom: five device operations each) on the mock
 * device (lib/mock-intel: the Intel-layout mock and its libomptarget.so),
 * from one host thread, in three setups measured in the same run, round
 * after round, the order turning from round to round:
 *   alone  no tool: nothing preloaded, no OMP_TOOL_LIBRARIES
 *   empty  an empty OMPT tool (bench/empty_tool.c) that asks for knit's
 *          callbacks, the target and device ones among them, and traces the
 *          device as knit does, into buffers it never reads: what the
 *          runtime and the device charge any tool that traces
 *   knit   libknit.so preloaded (as `knit record --runtime=mock-intel`),
 *          sampling CPUTIME at 1 kHz, the device traced, every kernel's
 *          records charged to its launching context
 * Each run gives its wall time per kernel (timed by the child, after a
 * first kernel that starts the device) and its CPU time per kernel (user
 * and system of the whole child, wait4: the host thread, the device
 * thread and knit's). A figure is the median of the rounds; a ratio is the
 * median of the rounds' own ratios, printed with their middle half (first
 * to third quartile), as the other drivers print them.
 *
 * The device runs under MOCKRT_DETERMINISTIC=1 with an operation latency
 * of 2 µs (docs/mockrt.md), so every kernel costs exactly 2 µs of device
 * time and knit's DEVICE_KERNEL total is 2 µs times the kernels it
 * attributed. Every knit run is checked: its device traced, no operation
 * unattributed and DEVICE_KERNEL equal to 2 µs times every kernel the child
 * launched; a run that falls short fails the driver.
 *
 * No target ratio: the mock device's time per operation is a model (its
 * latency is a setting, and its thread sleeps to its clock), so a ratio
 * against it would price knit against the model's own latency, not a
 * device's. The driver prints the numbers; the exit status is 1 only when
 * a run fails, a checksum differs or a kernel goes unattributed, and 77
 * where there is no offloading build of the child or no mock device.
 *
 *   bench_device_overhead [ROUNDS [KERNELS]]
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child_run.h"
#include "measure/read_file.h"
#include "scratch.h"

#ifndef CHILD
#error "CHILD: the path of bench_device_overhead_child, or \"\" where it is not built"
#endif
#ifndef KNIT_LIB
#error "KNIT_LIB: the path of libknit.so"
#endif
#ifndef MOCK_INTEL_DIR
#error "MOCK_INTEL_DIR: the folder of the Intel-layout mock's libomp.so.5 and libomptarget.so"
#endif
#ifndef EMPTY_TOOL
#error "EMPTY_TOOL: the path of bench_empty_tool.so"
#endif

#define MAX_ROUNDS 64
#define EVENT      "CPUTIME@f1000"
#define LATENCY_NS 2000ull /* MOCKRT_TARGET_LATENCY_NS: a kernel's device time */

enum { ALONE, EMPTY, KNIT, SETUPS };
static const char *const labels[SETUPS] = {"alone", "empty tool", "knit"};

typedef struct run_env {
  int setup;
  const char *out_dir;
} run_env;

static void set_env(const void *arg)
{
  const run_env *e = arg;
  bench_attach a = {.libdir = MOCK_INTEL_DIR,
                    .threads = "1",
                    .wait_policy = NULL,
                    .layout = -1,
                    .empty_tool = e->setup == EMPTY ? EMPTY_TOOL : NULL,
                    .tool_mark = e->out_dir,
                    .knit_lib = e->setup == KNIT ? KNIT_LIB : NULL,
                    .event = EVENT,
                    .out_dir = e->out_dir};
  bench_attach_env(&a);
  /* The same device in every setup: a kernel's device time fixed, so that
   * knit's DEVICE_KERNEL counts its kernels. */
  setenv("MOCKRT_DETERMINISTIC", "1", 1);
  char latency[32];
  snprintf(latency, sizeof latency, "%llu", LATENCY_NS);
  setenv("MOCKRT_TARGET_LATENCY_NS", latency, 1);
  unsetenv("MOCKRT_TARGET_DEVICES");
  unsetenv("OMP_TARGET_OFFLOAD");
}

/* What knit's measurement says of the device: whether it was traced, the
 * operations it could not attribute, and the DEVICE_KERNEL total. */
typedef struct device_view {
  bool read;
  uint64_t traced, unattributed, kernel_ns;
} device_view;

static device_view device_view_read(const char *dir)
{
  device_view v = {false, 0, 0, 0};
  knit_measurement m;
  char err[256];
  if (knit_measurement_read(dir, &m, err, sizeof err) != 0) {
    fprintf(stderr, "bench_device_overhead: %s\n", err);
    return v;
  }
  v.read = m.failed_count == 0;
  for (size_t i = 0; i < m.thread_count; i++) {
    const knit_thread_file *t = &m.threads[i];
    v.traced += t->stats[KNIT_STAT_DEVICES_TRACED];
    v.unattributed += t->stats[KNIT_STAT_DEVICE_UNATTRIBUTED];
    for (size_t k = 0; k < t->metric_count; k++)
      if (t->metrics[k].metric == KNIT_METRIC_DEVICE_KERNEL)
        v.kernel_ns += t->metrics[k].value;
  }
  knit_measurement_free(&m);
  return v;
}

/* One run's figures. */
typedef struct run_result {
  double wall_ns; /* per timed kernel, the child's own */
  double cpu_ns;  /* per kernel launched, the whole child's CPU time */
  long launched;  /* the child's "kernels N" */
  char checksum[64];
  uint64_t attributed; /* knit only: DEVICE_KERNEL / LATENCY_NS */
} run_result;

/* One run of the child in a setup; false when it failed, its tool was
 * not at work, or (knit) a kernel it launched went unattributed. */
static bool run_child(int setup, long kernels, run_result *r)
{
  char out_dir[4200];
  bench_scratch_path_of(out_dir, sizeof out_dir, "run", bench_scratch_next());
  char n[32];
  snprintf(n, sizeof n, "%ld", kernels);
  char *argv[] = {CHILD, n, NULL};
  run_env e = {setup, out_dir};
  bench_child_run run;
  bool ok = bench_run_child_full(CHILD, argv, set_env, &e, &run);
  memset(r, 0, sizeof *r);
  r->launched = kernels + 1; /* the first, which starts the device */
  r->wall_ns = run.figure;
  r->cpu_ns = 1e9 * run.cpu_s / (double)r->launched;
  snprintf(r->checksum, sizeof r->checksum, "%s", run.checksum);
  if (!ok)
    fprintf(stderr, "bench_device_overhead: %s: the child failed\n", labels[setup]);
  if (ok && setup == EMPTY && access(out_dir, F_OK) != 0) {
    fprintf(stderr, "bench_device_overhead: the empty tool was not initialized\n");
    ok = false;
  }
  if (ok && setup == KNIT) {
    bench_knit_log log = bench_knit_log_read(out_dir);
    device_view v = device_view_read(out_dir);
    r->attributed = v.kernel_ns / LATENCY_NS;
    if (!log.active || !v.read || v.traced == 0) {
      fprintf(stderr,
              "bench_device_overhead: knit: its OMPT tool was not active, a file was unreadable "
              "or the device was not traced (%s)\n",
              out_dir);
      ok = false;
    } else if (v.unattributed != 0 || v.kernel_ns != LATENCY_NS * (uint64_t)r->launched) {
      fprintf(stderr,
              "bench_device_overhead: knit: %llu ns of DEVICE_KERNEL (%llu kernels of %lld ns) "
              "for %ld kernels launched, %llu device operations unattributed\n",
              (unsigned long long)v.kernel_ns, (unsigned long long)r->attributed,
              (long long)LATENCY_NS, r->launched, (unsigned long long)v.unattributed);
      ok = false;
    }
  }
  bench_remove_tree(out_dir);
  return ok;
}

/* The figures a table shows per setup, and the ratios of knit against the
 * two peers and of the empty tool against the program alone. */
enum { WALL, CPU, FIGURES };
enum { R_KNIT_ALONE, R_KNIT_EMPTY, R_EMPTY_ALONE, RATIOS };
static const char *const ratio_labels[RATIOS] = {"knit / alone", "knit / empty tool",
                                                 "empty tool / alone"};

static double figure_of(const run_result *r, int f)
{
  return f == WALL ? r->wall_ns : r->cpu_ns;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 11;
  long kernels = argc > 2 ? atol(argv[2]) : 100000;
  if (rounds < 1 || rounds > MAX_ROUNDS || kernels < 1) {
    fprintf(stderr, "usage: bench_device_overhead [ROUNDS (1-%d) [KERNELS]]\n", MAX_ROUNDS);
    return 2;
  }
  /* The trees that cannot build an offloading child (no clang 14 with an
   * offloading runtime for their ISA) or have no mock device. */
  if (CHILD[0] == '\0') {
    printf("skip: no offloading build of bench_device_overhead_child in this tree (clang 14 and "
           "LLVM 14's libomptarget for the host's ISA)\n");
    return 77;
  }
  char device_lib[4200];
  snprintf(device_lib, sizeof device_lib, "%s/libomptarget.so", MOCK_INTEL_DIR);
  if (access(device_lib, R_OK) != 0 || access(CHILD, X_OK) != 0) {
    printf("skip: the mock device (%s) or the child (%s) is missing\n", device_lib, CHILD);
    return 77;
  }
  if (!bench_scratch_open("device"))
    return 1;

  static run_result runs[SETUPS][MAX_ROUNDS];
  bool failed = false;
  for (int k = 0; k < rounds && !failed; k++)
    for (int b = 0; b < SETUPS && !failed; b++) {
      /* The order turns: a later run may find the machine warmer. */
      int s = (b + k) % SETUPS;
      failed = !run_child(s, kernels, &runs[s][k]);
    }
  bench_scratch_close();
  if (failed)
    return 1;
  /* One result in every run: neither a tool nor a round may change it. */
  for (int k = 0; k < rounds; k++)
    for (int s = 0; s < SETUPS; s++)
      if (strcmp(runs[ALONE][0].checksum, runs[s][k].checksum) != 0) {
        fprintf(stderr, "bench_device_overhead: %s, round %d: the result changed (%s, %s)\n",
                labels[s], k, runs[ALONE][0].checksum, runs[s][k].checksum);
        return 1;
      }

  double median[SETUPS][FIGURES];
  double ratio[FIGURES][RATIOS], spread[FIGURES][RATIOS][2];
  for (int f = 0; f < FIGURES; f++) {
    double per_round[RATIOS][MAX_ROUNDS], v[SETUPS][MAX_ROUNDS];
    for (int k = 0; k < rounds; k++) {
      for (int s = 0; s < SETUPS; s++)
        v[s][k] = figure_of(&runs[s][k], f);
      per_round[R_KNIT_ALONE][k] = v[KNIT][k] / v[ALONE][k];
      per_round[R_KNIT_EMPTY][k] = v[KNIT][k] / v[EMPTY][k];
      per_round[R_EMPTY_ALONE][k] = v[EMPTY][k] / v[ALONE][k];
    }
    for (int s = 0; s < SETUPS; s++)
      median[s][f] = bench_median(v[s], rounds); /* sorts */
    for (int q = 0; q < RATIOS; q++) {
      ratio[f][q] = bench_median(per_round[q], rounds); /* sorts */
      spread[f][q][0] = per_round[q][rounds / 4];
      spread[f][q][1] = per_round[q][rounds - 1 - rounds / 4];
    }
  }

  printf("knit's device tracing against the program alone: %ld tiny target regions (one 8-byte\n"
         "word mapped tofrom: 5 device operations each) on the mock device (mock-intel,\n"
         "MOCKRT_DETERMINISTIC=1, %llu ns of device time per operation), one host thread; %d\n"
         "interleaved rounds of each setup, a figure the median of the rounds, a ratio the "
         "median of the\nrounds' own ratios [their middle half]:\n"
         "  alone       no tool\n"
         "  empty tool  an OMPT tool asking for knit's callbacks and tracing the device into "
         "buffers\n"
         "              it never reads (bench/empty_tool.c): what any tracing tool is charged\n"
         "  knit        libknit.so preloaded (%s), every kernel's records charged to its\n"
         "              launching context\n"
         "wall: ns per kernel, timed by the child; cpu: the child's CPU time (host thread, "
         "device thread\nand knit) per kernel launched\n",
         kernels, LATENCY_NS, rounds, EVENT);
  printf("  %-10s %12s %12s\n", "setup", "wall ns", "cpu ns");
  for (int s = 0; s < SETUPS; s++)
    printf("  %-10s %12.1f %12.1f\n", labels[s], median[s][WALL], median[s][CPU]);
  printf("knit's cost per kernel: %+.1f ns wall, %+.1f ns cpu over the program alone; %+.1f ns "
         "wall,\n%+.1f ns cpu over the empty tool\n",
         median[KNIT][WALL] - median[ALONE][WALL], median[KNIT][CPU] - median[ALONE][CPU],
         median[KNIT][WALL] - median[EMPTY][WALL], median[KNIT][CPU] - median[EMPTY][CPU]);
  const char *figure_names[FIGURES] = {"wall", "cpu"};
  for (int q = 0; q < RATIOS; q++) {
    printf("  %-19s", ratio_labels[q]);
    for (int f = 0; f < FIGURES; f++)
      printf("  %s %.3f [%.3f-%.3f]", figure_names[f], ratio[f][q], spread[f][q][0],
             spread[f][q][1]);
    putchar('\n');
  }
  printf("attributed: every knit run charged all its %ld kernels (DEVICE_KERNEL = %llu ns "
         "each,\nthe device traced, no device operation unattributed)\n",
         runs[KNIT][0].launched, LATENCY_NS);
  printf("no target: the mock device's time per operation is a model (a set latency, a thread "
         "that sleeps\nto its clock); a ratio against it prices knit against that model, not "
         "against a device\n");
  return 0;
}
