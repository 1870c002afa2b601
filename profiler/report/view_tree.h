/* The text views of `knit report`: the header, the per-thread table and the
 * top-down tree.
 *
 * Values are shown in the measurement's unit (metrics.h): for timer events
 * (CPUTIME, REALTIME) with a known period, milliseconds with one decimal;
 * for PROBE and anything else, counts. */
#ifndef KNIT_REPORT_VIEW_TREE_H
#define KNIT_REPORT_VIEW_TREE_H

#include <stdio.h>

#include "report/calltree.h"
#include "report/metric_select.h"
#include "report/profile.h"

typedef struct knit_view_options {
  knit_calltree_options tree;  /* lines, all_frames, sort and its metric */
  double min_percent;          /* hide nodes below this share of the sort
                                  metric's total (0-100) */
  knit_metric_columns columns; /* count 0: knit_metric_columns_default */
} knit_view_options;

/* "CPUTIME every 500 us: S samples (P periods, T ms), N threads, U partial
 * unwinds" (samples: the handler invocations, from the threads' statistics),
 * or "PROBE: S probes, N threads, U partial unwinds"; the steps line; the
 * blame line when blame went uncharged (view_metrics.h); then "dir: DIR", a
 * note on thread files left out, and the SUMMARY line of knit.log when there
 * is one. */
void knit_view_header(const knit_profile *p, FILE *out);

/* One row per thread: index, tid, kind, samples, periods, the thread's
 * total of each metric of columns (NULL or none chosen: the default
 * columns, knit_metric_columns_default) in the shown unit, unwind
 * statistics, and the mutex wait whose blame was lost or unclaimed. */
void knit_view_threads(const knit_profile *p, const knit_metric_columns *columns, FILE *out);

/* The top-down tree (calltree.h): for each metric column, the inclusive and
 * exclusive value, with the inclusive share after the sort metric's
 * inclusive value; then the function indented by depth (marked
 * " [inlined]" for a call the compiler inlined), and the file:line
 * that stands for the node, with " +N" when N more lines were merged into
 * it. The sort metric is shown whether the columns hold it or not. With
 * more columns than the time metric alone, a line of metric names heads
 * them. Nodes whose inclusive share of the sort metric is below min_percent
 * are left out with their subtrees, and a last line says how many. */
void knit_view_top_down(const knit_profile *p, const knit_view_options *o, FILE *out);

/* Prints a tree built already (the top-down tree, or the callers tree of
 * bottom_up.h) as knit_view_top_down does. With by_exclusive, the share
 * follows the sort metric's exclusive value and min_percent applies to
 * exclusive values: a callers tree is read by where samples were taken. */
void knit_view_calltree(const knit_profile *p, const knit_view_options *o,
                        const knit_calltree *tree, int by_exclusive, FILE *out);

#endif /* KNIT_REPORT_VIEW_TREE_H */
