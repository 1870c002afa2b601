/* What knit costs a task-heavy program: recursive, fib-like tasks (each
 * makes two children and waits for them; bench/task_overhead_child.c) on 2
 * threads (or THREADS), each runtime alone against the same runtime with
 * knit attached (libknit.so preloaded, sampling CPUTIME 200 times a second
 * per thread, every task's creation context kept), at TASKS tasks and at a
 * tenth as many (at most 100,000).
 *
 * For each runtime, three setups, measured in the same run in turn, round
 * after round (the order turning too), so that whatever else the machine
 * does falls on all alike; each figure is the median of its rounds, each
 * ratio the median of the rounds' own ratios, printed with the lowest and
 * highest of them:
 *   mock-gomp  the mock GNU runtime built without OMPT (lib/mock-gomp-noompt);
 *              the mock with OMPT and an empty tool (bench/empty_tool.c: it
 *              asks for knit's callbacks and does nothing in them); the mock
 *              with knit attached (lib/mock-gomp)
 *   mock-intel the Intel-layout mock, where the child can run on it: it
 *              speaks the __kmpc ABI only (libomp.so.5), and the child is
 *              built by gcc (GOMP ABI), so it is reported as not measured
 *              unless its folder holds a libgomp.so.1
 *   libomp     LLVM's libomp (which speaks the GOMP ABI too) with its tool
 *              interface off (OMP_TOOL=disabled); with the empty tool; with
 *              knit attached (when the tree has libomp)
 *   libgomp    GNU libgomp, the system's, which has no OMPT: alone; knit
 *              attached through its GOMP wrappers (gomp/gomp_task.c), which
 *              capture each task's creation context as task_create would.
 *              No empty tool: there is no tool interface to charge for one,
 *              so knit's peer there is the runtime alone.
 * The empty tool is what the runtime charges any tool that follows tasks;
 * knit over it is knit's own part, and the targets are about that part:
 *   time         knit / peer, the median of the rounds' ratios at TASKS:
 *                at most 1.10
 *   peak memory  the child's max RSS (wait4's ru_maxrss) with knit / with
 *                the peer, at TASKS: at most 2.0 (a tool whose memory grows
 *                with contexts, not tasks, adds a constant)
 *   blocked      the signals knit's handler dropped (its SUMMARY line's
 *                blocked=) as a share of all it got (samples + blocked),
 *                in one knit run at TASKS: below 1%
 * And, without a target, whether knit's cost per task is flat: knit's ns
 * per task minus the peer's (the median of the rounds' differences) at the
 * small count and at TASKS, and the same for peak memory, in MiB and in
 * bytes per task beyond the small count. Nothing that grows with the tasks
 * made should show there.
 *
 * Layouts and waiting as in bench_region_overhead (which says why): each
 * round runs its setups in a layout of its own (the child's BENCH_LAYOUT),
 * and OMP_WAIT_POLICY=active.
 *
 * Verdicts: a target line ends in "met" or "MISSED". The exit status is 1
 * when a target is missed, except where the middle half of the rounds'
 * own ratios spans the target (the machine was too noisy for the verdict
 * to hold from run to run: it says so), and except below 100,000 tasks,
 * where the figures are start-up costs more than tasks' (ctest runs a few
 * hundred, to check that every setup runs, that each tool was active and
 * that no setup changed the result: never timings).
 *
 *   bench_task_overhead [ROUNDS [TASKS [THREADS]]]   prints a table per runtime and the verdicts
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child_run.h"
#include "scratch.h"

#ifndef CHILD
#error "CHILD: the path of bench_task_overhead_child"
#endif
#ifndef KNIT_LIB
#error "KNIT_LIB: the path of libknit.so"
#endif
#ifndef MOCK_DIR
#error "MOCK_DIR, MOCK_NOOMPT_DIR: the mock libgomp.so.1 with and without OMPT"
#endif
#ifndef MOCK_INTEL_DIR
#error "MOCK_INTEL_DIR, MOCK_INTEL_NOOMPT_DIR: the Intel-layout mock with and without OMPT"
#endif
#ifndef EMPTY_TOOL
#error "EMPTY_TOOL: the path of bench_empty_tool.so"
#endif
#ifndef LIBOMP_DIR
#error "LIBOMP_DIR: a folder whose libgomp.so.1 is LLVM's libomp, or \"\""
#endif

#define MAX_ROUNDS     64
#define EVENT          "CPUTIME@f200"
#define SMALL_TASKS    100000L /* the small count, at most */
#define VERDICT_TASKS  100000L /* fewer tasks: the targets decide nothing */
#define TIME_TARGET    1.10
#define MEMORY_TARGET  2.0
#define BLOCKED_TARGET 0.01

/* One way to run the child. */
typedef struct setup {
  const char *label;  /* what the table says it is */
  const char *libdir; /* LD_LIBRARY_PATH: which libgomp.so.1 */
  bool knit;          /* libknit.so preloaded */
  bool tool_disabled; /* OMP_TOOL=disabled */
  bool empty_tool;    /* bench_empty_tool.so as the OMPT tool (OMP_TOOL_LIBRARIES) */
} setup;

/* Per runtime: alone, an empty tool, knit. */
#define SETUPS 3
enum { ALONE, EMPTY, KNIT };

static const char *threads = "2";

/* One run's setting: the setup, and where knit writes. */
typedef struct run_env {
  const setup *s;
  const char *out_dir;
  int layout; /* the child's BENCH_LAYOUT: the round */
} run_env;

static void set_env(const void *arg)
{
  const run_env *e = arg;
  const setup *s = e->s;
  bench_attach a = {.libdir = s->libdir,
                    .threads = threads,
                    .wait_policy = "active",
                    .layout = e->layout,
                    .empty_tool = s->empty_tool ? EMPTY_TOOL : NULL,
                    .tool_mark = e->out_dir,
                    .tool_disabled = s->tool_disabled,
                    .knit_lib = s->knit ? KNIT_LIB : NULL,
                    .event = EVENT,
                    .out_dir = e->out_dir,
                    .capture_cache = NULL};
  bench_attach_env(&a);
}

/* Runs the child once; returns its ns per task (negative on failure), its
 * peak RSS in KiB in *rss and, for knit, its log in *log. The checksum must
 * be the number of tasks: every task ran once. */
static double run_child(const setup *s, long count, int layout, long *rss, bench_knit_log *log)
{
  char out_dir[4200];
  bench_scratch_path_of(out_dir, sizeof out_dir, "run", bench_scratch_next());
  char n[32], want[64], sum[64] = "";
  snprintf(n, sizeof n, "%ld", count);
  snprintf(want, sizeof want, "checksum %ld", count);
  char *argv[] = {CHILD, n, NULL};
  run_env e = {s, out_dir, layout};
  double ns = bench_run_child_rss(CHILD, argv, set_env, &e, sum, sizeof sum, rss);
  if (ns >= 0 && strcmp(sum, want) != 0) {
    fprintf(stderr, "bench_task_overhead: %s: %s, not %s: tasks lost or run twice\n", s->label, sum,
            want);
    ns = -1;
  }
  if (ns >= 0 && s->knit) {
    *log = bench_knit_log_read(out_dir);
    if (!log->active || !log->summary) {
      fprintf(stderr,
              "bench_task_overhead: %s: knit's OMPT tool or GOMP wrappers were not active, or "
              "it wrote no SUMMARY (%s)\n",
              s->label, out_dir);
      ns = -1;
    }
  }
  /* The empty tool leaves a mark where it is told to when initialized. */
  if (ns >= 0 && s->empty_tool && access(out_dir, F_OK) != 0) {
    fprintf(stderr, "bench_task_overhead: %s: the empty tool was not initialized\n", s->label);
    ns = -1;
  }
  bench_remove_tree(out_dir);
  return ns;
}

/* A ratio over the rounds: the median of the rounds' own ratios, their
 * lowest and highest, and their middle half (first and third quartiles). */
typedef struct spread {
  double median, min, max, q1, q3;
} spread;

static spread spread_of(double *v, int rounds)
{
  spread s;
  s.median = bench_median(v, rounds); /* sorts */
  s.min = v[0];
  s.max = v[rounds - 1];
  s.q1 = v[rounds / 4];
  s.q3 = v[rounds - 1 - rounds / 4];
  return s;
}

/* What one runtime's setups gave at one task count. */
typedef struct measured {
  double ns[SETUPS];  /* medians of the rounds */
  double rss[SETUPS]; /* KiB, medians of the rounds */
  spread time;        /* knit / peer */
  spread time_alone;  /* knit / the runtime alone */
  spread memory;      /* knit / peer, peak RSS */
  double excess;      /* knit - peer, ns per task: the median of the rounds' differences */
  double rss_excess;  /* knit - peer, peak RSS in KiB: the same */
  bench_knit_log log; /* the first round's knit run */
} measured;

/* Runs one runtime's setups at count tasks, rounds times; false on failure.
 * The peer is the empty tool where the runtime has one, else the runtime
 * alone. */
static bool measure(const setup set[SETUPS], long count, int rounds, measured *m)
{
  static double ns[SETUPS][MAX_ROUNDS], rss[SETUPS][MAX_ROUNDS];
  m->log = (bench_knit_log){false, false, 0, 0};
  for (int k = 0; k < rounds; k++)
    for (int b = 0; b < SETUPS; b++) {
      /* The order turns too: a later run may find the machine warmer. */
      int which = (b + k) % SETUPS;
      if (!set[which].label)
        continue; /* no such setup on this runtime */
      long kb = 0;
      bench_knit_log log;
      ns[which][k] = run_child(&set[which], count, k, &kb, &log);
      rss[which][k] = (double)kb;
      if (ns[which][k] < 0) {
        fprintf(stderr, "bench_task_overhead: %s, %ld tasks, failed\n", set[which].label, count);
        return false;
      }
      if (which == KNIT && k == 0)
        m->log = log;
    }
  /* A ratio is the median of the rounds' own ratios: a round runs the
   * setups one after the other, so what the rest of the machine does over
   * minutes falls on both sides of each. */
  int peer = set[EMPTY].label ? EMPTY : ALONE;
  double time[MAX_ROUNDS], alone[MAX_ROUNDS], memory[MAX_ROUNDS], excess[MAX_ROUNDS],
      rss_excess[MAX_ROUNDS];
  for (int k = 0; k < rounds; k++) {
    time[k] = ns[KNIT][k] / ns[peer][k];
    alone[k] = ns[KNIT][k] / ns[ALONE][k];
    memory[k] = rss[KNIT][k] / rss[peer][k];
    excess[k] = ns[KNIT][k] - ns[peer][k];
    rss_excess[k] = rss[KNIT][k] - rss[peer][k];
  }
  m->time = spread_of(time, rounds);
  m->time_alone = spread_of(alone, rounds);
  m->memory = spread_of(memory, rounds);
  m->excess = bench_median(excess, rounds);
  m->rss_excess = bench_median(rss_excess, rounds);
  for (int b = 0; b < SETUPS; b++) {
    m->ns[b] = set[b].label ? bench_median(ns[b], rounds) : 0;   /* sorts */
    m->rss[b] = set[b].label ? bench_median(rss[b], rounds) : 0; /* sorts */
  }
  return true;
}

/* The verdicts, over every runtime. */
typedef struct verdicts {
  bool missed;       /* a target missed outside the noise */
  bool within_noise; /* a target missed, its rounds' middle half spanning it */
} verdicts;

/* One ratio's target line: the median, its rounds' lowest and highest and
 * middle half, and whether it is at most target. */
static void ratio_line(const char *what, const spread *s, double target, verdicts *v)
{
  bool met = s->median <= target;
  bool noisy = !met && s->q1 <= target;
  printf("    %-34s %6.3f (rounds %.3f-%.3f, middle half %.3f-%.3f; target <= %.2f)%s  %s\n", what,
         s->median, s->min, s->max, s->q1, s->q3, target, noisy ? " noisy" : "",
         met ? "met" : "MISSED");
  v->missed |= !met && !noisy;
  v->within_noise |= noisy;
}

/* Measures one runtime at both counts and prints its table and verdicts. */
static bool report(const char *name, const setup set[SETUPS], long small, long large, int rounds,
                   verdicts *v)
{
  measured at_small, at_large;
  if (!measure(set, small, rounds, &at_small) || !measure(set, large, rounds, &at_large))
    return false;
  bool has_empty = set[EMPTY].label != NULL;
  const char *peer = has_empty ? "empty tool" : "runtime alone";
  char counts[3][32];
  snprintf(counts[0], sizeof counts[0], "%ld tasks", small);
  snprintf(counts[1], sizeof counts[1], "%ld tasks", large);
  snprintf(counts[2], sizeof counts[2], "%ld tasks", large);
  printf("%s\n  %-34s %15s %15s %15s\n", name, "setup", "ns/task at", "ns/task at", "max RSS at");
  printf("  %-34s %15s %15s %15s\n", "", counts[0], counts[1], counts[2]);
  for (int b = 0; b < SETUPS; b++) {
    if (!set[b].label) {
      printf("  %-34s %15s %15s %15s  (no tool interface: no empty tool)\n", "empty tool", "-", "-",
             "-");
      continue;
    }
    printf("  %-34s %15.1f %15.1f %11.0f KiB\n", set[b].label, at_small.ns[b], at_large.ns[b],
           at_large.rss[b]);
  }
  char what[64];
  snprintf(what, sizeof what, "time, knit / %s", peer);
  ratio_line(what, &at_large.time, TIME_TARGET, v);
  if (has_empty)
    printf("    %-34s %6.3f (rounds %.3f-%.3f)\n", "time, knit / runtime alone",
           at_large.time_alone.median, at_large.time_alone.min, at_large.time_alone.max);
  snprintf(what, sizeof what, "peak memory, knit / %s", peer);
  ratio_line(what, &at_large.memory, MEMORY_TARGET, v);
  const bench_knit_log *log = &at_large.log;
  unsigned long long signals = log->samples + log->blocked;
  if (signals == 0)
    printf("    %-34s no signals in the first knit run (samples=0 blocked=0)  MISSED\n",
           "blocked signals");
  else {
    double share = (double)log->blocked / (double)signals;
    printf("    %-34s %6.3f%% (samples=%llu blocked=%llu in the first knit run; target < "
           "%.0f%%)  %s\n",
           "blocked signals", 100 * share, log->samples, log->blocked, 100 * BLOCKED_TARGET,
           share < BLOCKED_TARGET ? "met" : "MISSED");
  }
  v->missed |= signals == 0 || (double)log->blocked >= BLOCKED_TARGET * (double)signals;
  printf("    %-34s %.1f ns/task at %ld tasks, %.1f at %ld (no target; flat when alike)\n",
         "knit - peer, per task", at_small.excess, small, at_large.excess, large);
  /* Peak memory as a ratio charges knit's fixed part (its arenas, Capstone)
   * against a child that needs almost none; the difference at two counts
   * tells that part from what grows with the tasks. */
  printf("    %-34s %.1f MiB at %ld tasks, %.1f MiB at %ld: %.1f bytes per further task\n",
         "knit - peer, peak memory", at_small.rss_excess / 1024, small, at_large.rss_excess / 1024,
         large, (at_large.rss_excess - at_small.rss_excess) * 1024 / (double)(large - small));
  return true;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  long ntasks = argc > 2 ? atol(argv[2]) : 1000000;
  if (argc > 3)
    threads = argv[3];
  if (rounds < 1 || rounds > MAX_ROUNDS || ntasks < 10 || atoi(threads) < 1) {
    fprintf(stderr, "usage: bench_task_overhead [ROUNDS (1-%d) [TASKS (10 or more) [THREADS]]]\n",
            MAX_ROUNDS);
    return 2;
  }
  long small = ntasks / 10 < SMALL_TASKS ? ntasks / 10 : SMALL_TASKS;
  if (!bench_scratch_open("task"))
    return 1;
  const setup mock[SETUPS] = {
      {"mock-gomp built without OMPT", MOCK_NOOMPT_DIR, false, false, false},
      {"mock-gomp + empty tool", MOCK_DIR, false, false, true},
      {"mock-gomp + knit", MOCK_DIR, true, false, false},
  };
  const setup mock_intel[SETUPS] = {
      {"mock-intel built without OMPT", MOCK_INTEL_NOOMPT_DIR, false, false, false},
      {"mock-intel + empty tool", MOCK_INTEL_DIR, false, false, true},
      {"mock-intel + knit", MOCK_INTEL_DIR, true, false, false},
  };
  const setup libomp[SETUPS] = {
      {"libomp, OMP_TOOL=disabled", LIBOMP_DIR, false, true, false},
      {"libomp + empty tool", LIBOMP_DIR, false, false, true},
      {"libomp + knit", LIBOMP_DIR, true, false, false},
  };
  /* The system's libgomp: found by the loader's own search, not a tree's. */
  const setup libgomp[SETUPS] = {
      {"libgomp", "", false, false, false},
      {NULL, "", false, false, false},
      {"libgomp + knit", "", true, false, false},
  };
  /* The child is built by gcc: a runtime it can run on is a folder holding
   * a libgomp.so.1 (libomp's has one, a link to itself). */
  bool intel_runs = access(MOCK_INTEL_DIR "/libgomp.so.1", F_OK) == 0 &&
                    access(MOCK_INTEL_NOOMPT_DIR "/libgomp.so.1", F_OK) == 0;
  struct {
    const char *name;
    const setup *set;
    bool present;
    const char *why_not;
  } runtimes[] = {
      {"mock-gomp", mock, true, ""},
      {"mock-intel", mock_intel, intel_runs,
       "it speaks only the __kmpc ABI (libomp.so.5, no GOMP_* entry points and no "
       "libgomp.so.1),\n    and the child is built by gcc (GOMP ABI): it cannot run there"},
      {"libomp", libomp, LIBOMP_DIR[0] != '\0', "not in this tree (lib/real-libomp)"},
      {"libgomp", libgomp, true, ""},
  };
  printf("knit attached against its peers: recursive tasks (two children and a taskwait per "
         "task) on %s thread%s,\nOMP_WAIT_POLICY=active, knit sampling %s; median of %d "
         "interleaved rounds (each in a layout of its own);\na ratio is the median of the "
         "rounds' own ratios. The peer is the empty tool (an OMPT tool that asks for\nknit's "
         "callbacks and does nothing in them: what the runtime charges any tool), or the "
         "runtime\nalone where it has no tool interface.\n",
         threads, strcmp(threads, "1") == 0 ? "" : "s", EVENT, rounds);
  verdicts v = {false, false};
  bool failed = false;
  for (size_t k = 0; k < sizeof runtimes / sizeof runtimes[0]; k++) {
    if (!runtimes[k].present) {
      printf("%s\n  not measured: %s\n", runtimes[k].name, runtimes[k].why_not);
      continue;
    }
    failed |= !report(runtimes[k].name, runtimes[k].set, small, ntasks, rounds, &v);
  }
  bench_scratch_close();
  if (failed)
    return 1;
  /* A run's rounds that fall on both sides of the target: the verdict is
   * the median's side, and another run may well land on the other. */
  if (v.within_noise)
    printf("a MISSED marked noisy has its rounds' middle half spanning the target: within this\n"
           "machine's noise; run again, with more rounds, when it is quieter\n");
  if (ntasks < VERDICT_TASKS) {
    printf("fewer than %ld tasks: start-up, not tasks, makes these figures; the targets "
           "decide nothing\n",
           VERDICT_TASKS);
    return 0;
  }
  return v.missed ? 1 : 0;
}
