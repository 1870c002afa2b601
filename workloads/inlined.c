/* inlined: serial code whose work is in functions the compiler inlined,
 * one level deep and two, for the report's inlined levels. Each line that
 * matters carries an "@label" comment, which the cli test looks up.
 *
 *   main -> run -> outer_step (inlined) -> knit_work        3 units
 *                                        -> inner_step (inlined)
 *                                             -> knit_work   2 units
 *               -> knit_work                                 1 unit
 *
 * knit_work and knit_probe are inlined too (work.h): every probe is
 * taken inside them, below outer_step or inner_step, or in run. */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define INLINE   static inline __attribute__((always_inline))

INLINE uint64_t inner_step(uint64_t x)
{
  return knit_work(x, 2) ^ 5; /* @inner_work */
}

INLINE uint64_t outer_step(uint64_t x)
{
  x = knit_work(x, 3);      /* @outer_work */
  return inner_step(x) + 3; /* @call_inner */
}

NOINLINE static uint64_t run(uint64_t x)
{
  x = outer_step(x); /* @call_outer */
  __asm__ __volatile__("" : "+r"(x));
  return knit_work(x, 1) + 1; /* @run_work */
}

int main(int argc, char **argv)
{
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  uint64_t r = run(seed);
  printf("inlined %llu\n", (unsigned long long)(r & 0xff));
  return 0;
}
