/*
 * Atomics and flush: atomic update, read, write and capture (relaxed and
 * seq_cst) on int, long and double, and flush without and with a list;
 * each thread's calls are the same in every run.
 */
#include <omp.h>
#include <stdio.h>

int counter;
long wide_sum;
double dsum;
int flag, data;

int main(void)
{
#pragma omp parallel num_threads(4)
  {
    int me = omp_get_thread_num();
#pragma omp atomic
    counter++;
#pragma omp atomic update seq_cst
    wide_sum += me;
#pragma omp atomic
    dsum += 0.5;
    int seen;
#pragma omp atomic capture
    seen = counter++;
    (void)seen;
    if (me == 0) {
      data = 42;
#pragma omp flush
#pragma omp atomic write
      flag = 1;
    }
    int f;
    do {
#pragma omp atomic read
      f = flag;
    } while (!f);
#pragma omp flush(data)
    if (data != 42)
      counter += 1000;
  }
  printf("atomics: %d %ld %.1f\n", counter, wide_sum, dsum);
  return 0;
}
