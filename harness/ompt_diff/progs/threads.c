/*
 * Two threads of the program's own (pthreads), one after the other, each
 * starting OpenMP: each is an initial thread with its initial task, and its
 * regions are its own.
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

int sink[8];

static void *run(void *arg)
{
  int k = (int)(long)arg;
#pragma omp parallel num_threads(2)
  {
#pragma omp atomic
    sink[k] += omp_get_thread_num() + 1;
  }
  sink[4 + k] = omp_get_level() * 10 + omp_get_num_threads();
  return NULL;
}

int main(void)
{
#pragma omp parallel num_threads(2)
  {
#pragma omp atomic
    sink[2]++;
  }
  for (long k = 0; k < 2; k++) {
    pthread_t t;
    pthread_create(&t, NULL, run, (void *)k);
    pthread_join(t, NULL);
  }
  printf("threads: %d %d %d %d %d\n", sink[0], sink[1], sink[2], sink[4], sink[5]);
  return 0;
}
