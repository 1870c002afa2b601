/*
 * Nested parallel regions under max-active-levels set by the program: a
 * team larger than nthreads-var first (so that the pool holds every
 * thread the later regions need, and libomp 14 starts the same threads in
 * every run), then two active levels, then three, then one again; the
 * level and team inquiries at each level.
 */
#include <omp.h>
#include <stdio.h>

int sink[64];

int main(void)
{
  /* num_threads beyond nthreads-var (4). */
#pragma omp parallel num_threads(8)
  {
#pragma omp atomic
    sink[10]++;
  }

  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
    sink[outer * 2 + omp_get_thread_num()] = omp_get_level() * 10 + omp_get_active_level();
  }

  omp_set_max_active_levels(3);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
      {
#pragma omp atomic
        sink[8] += omp_get_level() * 10 + omp_get_active_level();
#pragma omp atomic
        sink[9] += omp_get_team_size(2) + omp_get_ancestor_thread_num(0);
      }
    }
  }

  /* Back to one active level (parallel.c has inactive nested regions:
   * here, on libomp 14, a worker's ancestor answers would depend on
   * whether its primary thread is inside one at the time). */
  omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
  {
#pragma omp atomic
    sink[11] += omp_get_num_threads() * 10 + omp_get_active_level();
  }
  printf("nested: %d %d %d %d %d %d %d %d max %d\n", sink[0], sink[1], sink[2], sink[3], sink[8],
         sink[9], sink[10], sink[11], omp_get_max_active_levels());
  return 0;
}
