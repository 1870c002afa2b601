/* Sums and names of the views' rows; see row_sums.h. */
#include "report/row_sums.h"

#include <string.h>

#include "measure/count.h"

void knit_row_sums_add(uint64_t *sums, const uint64_t *values, int *saturated)
{
  for (int m = 0; m < KNIT_METRIC_COUNT; m++)
    sums[m] = knit_count_add(sums[m], values[m], saturated);
}

int knit_row_sums_any(const uint64_t *values)
{
  for (int m = 0; m < KNIT_METRIC_COUNT; m++)
    if (values[m] != 0)
      return 1;
  return 0;
}

int knit_row_same_text(const char *a, const char *b)
{
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}
