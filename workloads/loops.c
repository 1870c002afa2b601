/* loops: serial code whose probes sit in loops of known shape, for the
 * report's loop levels (cli.report_loops). Each loop's line carries an
 * "@label" comment, which the cli test looks up.
 *
 *   main -> run -> loop @rows (3 rounds)
 *                    -> loop @cols (2 rounds)  -> sink: 1 probe each = 6
 *                    -> sink: 1 probe each                          = 3
 *               -> sink: 1 probe                                    = 1
 *
 * sink is not inlined and takes its probe outside any loop of its own,
 * so every probe is one unit under exactly the loops written here. */
#include <stdio.h>
#include <stdlib.h>

#include <stdint.h>

#include <knit/probe.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static uint64_t sink(uint64_t x)
{
  knit_probe();
  __asm__ __volatile__("" : "+r"(x));
  return x * 3 + 1;
}

NOINLINE static uint64_t run(uint64_t x, int rows, int cols)
{
  for (int r = 0; r < rows; r++) { /* @rows */
    for (int c = 0; c < cols; c++) /* @cols */
      x = sink(x + (uint64_t)c);
    x = sink(x ^ (uint64_t)r);
  }
  return sink(x);
}

int main(int argc, char **argv)
{
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  /* The bounds come from the command line, so no compiler unrolls them. */
  int rows = argc > 2 ? atoi(argv[2]) : 3, cols = argc > 3 ? atoi(argv[3]) : 2;
  printf("loops %llu\n", (unsigned long long)(run(seed, rows, cols) & 0xff));
  return 0;
}
