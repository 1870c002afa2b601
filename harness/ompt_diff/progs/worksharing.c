/*
 * More worksharing: sections (clang gives them a static schedule, so each
 * thread's sections are fixed), a doacross loop (ordered(1) with
 * depend(sink) and depend(source), schedule(static, 1): each thread's
 * iterations are fixed, and so are its posts and waits), and a standalone
 * ordered construct's flush.
 */
#include <omp.h>
#include <stdio.h>

#define N 8
int sec[4];
long chain[N];

int main(void)
{
#pragma omp parallel num_threads(4)
  {
#pragma omp sections
    {
#pragma omp section
      sec[0] = 1;
#pragma omp section
      sec[1] = 2;
#pragma omp section
      sec[2] = 3;
#pragma omp section
      sec[3] = 4;
    }
  }

  chain[0] = 1;
#pragma omp parallel for ordered(1) schedule(static, 1) num_threads(2)
  for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
    chain[i] = chain[i - 1] * 2;
#pragma omp ordered depend(source)
  }
  printf("worksharing: %d %ld\n", sec[0] + sec[1] + sec[2] + sec[3], chain[N - 1]);
  return 0;
}
