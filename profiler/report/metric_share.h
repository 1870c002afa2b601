/* Metric shares in golden files: the directive
 *
 *   # metric-share: METRIC PREFIX >= LIMIT      (or <= LIMIT)
 *
 * says that of METRIC's total over the whole measurement, the share that
 * falls inclusively under PREFIX must be at least (at most) LIMIT, a number
 * from 0 to 1. METRIC is a name of metrics.h (OMP_MUTEX_BLAME, or the time
 * metric by its event's name); PREFIX is a folded path's beginning, frames
 * separated by ';', named as `knit report --format=folded` names them (an
 * outlined body's frame may be written as compiled: it is normalized to
 * omp.outlined as the folded form is). A path falls under PREFIX when its
 * frames begin with PREFIX's frames, whole frames only: main;run does not
 * hold main;run_locks.
 *
 * Blame goldens check shares, not amounts: how much waiting a run has
 * depends on its length and on the scheduler, where that waiting is
 * charged should not.
 *
 *   # metric-value: METRIC PREFIX = VALUE
 *
 * says that the amount of METRIC under PREFIX is exactly VALUE, a whole
 * number in the unit the measurement stores (probes, nanoseconds of a
 * device's time, bytes): for metrics that a deterministic run makes exact,
 * as the mock device's under MOCKRT_DETERMINISTIC=1. */
#ifndef KNIT_REPORT_METRIC_SHARE_H
#define KNIT_REPORT_METRIC_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"

typedef struct knit_metric_share {
  char *metric;   /* as written; resolved against the measurement it checks */
  char *prefix;   /* normalized frames separated by ';' */
  int at_most;    /* 0: share >= limit; 1: share <= limit */
  double limit;   /* 0 to 1 */
  int exact;      /* a metric-value: the amount under prefix is value */
  uint64_t value; /* in the stored unit */
  char *text;     /* the directive's value as written, for messages */
} knit_metric_share;

/* A share as golden files write it: a number from 0 to 1, white space
 * after it allowed. Returns 0 and sets *out, or -1. */
int knit_share_parse(const char *text, double *out);

/* How many of a failing directive's metric's heaviest paths are listed. */
#define KNIT_METRIC_SHARE_TOP_PATHS 5

/* Parses the value of a metric-share directive ("METRIC PREFIX >= 0.9").
 * Returns 0 (free with knit_metric_share_free), or -1 with the reason in
 * err. */
int knit_metric_share_parse(const char *text, knit_metric_share *out, char *err, size_t errlen);

/* Parses the value of a metric-value directive ("METRIC PREFIX = 1024")
 * into the same record, exact set. Returns 0, or -1 with the reason. */
int knit_metric_value_parse(const char *text, knit_metric_share *out, char *err, size_t errlen);

void knit_metric_share_free(knit_metric_share *s);

/* Checks every directive against p. A failing one is one difference: it
 * writes to diff (NULL: nothing) "~ metric-share TEXT: ..." with the share
 * found, the metric's total in the report's unit and the metric's heaviest
 * paths (a metric-value: "~ metric-value TEXT: measured N"); a metric the
 * measurement does not have, or does not hold at all (a total of zero),
 * fails with a line that says so. A passing one writes
 * one line to passed (NULL: nothing). Returns the number of differences. */
size_t knit_metric_shares_check(const knit_metric_share *shares, size_t count,
                                const knit_profile *p, FILE *diff, FILE *passed);

#endif /* KNIT_REPORT_METRIC_SHARE_H */
