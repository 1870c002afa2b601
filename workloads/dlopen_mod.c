/* The module the dlopen workload loads at run time: a shared object of its
 * own with a parallel region, which the program does not link against.
 *
 *   dlmod_run -> dlmod_prepare (1 unit, serial, before any region)
 *             -> dlmod_parallel -> [parallel for, 16 iterations]
 *                                  each -> dlmod_work (4 units)
 */
#include <stdint.h>

#include "work.h"

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 16

static uint64_t results[ITERATIONS];

NOINLINE static uint64_t dlmod_work(uint64_t x)
{
  return knit_work(x, 4) + 1;
}

/* Serial work in the module first: in a timer run, knit samples code of a
 * library that was loaded since the program last entered knit. */
NOINLINE static uint64_t dlmod_prepare(uint64_t x)
{
  return knit_work(x, 1) + 2;
}

NOINLINE static uint64_t dlmod_parallel(uint64_t seed)
{
#pragma omp parallel for schedule(static)
  for (int i = 0; i < ITERATIONS; i++)
    results[i] = dlmod_work(seed + (uint64_t)i);
  uint64_t sum = 0;
  for (int i = 0; i < ITERATIONS; i++)
    sum ^= results[i];
  return sum;
}

/* The entry point the program looks up with dlsym. */
__attribute__((visibility("default"))) NOINLINE uint64_t dlmod_run(uint64_t seed)
{
  return dlmod_parallel(dlmod_prepare(seed)) + 3;
}
