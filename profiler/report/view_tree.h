/* The text views of `knit report`: the header, the per-thread table and the
 * top-down calling-context tree. */
#ifndef KNIT_REPORT_VIEW_TREE_H
#define KNIT_REPORT_VIEW_TREE_H

#include <stdio.h>

#include "report/profile.h"

/* "DIR: EVENT, N threads, S samples, P partial unwinds", then the SUMMARY
 * line of knit.log when there is one. */
void knit_view_header(const knit_profile *p, FILE *out);

/* One row per thread: index, tid, kind, samples and unwind statistics. */
void knit_view_threads(const knit_profile *p, FILE *out);

/* The top-down tree: inclusive samples and share, exclusive samples, the
 * function indented by depth, and the file:line of the call site or sampled
 * instruction. Nodes whose inclusive share is below min_percent (0-100)
 * are left out with their subtrees, and a last line says how many. */
void knit_view_top_down(const knit_profile *p, double min_percent, FILE *out);

#endif /* KNIT_REPORT_VIEW_TREE_H */
