/*
 * The program the OMPT checker (ompt_checker.c) watches: regions with a
 * probe from every outlined body (two levels deep in a nested region), a
 * dynamic loop (work and dispatch events), an ordered loop, sections, a
 * single, a master, a cancelled loop (with OMP_CANCELLATION=true), explicit
 * and implicit barriers and a contended lock.  Built by gcc (GOMP_* ABI)
 * and by clang (__kmpc_* ABI); the checker decides pass or fail, and this
 * program only checks that OpenMP computed the right results.
 */
#include "ompt_checker.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#define REGIONS 3
#define ITERS 64

int main(void)
{
  omp_lock_t lock;
  long sum = 0, ord_next = 0, ord_bad = 0;
  int sections = 0, singles = 0, masters = 0, inner = 0;

  /* Registered before omp_init_lock, whose lock_init event names it. */
  memset(&lock, 0, sizeof lock);
  knit_ompt_checker_lock(&lock);
  omp_init_lock(&lock);
  for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel
    {
      /* Its address is on the body's own frame, which the exit frame must be above. */
      volatile int local = r;
      knit_ompt_checker_probe((const void *)&local, omp_get_thread_num(), omp_get_num_threads());
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < ITERS; i++) {
        omp_set_lock(&lock);
        sum += i + local - r;
        omp_unset_lock(&lock);
      }
#pragma omp for ordered schedule(dynamic, 2)
      for (int i = 0; i < ITERS; i++) {
#pragma omp ordered
        {
          if (ord_next != (long)r * ITERS + i)
            ord_bad++;
          ord_next++;
        }
      }
#pragma omp sections
      {
#pragma omp section
        __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
#pragma omp section
        __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
      }
#pragma omp single
      singles++;
#pragma omp master
      masters++;
#pragma omp barrier
      knit_ompt_checker_probe((const void *)&local, omp_get_thread_num(), omp_get_num_threads());
    }
  }
  /* Cancel constructs (active with OMP_CANCELLATION=true). */
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < ITERS; i++) {
#pragma omp cancel for if (i == 3)
    }
  }
  /* A nested region with two active levels. */
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      volatile int local = 0;
      knit_ompt_checker_probe((const void *)&local, omp_get_thread_num(), omp_get_num_threads());
      __atomic_add_fetch(&inner, 1, __ATOMIC_RELAXED);
    }
  }
  omp_destroy_lock(&lock);
  if (sum != (long)REGIONS * ITERS * (ITERS - 1) / 2 || ord_bad || ord_next != REGIONS * ITERS ||
      sections != 2 * REGIONS || singles != REGIONS || masters != REGIONS || inner != 4) {
    fprintf(stderr, "ompt_checker_prog: wrong results: sum %ld ordered %ld/%ld sections %d "
            "singles %d masters %d inner %d\n", sum, ord_next, ord_bad, sections, singles,
            masters, inner);
    return 1;
  }
  return 0;
}
