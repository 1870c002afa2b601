/* Running the programs the benchmarks time, and reading what they print.
 *
 * A child prints its figure (ns per item) on its first line and a line
 * "checksum N" that the drivers compare across runs and setups: a runtime
 * or a tool must not change the result.
 */
#ifndef KNIT_BENCH_CHILD_RUN_H
#define KNIT_BENCH_CHILD_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* What one run of a child gave. */
typedef struct bench_child_run {
  double figure;     /* the number on its first line */
  char checksum[64]; /* its "checksum N" line */
  double cpu_s;      /* user and system time of that child alone (wait4) */
  double wall_s;     /* from fork to wait */
  long max_rss_kb;   /* its peak resident set, KiB (ru_maxrss) */
} bench_child_run;

/* Runs path with argv once, after setup(arg) has set the environment in the
 * forked child, and fills *r. False when the child could not run, failed
 * or printed no checksum. */
bool bench_run_child_full(const char *path, char *const argv[], void (*setup)(const void *arg),
                          const void *arg, bench_child_run *r);

/* Runs path with argv once, after setup(arg) has set the environment in the
 * forked child. Returns the figure (negative when the child failed or
 * printed no checksum) and copies the checksum line into sum. */
double bench_run_child(const char *path, char *const argv[], void (*setup)(const void *arg),
                       const void *arg, char *sum, size_t sum_len);

/* The same, and stores the child's peak resident set in KiB (ru_maxrss, as
 * wait4 reports it) in *max_rss_kb when that is not NULL. */
double bench_run_child_rss(const char *path, char *const argv[], void (*setup)(const void *arg),
                           const void *arg, char *sum, size_t sum_len, long *max_rss_kb);

/* How a child runs: the runtime it loads, its threads and memory layout,
 * and the tool attached to it, an empty OMPT tool, knit, or none. */
typedef struct bench_attach {
  const char *libdir;        /* LD_LIBRARY_PATH: the folder whose libgomp.so.1 it
                                loads ("" for the system's) */
  const char *threads;       /* OMP_NUM_THREADS */
  const char *wait_policy;   /* OMP_WAIT_POLICY, or NULL: the runtime's default */
  int layout;                /* BENCH_LAYOUT (the child moves its heap and stack),
                                or -1: none */
  const char *empty_tool;    /* OMP_TOOL_LIBRARIES, or NULL: no empty tool */
  const char *tool_mark;     /* with the empty tool: KNIT_BENCH_TOOL_MARK, where
                                it says it was active */
  bool tool_disabled;        /* OMP_TOOL=disabled */
  const char *knit_lib;      /* libknit.so to preload, or NULL: no knit */
  const char *event;         /* with knit: KNIT_EVENT */
  const char *out_dir;       /* with knit: KNIT_OUTPUT */
  const char *capture_cache; /* with knit: KNIT_CAPTURE_CACHE, or NULL: knit's default */
} bench_attach;

/* Sets the environment a sets out, and clears what another setup of the
 * same driver may have set. For the forked child, before it execs. */
void bench_attach_env(const bench_attach *a);

/* The median of v[0..n), which it sorts. */
double bench_median(double *v, int n);

#endif /* KNIT_BENCH_CHILD_RUN_H */
