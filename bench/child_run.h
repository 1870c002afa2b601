/* Running the programs the benchmarks time, and reading what they print.
 *
 * A child prints its figure (ns per item) on its first line and a line
 * "checksum N" that the drivers compare across runs and setups: a runtime
 * or a tool must not change the result.
 */
#ifndef KNIT_BENCH_CHILD_RUN_H
#define KNIT_BENCH_CHILD_RUN_H

#include <stddef.h>

/* Runs path with argv once, after setup(arg) has set the environment in the
 * forked child. Returns the figure (negative when the child failed or
 * printed no checksum) and copies the checksum line into sum. */
double bench_run_child(const char *path, char *const argv[], void (*setup)(const void *arg),
                       const void *arg, char *sum, size_t sum_len);

/* The same, and stores the child's peak resident set in KiB (ru_maxrss, as
 * wait4 reports it) in *max_rss_kb when that is not NULL. */
double bench_run_child_rss(const char *path, char *const argv[], void (*setup)(const void *arg),
                           const void *arg, char *sum, size_t sum_len, long *max_rss_kb);

/* The median of v[0..n), which it sorts. */
double bench_median(double *v, int n);

#endif /* KNIT_BENCH_CHILD_RUN_H */
