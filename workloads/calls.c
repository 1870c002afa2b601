/* calls: serial code only (no OpenMP), to test unwinding itself.
 *
 * It has nested calls, recursion, functions with and without a frame, a
 * call into a shared library through the PLT, and a tail call (tail_caller
 * jumps to tail_callee, so its frame is gone and tail_callee appears called
 * from its caller's caller). Each function does a known number of units of
 * work, with one probe per unit:
 *
 *   main -> run_calls -> nested_outer -> nested_inner        3 units
 *                     -> nested_outer                        1 unit
 *        -> recurse(4) -> recurse(3) -> ... -> recurse(0)    1 unit at each depth
 *        -> call_library -> calls_lib_checksum -> lib_digest 2 units
 *                        -> calls_lib_checksum               2 units
 *        -> tail_callee (called from run_calls by tail_caller's jump) 2 units
 */
#include <stdio.h>
#include <stdlib.h>

#include "calls_lib.h"
#include "work.h"

#define NOINLINE __attribute__((noinline))

/* The leaf: no calls, no frame; the probes around it are in its callers. */
NOINLINE static uint64_t leaf_scramble(uint64_t x)
{
  x ^= x << 13;
  x ^= x >> 7;
  return x ^ (x << 17);
}

NOINLINE static uint64_t nested_inner(uint64_t x)
{
  return leaf_scramble(knit_work(x, 3));
}

NOINLINE static uint64_t nested_outer(uint64_t x)
{
  x = nested_inner(x);
  return knit_work(x, 1) + 7;
}

NOINLINE static uint64_t recurse(uint64_t x, int depth)
{
  x = knit_work(x, 1);
  /* A call after the recursive one: gcc can turn recursion followed only by
   * arithmetic into a loop, which would flatten the path. */
  if (depth > 0)
    x = leaf_scramble(recurse(x, depth - 1));
  return x;
}

NOINLINE static uint64_t call_library(uint64_t x)
{
  return calls_lib_checksum(x, 2) * 5;
}

NOINLINE uint64_t tail_callee(uint64_t x)
{
  return knit_work(x, 2) | 1;
}

/* Ends in a jump to tail_callee: gcc -O2 turns the call into a tail call. */
NOINLINE uint64_t tail_caller(uint64_t x)
{
  return tail_callee(leaf_scramble(x));
}

NOINLINE static uint64_t run_calls(uint64_t x)
{
  x = nested_outer(x);
  x = recurse(x, 4);
  x = call_library(x);
  x = tail_caller(x);
  return x + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  uint64_t x = 42;
  for (int r = 0; r < rounds; r++)
    x = run_calls(x);
  printf("calls: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
