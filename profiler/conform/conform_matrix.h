/* The check-by-runtime table of a summary, in md or html (conform_matrix.c):
 * a row per check, a column per report, a verdict in each cell. */
#ifndef KNIT_CONFORM_MATRIX_H
#define KNIT_CONFORM_MATRIX_H

#include <stdio.h>

#include "conform/conform_report.h"

void knit_conform_matrix(const knit_conform_report *const *reports, int n, const char *format,
                         FILE *out);

#endif /* KNIT_CONFORM_MATRIX_H */
