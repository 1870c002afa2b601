/* The bottom-up view of `knit report --view=bottom-up`: the callers tree
 * (bottom_up.h) printed with the top-down tree's columns (view_tree.h). */
#ifndef KNIT_REPORT_VIEW_BOTTOM_UP_H
#define KNIT_REPORT_VIEW_BOTTOM_UP_H

#include <stdio.h>

#include "report/view_tree.h"

/* The function-level tree of p's measurement by o->tree (lines mode is
 * not), inverted: each function with its values, its callers below it.
 * Sorted by exclusive value when o->tree.sort says so, and then the share
 * and the min_percent cut are of exclusive values; otherwise of inclusive
 * ones, as in the top-down tree. */
void knit_view_bottom_up(const knit_profile *p, const knit_view_options *o, FILE *out);

#endif /* KNIT_REPORT_VIEW_BOTTOM_UP_H */
