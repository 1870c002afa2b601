/* Arrays, sums and names of the views' rows; see rows.h. */
#include "report/rows.h"

#include <stdlib.h>
#include <string.h>

#include "measure/count.h"

size_t knit_rows_grown_cap(size_t cap)
{
  return cap ? 2 * cap : 256;
}

int knit_rows_resize(void *array, size_t size, size_t cap)
{
  /* The caller's pointer is read and written as bytes, whatever it points
   * to, so that one function serves every row type. */
  void *rows;
  memcpy(&rows, array, sizeof rows);
  rows = realloc(rows, cap * size);
  if (rows == NULL)
    return -1;
  memcpy(array, &rows, sizeof rows);
  return 0;
}

void knit_rows_sum(uint64_t *sums, const uint64_t *values, int *saturated)
{
  for (int m = 0; m < KNIT_METRIC_COUNT; m++)
    sums[m] = knit_count_add(sums[m], values[m], saturated);
}

int knit_rows_any(const uint64_t *values)
{
  for (int m = 0; m < KNIT_METRIC_COUNT; m++)
    if (values[m] != 0)
      return 1;
  return 0;
}

int knit_rows_same_text(const char *a, const char *b)
{
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}
