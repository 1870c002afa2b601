/* The text views of `knit report`: the header, the per-thread table and the
 * top-down tree.
 *
 * Values are event periods (KNIT_METRIC_SAMPLES). For timer events (CPUTIME,
 * REALTIME) with a known period they are shown as time, periods x period in
 * milliseconds with one decimal; for PROBE and anything else, as counts. */
#ifndef KNIT_REPORT_VIEW_TREE_H
#define KNIT_REPORT_VIEW_TREE_H

#include <stdio.h>

#include "report/calltree.h"
#include "report/profile.h"

typedef struct knit_view_options {
  knit_calltree_options tree;  /* lines, all_frames, sort */
  double min_percent;          /* hide nodes below this share (0-100) */
} knit_view_options;

/* "CPUTIME every 500 us: S samples (P periods, T ms), N threads, U partial
 * unwinds" (samples: the handler invocations, from the threads' statistics),
 * or "PROBE: S probes, N threads, U partial unwinds"; then "dir: DIR", a
 * note on thread files left out, and the SUMMARY line of knit.log when there
 * is one. */
void knit_view_header(const knit_profile *p, FILE *out);

/* One row per thread: index, tid, kind, samples, periods and unwind
 * statistics. */
void knit_view_threads(const knit_profile *p, FILE *out);

/* The top-down tree (calltree.h): inclusive value and share, exclusive
 * value, the function indented by depth, and the file:line that stands for
 * the node, with " +N" when N more lines were merged into it. Nodes whose
 * inclusive share is below min_percent are left out with their subtrees,
 * and a last line says how many. */
void knit_view_top_down(const knit_profile *p, const knit_view_options *o, FILE *out);

#endif /* KNIT_REPORT_VIEW_TREE_H */
