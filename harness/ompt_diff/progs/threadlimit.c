/*
 * A thread limit the program sets itself: OMP_THREAD_LIMIT=3 in the
 * environment before the runtime reads it (a constructor: the harness's
 * environment is the same for every program), and num_threads beyond it.
 * KMP_WARNINGS=false keeps libomp 14's warning about the smaller team out
 * of the program's output (the mocks print none).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int threads[3];

__attribute__((constructor)) static void set_limit(void)
{
  setenv("OMP_THREAD_LIMIT", "3", 1);
  setenv("KMP_WARNINGS", "false", 1);
}

int main(void)
{
#pragma omp parallel num_threads(6)
  {
#pragma omp atomic
    threads[0]++;
  }
  /* Without a clause: nthreads-var (4), beyond the limit too. */
#pragma omp parallel
  {
#pragma omp atomic
    threads[1]++;
  }
#pragma omp parallel num_threads(2)
  {
#pragma omp atomic
    threads[2] += omp_get_thread_limit();
  }
  printf("threadlimit: %d %d %d limit %d\n", threads[0], threads[1], threads[2],
         omp_get_thread_limit());
  return 0;
}
