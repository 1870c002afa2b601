/*
 * The program the OMPT checker (ompt_checker.c) watches: regions with a
 * probe from every outlined body, a dynamic loop (work events), explicit and
 * implicit barriers and a contended lock.  Built by gcc (GOMP_* ABI) and by
 * clang (__kmpc_* ABI); the checker decides pass or fail, and this program
 * only checks that OpenMP computed the right sum.
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
  long sum = 0;

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
#pragma omp barrier
      knit_ompt_checker_probe((const void *)&local, omp_get_thread_num(), omp_get_num_threads());
    }
  }
  omp_destroy_lock(&lock);
  if (sum != (long)REGIONS * ITERS * (ITERS - 1) / 2) {
    fprintf(stderr, "ompt_checker_prog: sum %ld is wrong\n", sum);
    return 1;
  }
  return 0;
}
