/* How a construct's name is spelled, `parallel at heat.c:42` or, for the
 * body clang's wrapper calls, `task body at qsort.c:27`
 * (construct_names.h), and how the folded form and knit check know one
 * again: without the debug information and libdw that finding them needs.
 */
#ifndef KNIT_REPORT_CONSTRUCT_LABEL_H
#define KNIT_REPORT_CONSTRUCT_LABEL_H

#include <stddef.h>

/* "CONSTRUCT at FILE:LINE", or "CONSTRUCT body at FILE:LINE" when body is
 * set, into out (n bytes, cut short when longer). */
void knit_construct_label(char *out, size_t n, const char *construct, int body, const char *file,
                          unsigned line);

/* Whether name is such a label (in the report's spelling, or the folded
 * form's, with spaces made '_'): 1 for a construct, 2 for a body under its
 * wrapper, 0 for any other name. */
int knit_construct_name_kind(const char *name);

#endif /* KNIT_REPORT_CONSTRUCT_LABEL_H */
