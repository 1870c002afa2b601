/* The flat view of `knit report --view=flat` (flat.h): one row per
 * function, source line or module, with each metric's exclusive and
 * inclusive value, and the sort metric's shares of its total. */
#ifndef KNIT_REPORT_VIEW_FLAT_H
#define KNIT_REPORT_VIEW_FLAT_H

#include <stdio.h>

#include "report/flat.h"
#include "report/view_tree.h"

/* Prints the rows of p's measurement by key, sorted by o->tree.sort and
 * its metric; rows whose value of the sort metric (exclusive when sorted
 * by it, else inclusive) is below o->min_percent of its total are left
 * out, and a last line says how many. */
void knit_view_flat(const knit_profile *p, const knit_view_options *o, knit_flat_key key,
                    FILE *out);

#endif /* KNIT_REPORT_VIEW_FLAT_H */
