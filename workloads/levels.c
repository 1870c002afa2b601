/* levels: an OpenMP region whose probes sit in loops and inlined helpers of
 * known shape, for goldens that hold the report's inlined and loop levels
 * ("# levels: loops inline"). The same source for gcc and clang, on every
 * runtime.
 *
 *   main -> loop @rounds -> sweep -> [parallel for, loop @rows]
 *             -> scan_row (inlined) -> loop @cols -> cell (inlined) -> sink
 *        -> settle (inlined) -> loop @settle -> sink
 *
 * Each line that opens a loop carries an "@label" comment. sink is never
 * inlined and takes its probe outside any loop of its own, so every probe
 * is one unit under exactly the loops and inlined calls written here. */
#include <stdio.h>
#include <stdlib.h>

#include <stdint.h>

#include <knit/probe.h>

#define NOINLINE      __attribute__((noinline))
#define ALWAYS_INLINE __attribute__((always_inline)) inline

NOINLINE static uint64_t sink(uint64_t x)
{
  knit_probe();
  __asm__ __volatile__("" : "+r"(x));
  return x * 3 + 1;
}

static ALWAYS_INLINE uint64_t cell(uint64_t x, int c)
{
  return sink(x + (uint64_t)c);
}

static ALWAYS_INLINE uint64_t scan_row(uint64_t x, int cols)
{
  for (int c = 0; c < cols; c++) /* @cols */
    x = cell(x, c);
  return x;
}

/* The bounds come from the command line, so no compiler unrolls the loops
 * or folds them away. The parallel loop's body shares its line: gcc's
 * lowering of the construct gives the loop's increment and test the line of
 * the body's statement (the for statement's own line is in no instruction),
 * clang gives them the for statement's; on one line, both name the loop
 * alike. */
NOINLINE static uint64_t sweep(uint64_t seed, int rows, int cols)
{
  uint64_t total = 0;
  /* clang-format off */
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int r = 0; r < rows; r++) total ^= scan_row(seed + (uint64_t)r, cols); /* @rows */
  /* clang-format on */
  return total;
}

static ALWAYS_INLINE uint64_t settle(uint64_t x, int n)
{
  for (int i = 0; i < n; i++) /* @settle */
    x = sink(x ^ (uint64_t)i);
  return x;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  int rows = argc > 2 ? atoi(argv[2]) : 8, cols = argc > 3 ? atoi(argv[3]) : 3;
  uint64_t x = 7;
  for (int r = 0; r < rounds; r++) /* @rounds */
    x = sweep(x, rows, cols);
  x = settle(x, rounds);
  printf("levels: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
