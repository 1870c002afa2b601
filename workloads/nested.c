/* nested: a parallel region opened deep in the call tree whose body opens a
 * second parallel region (two levels).
 *
 *   main -> run_nested -> outer_fn -> [parallel for, 4 iterations]
 *        each iteration -> outer_work (2 units)
 *                       -> inner_fn -> [parallel for, 8 iterations]
 *                                      each iteration -> inner_work (4 units)
 *
 * Counts do not depend on the number of threads: the work is in worksharing
 * loops. A runtime that does not nest runs the inner region as a team of
 * one; its samples still sit under outer_fn's outlined body, then inner_fn
 * and the inner outlined body, so the golden is the same either way.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define OUTER    4
#define INNER    8

static uint64_t inner_results[OUTER][INNER];
static uint64_t outer_results[OUTER];

NOINLINE static uint64_t inner_work(uint64_t x)
{
  return knit_work(x, 4) + 3;
}

NOINLINE static uint64_t outer_work(uint64_t x)
{
  return knit_work(x, 2) + 5;
}

/* The inner region: two threads asked for, so that a nesting runtime gives
 * every outer thread a team of its own. */
NOINLINE static uint64_t inner_fn(int o, uint64_t seed)
{
#pragma omp parallel for schedule(static) num_threads(2)
  for (int i = 0; i < INNER; i++)
    inner_results[o][i] = inner_work(seed + (uint64_t)i);
  uint64_t sum = 0;
  for (int i = 0; i < INNER; i++)
    sum ^= inner_results[o][i];
  return sum;
}

NOINLINE static void outer_fn(uint64_t seed)
{
#pragma omp parallel for schedule(static) num_threads(2)
  for (int o = 0; o < OUTER; o++) {
    uint64_t x = outer_work(seed + (uint64_t)o);
    outer_results[o] = inner_fn(o, x);
  }
}

NOINLINE static uint64_t run_nested(uint64_t seed)
{
  outer_fn(seed);
  uint64_t sum = 0;
  for (int o = 0; o < OUTER; o++)
    sum ^= outer_results[o];
  return sum + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  /* Two active levels: the inner region gets a team where the runtime can. */
  omp_set_max_active_levels(2);
  uint64_t x = 11;
  for (int r = 0; r < rounds; r++)
    x = run_nested(x);
  printf("nested: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
