/*
 * Cancellation (OMP_CANCELLATION=true): cancel parallel, cancel for, cancel
 * taskgroup.  A thread that must see a cancellation polls a cancellation
 * point until it does, so who activates and who detects is fixed.
 */
#include <omp.h>
#include <stdio.h>

int done[8];

int main(void)
{
  if (!omp_get_cancellation()) {
    printf("cancel: needs OMP_CANCELLATION=true\n");
    return 1;
  }
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
    }
    for (;;) {
#pragma omp cancellation point parallel
    }
  }

#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static, 1)
    for (int i = 0; i < 2; i++) {
      if (i == 0) {
#pragma omp cancel for
      }
      for (;;) {
#pragma omp cancellation point for
      }
    }
    done[omp_get_thread_num()] = 1;
  }

#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task
      {
#pragma omp cancel taskgroup
      }
#pragma omp taskwait
      /* Created in a cancelled taskgroup: discarded. */
#pragma omp task
      done[5] = 1;
    }
  }
  printf("cancel: %d %d %d\n", done[0], done[1], done[5]);
  return 0;
}
