/* scaling: a program that stops scaling at a serial phase, for
 * `knit diff --scaling`.
 *
 *   main -> run_phases -> [parallel for, 16 iterations] -> parallel_share
 *                                                          (1 unit each)
 *                      -> serial_phase (64 units, on the initial thread)
 *   once per round, ROUNDS rounds (default 4).
 *
 * Run at 1 thread and at 4, the parallel work stays 16 units a round
 * however it is shared, while the serial phase keeps 3 threads idle for
 * its 64 units: its excess work at 4 threads is 3 x 64 units a round of
 * OMP_IDLE, more than the parallel loop can idle (at most 3 x 16), so it
 * is the context that stops scaling. The first region comes before the
 * first serial phase, so the workers exist (idle) while it runs. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE       __attribute__((noinline))
#define ITERATIONS     16
#define SERIAL_UNITS   64
#define PARALLEL_UNITS 1

static uint64_t results[ITERATIONS];

NOINLINE static uint64_t parallel_share(uint64_t x)
{
  return knit_work(x, PARALLEL_UNITS) + 1;
}

NOINLINE static void parallel_phase(uint64_t seed)
{
#pragma omp parallel for schedule(static)
  for (int i = 0; i < ITERATIONS; i++)
    results[i] = parallel_share(seed + (uint64_t)i);
}

NOINLINE static uint64_t serial_phase(void)
{
  uint64_t sum = 0;
  for (int i = 0; i < ITERATIONS; i++)
    sum ^= results[i];
  return knit_work(sum, SERIAL_UNITS);
}

NOINLINE static uint64_t run_phases(int rounds)
{
  uint64_t x = 11;
  for (int r = 0; r < rounds; r++) {
    parallel_phase(x);
    x = serial_phase();
  }
  return x;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  uint64_t x = run_phases(rounds);
  printf("scaling: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
