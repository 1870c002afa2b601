/* A small measurement with blame metrics, written to disk with libknit's
 * writer and read back as `knit report` and `knit check` read it, for the
 * tests of both.
 *
 * Two threads of one parallel region, main -> run_locks -> the outlined
 * body (run_locks._omp_fn.0, folded as omp.outlined), in which:
 *
 *   node             thread  periods  OMP_IDLE  MUTEX_WAIT  MUTEX_BLAME
 *   hold_long        main       6         -          -          3000
 *   hold_short       main       2         -          -          1000
 *   <omp-lock-wait>  main       4         -        4000           -
 *   compute          main       8       1500         -            -
 *   hold_long        worker     2        500         -          1000
 *   <omp-lock-wait>  worker     3         -        3000           -
 *   <omp-idle>       worker     1         -          -            -
 *   (blame in milli-periods)
 *
 * and blame statistics: 1500 milli-periods lost on the worker, 500
 * unclaimed on the main thread, so that OMP_MUTEX_BLAME (5000) is
 * OMP_MUTEX_WAIT (7000) less both. Totals: 26 periods, OMP_IDLE 2000,
 * hold_long holds 80% of OMP_MUTEX_BLAME.
 *
 * Without blame, the same tree holds the periods alone. */
#ifndef KNIT_HARNESS_BLAME_MEASUREMENT_H
#define KNIT_HARNESS_BLAME_MEASUREMENT_H

#include <stdint.h>

#include "profiler/report/profile.h"

/* Writes the measurement into dir (created if missing): event and period
 * go into every file's header; with_blame 0 leaves the blame metrics and
 * statistics out. Fails the running test when a file cannot be written. */
void blame_measurement_write(const char *dir, const char *event, uint64_t period, int with_blame);

/* Loads dir as the commands do and names its nodes as the table above
 * (its module file does not exist, so the symbolizer cannot). Fails the
 * running test when it cannot be loaded. */
void blame_measurement_load(const char *dir, knit_profile *p);

/* A fresh directory under /tmp (into buf), and its removal with its files. */
void blame_measurement_make_dir(char *buf, size_t len);
void blame_measurement_remove_dir(const char *dir);

#endif /* KNIT_HARNESS_BLAME_MEASUREMENT_H */
