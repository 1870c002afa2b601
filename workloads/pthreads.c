/* pthreads: plain POSIX threads, no OpenMP.
 *
 *   main -> run_pthreads -> pthread_create x 4, then join, then
 *                           main_work (1 unit a round)
 *   each thread: thread_main -> thread_work (2 units)
 *                            -> thread_work -> thread_leaf (1 unit)
 *
 * A thread's calling context begins at its start routine: the C library's
 * start_thread and clone below it (and knit's own start wrapper) are
 * plumbing, not calls of the program's, as for OpenMP workers. The thread
 * does not inherit the path of its creator: a thread outlives the call that
 * created it, unlike a parallel region's body.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define THREADS  4

static uint64_t results[THREADS];
static int rounds_per_thread;

NOINLINE static uint64_t thread_leaf(uint64_t x)
{
  return knit_work(x, 1) + 1;
}

NOINLINE static uint64_t thread_work(uint64_t x)
{
  x = knit_work(x, 2);
  return thread_leaf(x) + 2;
}

NOINLINE static void *thread_main(void *arg)
{
  uintptr_t i = (uintptr_t)arg;
  uint64_t x = 17 + i;
  for (int r = 0; r < rounds_per_thread; r++)
    x = thread_work(x);
  results[i] = x;
  return NULL;
}

NOINLINE static uint64_t main_work(uint64_t x)
{
  return knit_work(x, (unsigned)rounds_per_thread) + 3;
}

NOINLINE static uint64_t run_pthreads(void)
{
  pthread_t t[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], NULL, thread_main, (void *)i) != 0) {
      perror("pthread_create");
      exit(1);
    }
  uint64_t sum = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    sum ^= results[i];
  }
  return main_work(sum);
}

int main(int argc, char **argv)
{
  rounds_per_thread = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = run_pthreads();
  printf("pthreads: %d rounds on %d threads, checksum %016llx\n", rounds_per_thread, THREADS,
         (unsigned long long)x);
  return 0;
}
