/* What the views' rows share beside their index (row_table.h): arrays of
 * rows that double as they fill, metric values summed as the measurement
 * stores them, and names that may be missing compared. */
#ifndef KNIT_REPORT_ROWS_H
#define KNIT_REPORT_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

/* The capacity an array of rows grows to when it is full at cap: twice
 * cap, and 256 rows at first. */
size_t knit_rows_grown_cap(size_t cap);

/* Resizes an array of rows to cap rows of size bytes each. array is the
 * address of the caller's pointer to its rows (of any type). Returns 0, or
 * -1 out of memory with the rows as they were. */
int knit_rows_resize(void *array, size_t size, size_t cap);

/* Adds values to sums, every metric (KNIT_METRIC_COUNT of each); a sum
 * that would pass UINT64_MAX stops there and sets *saturated
 * (measure/count.h). */
void knit_rows_sum(uint64_t *sums, const uint64_t *values, int *saturated);

/* 1 when any metric of values is not zero: a node that ends sample paths. */
int knit_rows_any(const uint64_t *values);

/* 1 when a and b are the same text, or both NULL. */
int knit_rows_same_text(const char *a, const char *b);

#endif /* KNIT_REPORT_ROWS_H */
