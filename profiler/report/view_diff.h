/* The text of `knit diff` (diff.h): the contexts of two measurements side
 * by side, or the scaling loss between two runs of one program at
 * different thread counts. */
#ifndef KNIT_REPORT_VIEW_DIFF_H
#define KNIT_REPORT_VIEW_DIFF_H

#include <stdio.h>

#include "report/diff.h"
#include "report/metric_select.h"

typedef struct knit_diff_view_options {
  knit_metric_columns columns; /* shown metrics; the sort metric among them */
  int metric;                  /* the sort metric (knit_metric) */
  int exclusive;               /* 1: exclusive values, else inclusive */
  double min_percent;          /* hide contexts whose change is below this
                                  share of the larger total (0-100) */
} knit_diff_view_options;

/* Both measurements' headers, the note (when not ""), then per context,
 * for each metric column, the value in A, in B and B-A, sorted by |B-A| of
 * the sort metric, largest first, and the context's path; a last line
 * says how many contexts changed too little to show. */
void knit_view_diff(const knit_diff *d, const knit_profile *a, const knit_profile *b,
                    const knit_diff_view_options *o, const char *note, FILE *out);

/* The scaling loss from A (pa threads) to B (pb threads): per context,
 * C_B - C_A, where C is the context's time metric plus OMP_IDLE, summed
 * over threads: what B spent there beyond A's, in the shown unit and as a
 * share of B's total C, inclusive and in the context itself; sorted by
 * the exclusive loss (o->exclusive) or the inclusive one, largest first.
 * The text says how the loss is computed. */
void knit_view_scaling(const knit_diff *d, const knit_profile *a, const knit_profile *b,
                       unsigned pa, unsigned pb, const knit_diff_view_options *o, FILE *out);

#endif /* KNIT_REPORT_VIEW_DIFF_H */
