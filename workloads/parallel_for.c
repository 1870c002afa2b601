/* parallel_for: a parallel loop opened two calls below main, with uneven
 * work in named functions.
 *
 *   main -> run_experiment -> compute_all -> [parallel for, 256 iterations]
 *        every fourth iteration -> work_heavy (3 units), the others ->
 *        work_light (1 unit); then serial -> summarize (2 units).
 *
 * With stitching, every thread's samples sit under
 * main;run_experiment;compute_all, whichever thread ran the iteration.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 256

static uint64_t results[ITERATIONS];

NOINLINE static uint64_t work_heavy(uint64_t x)
{
  return knit_work(x, 3) + 1;
}

NOINLINE static uint64_t work_light(uint64_t x)
{
  return knit_work(x, 1) + 2;
}

/* Every fourth iteration is heavy; which ones shifts with the seed, so that
 * the heavy work does not sit at the same moment of every region. A timer
 * whose ticks fall at a fixed offset from each region's start (threads woken
 * on scheduler ticks do that) would otherwise see the same function every
 * time. Each thread's static share still holds a quarter of heavy ones. */
NOINLINE static void compute_all(uint64_t seed)
{
  int shift = (int)(seed >> 7 & 3);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < ITERATIONS; i++) {
    uint64_t x = seed + (uint64_t)i;
    results[i] = (i + shift) % 4 == 0 ? work_heavy(x) : work_light(x);
  }
}

NOINLINE static uint64_t summarize(void)
{
  uint64_t sum = 0;
  for (int i = 0; i < ITERATIONS; i++)
    sum ^= results[i];
  return knit_work(sum, 2);
}

NOINLINE static uint64_t run_experiment(uint64_t seed)
{
  compute_all(seed);
  return summarize() + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 7;
  for (int r = 0; r < rounds; r++)
    x = run_experiment(x);
  printf("parallel_for: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
