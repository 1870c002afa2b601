/* A barrier of a region that may be cancelled (gcc: GOMP_barrier_cancel,
 * clang: __kmpc_cancel_barrier) is still a barrier: every task created
 * before it is complete when it opens. One thread creates the tasks and
 * goes on at once (single nowait); the others reach the barrier first.
 * Run with OMP_CANCELLATION=true, or the runtime takes its plain barrier. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 50
#define TASKS  64

int main(void)
{
  int bad = 0;
  for (int round = 0; round < ROUNDS; round++) {
    int done = 0;
#pragma omp parallel shared(done) reduction(+ : bad)
    {
#pragma omp single nowait
      for (int i = 0; i < TASKS; i++) {
#pragma omp task shared(done)
        {
          unsigned long x = 0;
          for (int k = 0; k < 20000; k++) {
            x += (unsigned long)k;
            __asm__ __volatile__("" : "+r"(x)); /* the loop stays */
          }
#pragma omp atomic
          done++;
        }
      }
#pragma omp barrier
      int seen;
#pragma omp atomic read
      seen = done;
      if (seen != TASKS)
        bad++;
        /* Never taken; it makes the region's barriers cancellable. */
#pragma omp cancel parallel if (round < 0)
    }
  }
  printf("cancellable barrier: %s (%d rounds of %d tasks, %d threads)\n",
         bad ? "tasks still pending after it" : "every task complete", ROUNDS, TASKS,
         omp_get_max_threads());
  return bad != 0;
}
