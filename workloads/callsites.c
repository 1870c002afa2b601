/* callsites: one parallel region opened from several call paths in turn,
 * round after round: the paths a tool that remembers where regions began
 * must tell apart.
 *
 *   main -> run_round -> via_left  -> open_region -> [parallel for, 4 iterations]
 *                     -> via_right -> open_region        each -> region_work (1 unit)
 *                     -> climb x (DEPTH + 1) -> open_region
 *
 * via_left and via_right are built alike, so their regions begin at the
 * same stack depth: at the runtime's entry the two differ in nothing but
 * one return address on the stack. climb opens the region DEPTH calls
 * further down. Each round calls via_left and via_right twice each, in
 * turn, and climb once. Counts do not depend on the number of threads: the
 * work is in worksharing loops. From the third round on, each round begins
 * with a dlclose.
 */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 4
#define DEPTH      20

NOINLINE static uint64_t region_work(uint64_t x)
{
  return knit_work(x, 1) + 1;
}

NOINLINE static uint64_t open_region(uint64_t seed)
{
  uint64_t r[ITERATIONS];
#pragma omp parallel for schedule(static)
  for (int i = 0; i < ITERATIONS; i++)
    r[i] = region_work(seed + (uint64_t)i);
  uint64_t sum = 0;
  for (int i = 0; i < ITERATIONS; i++)
    sum ^= r[i];
  return sum;
}

/* Each adds after its call, so none is a tail call; the constants differ,
 * so the compiler cannot fold the two into one function. */
NOINLINE static uint64_t via_left(uint64_t seed)
{
  uint64_t v = open_region(seed);
  __asm__ __volatile__("" : "+r"(v));
  return v + 1;
}

NOINLINE static uint64_t via_right(uint64_t seed)
{
  uint64_t v = open_region(seed);
  __asm__ __volatile__("" : "+r"(v));
  return v + 2;
}

NOINLINE static uint64_t climb(int depth, uint64_t seed)
{
  uint64_t v = depth == 0 ? open_region(seed) : climb(depth - 1, seed);
  __asm__ __volatile__("" : "+r"(v));
  return v + (uint64_t)depth;
}

NOINLINE static uint64_t run_round(int round, uint64_t seed)
{
  /* From the third round on, a library is closed first (the program's own
   * handle: nothing is unmapped, but dlclose is called), so that a tool
   * which remembers paths while no library is unloaded has to find them
   * again (cli_test.sh capture_counts). Here rather than in main's loop,
   * which the test would split into two calls of run_round. */
  if (round >= 2)
    dlclose(dlopen(NULL, RTLD_NOW));
  uint64_t x = via_left(seed);
  x = via_right(x);
  x = via_left(x);
  x = climb(DEPTH, x);
  x = via_right(x);
  __asm__ __volatile__("" : "+r"(x));
  return x + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 3;
  for (int r = 0; r < rounds; r++)
    x = run_round(r, x);
  printf("callsites: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
