/*
 * Explicit tasks: plain, if(0), final, mergeable, untied, dependences,
 * taskwait, taskgroup, taskloop, taskyield.  The master creates the tasks
 * while the other thread waits at a gate in user code (no scheduling point),
 * so each task is still pending when the next one is created and the
 * dependences between them are the same in every run.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

int x, y, z;
int results[64];
atomic_int gate;

static void leaf(int i)
{
  results[i & 63] += i;
}

static void create_tasks(void)
{
#pragma omp task
  leaf(1);
#pragma omp task if (0)
  leaf(2);
#pragma omp task final(1)
  {
    leaf(3);
#pragma omp task
    leaf(4);
  }
#pragma omp task mergeable
  leaf(5);
#pragma omp task untied
  leaf(6);
#pragma omp task depend(out : x)
  leaf(7);
#pragma omp task depend(in : x) depend(out : y)
  leaf(8);
#pragma omp task depend(in : x, y) depend(inout : z)
  leaf(9);
#pragma omp task
  {
#pragma omp task
    leaf(10);
#pragma omp taskwait
    leaf(11);
  }
}

int main(void)
{
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      create_tasks();
      atomic_store(&gate, 1);
#pragma omp taskwait
#pragma omp taskgroup
      {
#pragma omp task
        leaf(12);
#pragma omp task
        leaf(13);
      }
#pragma omp taskyield
    } else {
      while (!atomic_load(&gate))
        ;
    }
#pragma omp barrier
#pragma omp single
    {
#pragma omp taskloop num_tasks(4)
      for (int i = 20; i < 28; i++)
        leaf(i);
    }
  }
  int sum = 0;
  for (int i = 0; i < 64; i++)
    sum += results[i];
  printf("tasks: %d\n", sum);
  return 0;
}
