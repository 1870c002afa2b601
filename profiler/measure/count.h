/* Adding up counts read from a measurement.
 *
 * Every count in a thread file is a number the reader cannot check (a
 * damaged or hostile file may hold values near 2^64), and the report adds
 * them up: over the threads, along every path, per function. A sum that
 * would pass UINT64_MAX stays at UINT64_MAX and says so through *saturated,
 * so a report shows a count that is too large, and states it, instead of
 * a small one that wrapped around. */
#ifndef KNIT_MEASURE_COUNT_H
#define KNIT_MEASURE_COUNT_H

#include <stdint.h>

/* a + b, or UINT64_MAX with *saturated set to 1 when that does not fit. */
static inline uint64_t knit_count_add(uint64_t a, uint64_t b, int *saturated)
{
  uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    *saturated = 1;
    return UINT64_MAX;
  }
  return sum;
}

#endif /* KNIT_MEASURE_COUNT_H */
