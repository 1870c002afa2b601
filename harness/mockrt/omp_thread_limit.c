/* OMP_THREAD_LIMIT bounds the threads of the whole contention group, nested
 * teams included: with a limit of 3 and two levels of teams of 2, never
 * more than 3 threads run at once, and every team still does its work.
 * Run with OMP_THREAD_LIMIT=3 OMP_MAX_ACTIVE_LEVELS=2. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 5

static int live, most, inner_work;

/* Stays until all 4 inner threads an unlimited run would have are in, or
 * 20 ms have passed: the inner teams then overlap whenever they can. */
static void wait_for_company(void)
{
  double until = omp_get_wtime() + 0.02;
  for (;;) {
    int now;
#pragma omp atomic read
    now = live;
    if (now >= 4 || omp_get_wtime() > until)
      break;
  }
}

int main(void)
{
  int limit = omp_get_thread_limit();
  for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
      {
        int now;
#pragma omp atomic capture
        now = ++live;
#pragma omp critical
        if (now > most)
          most = now;
        wait_for_company();
#pragma omp atomic
        live--;
#pragma omp atomic
        inner_work++;
      }
    }
  }
  /* Each of the 2 outer threads opens ROUNDS inner teams of 1 or 2. */
  int ok = limit == 3 && most <= 3 && inner_work >= 2 * ROUNDS && inner_work <= 4 * ROUNDS;
  printf("thread limit %d: at most %d threads at once, %d inner implicit tasks: %s\n", limit, most,
         inner_work, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
