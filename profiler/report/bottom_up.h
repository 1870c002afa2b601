/* The bottom-up (callers) view of a call tree: each function that the
 * function-level tree (calltree.h) shows is a root, and below it are the
 * callers that led to it, then their callers, and so on up to the path's
 * start, as perf's inverted call graph, pprof's peek and HPCToolkit's
 * bottom-up view show it.
 *
 * A row's exclusive values are the samples taken in its root function
 * whose callers are the row's path; its inclusive values are the samples
 * taken in the root function or in what it called, with those callers.
 * A sample path that passes through a function more than once (recursion)
 * counts once in each row it reaches, so no row counts a sample twice and
 * a root's inclusive value is the function's, as the flat view has it.
 * Functions are identified as the tree shows them: by name and module,
 * inlined calls and loop levels apart from the functions themselves. */
#ifndef KNIT_REPORT_BOTTOM_UP_H
#define KNIT_REPORT_BOTTOM_UP_H

#include "report/calltree.h"

/* Builds the callers tree of td (a function-level call tree, not in lines
 * mode) into out, its children sorted by sort and metric as the call tree's
 * are. Node 0 of out is the root, whose inclusive values are td's totals.
 * Each row's source line is the one, among the call tree's nodes that
 * reached it, that passed on most of metric: for a root, where the
 * function was sampled or called on; for a caller, its call. out refers to
 * td's names, which must outlive it. Returns 0, or -1 out of memory. */
int knit_bottom_up_build(knit_calltree *out, const knit_calltree *td, knit_calltree_sort sort,
                         int metric);

#endif /* KNIT_REPORT_BOTTOM_UP_H */
