/* task_if0: undeferred explicit tasks (`task if(0)`), which the thread
 * that creates them runs at once, inside the runtime's task entry.
 *
 *   main -> run_if0 -> open_region -> [parallel] (the team's last thread)
 *        -> spawn_undeferred -> [task if(0)] x3 -> if0_leaf (4 units each)
 *
 * The task's samples belong under the path that created it, like any
 * explicit task's: main;...;spawn_undeferred;omp.outlined(the task);
 * if0_leaf, with the runtime's task entry between the two cut away. The
 * team's last thread creates them, a worker whenever the team has more
 * than one thread (libomp answers a worker's undeferred task with another
 * team's parallel data one level up: knit must not take it).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define TASKS    3

NOINLINE static uint64_t if0_leaf(uint64_t x)
{
  return knit_work(x, 4) + 1;
}

NOINLINE static uint64_t spawn_undeferred(uint64_t x)
{
  uint64_t r = 0;
  for (int i = 0; i < TASKS; i++) {
#pragma omp task if (0) shared(r) firstprivate(i)
    r ^= if0_leaf(x + (uint64_t)i);
  }
  return r;
}

NOINLINE static uint64_t open_region(uint64_t seed)
{
  uint64_t r = 0;
#pragma omp parallel shared(r)
  {
    if (omp_get_thread_num() == omp_get_num_threads() - 1)
      r = spawn_undeferred(seed);
  }
  return r;
}

NOINLINE static uint64_t run_if0(uint64_t seed)
{
  return open_region(seed) + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 5;
  for (int r = 0; r < rounds; r++)
    x = run_if0(x);
  printf("task_if0: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
