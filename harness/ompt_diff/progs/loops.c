/*
 * Worksharing loops: static, static chunked, dynamic and guided schedules,
 * nowait, and an ordered loop.  Loop bodies make no runtime call, so what a
 * thread logs does not depend on which chunks it got (ordered aside, whose
 * static,1 schedule fixes each thread's iterations).
 */
#include <omp.h>
#include <stdio.h>

#define N 64
int a[N];

int main(void)
{
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
      a[i] = i;
#pragma omp for schedule(static, 4)
    for (int i = 0; i < N; i++)
      a[i] += 1;
#pragma omp for schedule(dynamic, 8)
    for (int i = 0; i < N; i++)
      a[i] += 2;
#pragma omp for schedule(guided, 4)
    for (int i = 0; i < N; i++)
      a[i] += 3;
#pragma omp for schedule(static) nowait
    for (int i = 0; i < N; i++)
      a[i] += 4;
  }

  long order = 0;
#pragma omp parallel for ordered schedule(static, 1) num_threads(4)
  for (int i = 0; i < 8; i++) {
#pragma omp ordered
    order = order * 10 + i;
  }
  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("loops: %ld %ld\n", sum, order);
  return 0;
}
