/* What the benchmark drivers share about knit's measurements: a scratch
 * folder for the run (one measurement folder per child run inside it),
 * removed at the end, and what a measurement's knit.log says. */
#ifndef KNIT_BENCH_SCRATCH_H
#define KNIT_BENCH_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Makes the driver's scratch folder, $TMPDIR/knit-TAG-bench.XXXXXX (/tmp
 * without TMPDIR). False, said on stderr, when it cannot. */
bool bench_scratch_open(const char *tag);

/* out: the scratch folder's path for a child run's NAME-N, N counting the
 * calls from 0 (so a run's files share its number: use bench_scratch_next
 * for that, and bench_scratch_path_of). */
unsigned bench_scratch_next(void);
void bench_scratch_path_of(char *out, size_t size, const char *name, unsigned n);

/* Removes path and everything under it (a measurement folder). */
void bench_remove_tree(const char *path);

/* Removes the scratch folder and what is left in it. */
void bench_scratch_close(void);

/* What one knit run's log says: whether its OMPT tool, or on libgomp its
 * GOMP wrappers, were at work (without them the program's constructs
 * would not be followed, and a figure would not be knit's), and its
 * SUMMARY line's counters. */
typedef struct bench_knit_log {
  bool active;
  bool summary; /* a SUMMARY line was found */
  unsigned long long samples, blocked;
} bench_knit_log;

/* The log of the measurement in dir (all false and 0 when there is none). */
bench_knit_log bench_knit_log_read(const char *dir);

#endif /* KNIT_BENCH_SCRATCH_H */
