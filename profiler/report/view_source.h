/* The source view (`knit report --source=FUNCTION`): one function's source
 * lines beside the metric each line accounts for, the way annotated
 * listings show it. A line's inclusive value is what the function spent
 * there, in its own code or in what it called (the calls made on that
 * line, inlined or not); its exclusive value is what was sampled on the
 * line itself. Code inlined into the function counts on the line of its
 * call; the outlined bodies of the parallel regions and tasks the function
 * holds count as its own code (they are, in the source); a loop's line
 * holds what the loop does. A function the compiler inlined has a view
 * too, from the code inlined wherever it was. The lines shown run from the first line with a value to the last,
 * with the source text when the file can be read (the DWARF's path), and
 * without it otherwise. */
#ifndef KNIT_REPORT_VIEW_SOURCE_H
#define KNIT_REPORT_VIEW_SOURCE_H

#include <stdio.h>

#include "report/profile.h"

/* Prints the source view of every function the report names function (as
 * the tree shows it, or by its symbol) for metric (knit_metric). Returns
 * 0, or -1 when no sampled function has that name (err says so). */
int knit_view_source(const knit_profile *p, const char *function, int metric, FILE *out, char *err,
                     size_t errlen);

#endif /* KNIT_REPORT_VIEW_SOURCE_H */
