/*
 * Synchronization constructs: single (and nowait), master, masked, critical
 * (unnamed and named), explicit barrier, flush, atomic, reduction.
 */
#include <omp.h>
#include <stdio.h>

int counter;
int singles;
double total;

int main(void)
{
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    singles++;
#pragma omp single nowait
    singles++;
#pragma omp barrier
#pragma omp master
    counter += 100;
#pragma omp masked
    counter += 1000;
#pragma omp critical
    counter++;
#pragma omp critical(named)
    counter++;
#pragma omp flush
#pragma omp atomic
    counter += 2;
#pragma omp barrier
  }

  double sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(4) schedule(static)
  for (int i = 0; i < 100; i++)
    sum += i * 0.5;
  total = sum;
  printf("sync: %d %d %g\n", counter, singles, total);
  return 0;
}
