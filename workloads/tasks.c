/* tasks: recursive explicit tasks (a fib-like tree), which any thread of
 * the team may run, with taskwait.
 *
 *   main -> run_tasks -> start_fib -> [parallel] single -> fib(DEPTH)
 *   fib(n): n < 2 -> fib_leaf (4 units); else two tasks: fib(n-1), fib(n-2),
 *           then taskwait, then fib_join (no probes: it only combines)
 *
 * A task's samples belong under the path that created it, whichever thread
 * runs it, as a worker's belong under the path that opened its region: the
 * golden's paths go main;...;fib;omp.outlined(the task);fib;... down to the
 * leaves. Leaves at each depth are counted exactly: fib(6) has 13 leaves.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define DEPTH    6

NOINLINE static uint64_t fib_leaf(uint64_t x)
{
  return knit_work(x, 4) + 1;
}

NOINLINE static uint64_t fib(int n, uint64_t x)
{
  if (n < 2)
    return fib_leaf(x + (uint64_t)n);
  uint64_t a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(n - 1, x + 1);
#pragma omp task shared(b)
  b = fib(n - 2, x + 2);
#pragma omp taskwait
  return a ^ (b << 1);
}

NOINLINE static uint64_t start_fib(uint64_t seed)
{
  uint64_t r = 0;
#pragma omp parallel
  {
#pragma omp single
    r = fib(DEPTH, seed);
  }
  return r;
}

NOINLINE static uint64_t run_tasks(uint64_t seed)
{
  return start_fib(seed) + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 3;
  for (int r = 0; r < rounds; r++)
    x = run_tasks(x);
  printf("tasks: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
