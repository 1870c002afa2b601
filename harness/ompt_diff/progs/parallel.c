/*
 * Parallel regions: plain, nested (active and inactive), if(0), num_threads(1),
 * and the inquiry entry points at every implicit task (logged by the tool).
 */
#include <omp.h>
#include <stdio.h>

int sink[64];

static void work(int i)
{
  sink[i & 63] += i;
}

int main(void)
{
#pragma omp parallel num_threads(4)
  work(omp_get_thread_num());

  /* Nested: the inner regions are inactive (max-active-levels 1). */
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    work(10 + omp_get_thread_num());
  }

  /* Serialized regions. */
  int zero = sink[63];
#pragma omp parallel if (zero)
  work(20);
#pragma omp parallel num_threads(1)
  work(21);

  /* Two active levels. */
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    work(30 + omp_get_thread_num());
  }
  printf("parallel: %d\n", sink[0] + sink[10] + sink[20] + sink[21] + sink[30]);
  return 0;
}
