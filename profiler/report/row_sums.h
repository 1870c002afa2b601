/* What the views' rows share beside their index (row_table.h): metric
 * values summed as the measurement stores them, and names that may be
 * missing compared. */
#ifndef KNIT_REPORT_ROW_SUMS_H
#define KNIT_REPORT_ROW_SUMS_H

#include <stdint.h>

#include "measure/format.h"

/* Adds values to sums, every metric (KNIT_METRIC_COUNT of each); a sum
 * that would pass UINT64_MAX stops there and sets *saturated
 * (measure/count.h). */
void knit_row_sums_add(uint64_t *sums, const uint64_t *values, int *saturated);

/* 1 when any metric of values is not zero: a node that ends sample paths. */
int knit_row_sums_any(const uint64_t *values);

/* 1 when a and b are the same text, or both NULL. */
int knit_row_same_text(const char *a, const char *b);

#endif /* KNIT_REPORT_ROW_SUMS_H */
