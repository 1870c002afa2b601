/*
 * Tasks, the OpenMP 5.0 kinds: a detachable task whose body fulfils its
 * own event (the order is then the same in every run), priorities,
 * mutexinoutset
 * dependences, a dependence object (depobj, which clang allocates with
 * __kmpc_alloc), and a task created inside a task in a taskgroup.  Thread
 * 0 creates every task while thread 1 waits at a gate in user code, so the
 * tasks are pending in the same order in every run.
 */
#include <omp.h>
#include <stdio.h>

static volatile int sink[16];
static volatile int gate;
static omp_event_handle_t ev;

static void work(int i)
{
  sink[i] += i + 1;
}

int main(void)
{
  int x = 0, y = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
      while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
        ;
    } else {
#pragma omp task detach(ev)
      {
        work(0);
        omp_fulfill_event(ev);
      }
#pragma omp task priority(3)
      work(1);
#pragma omp task priority(0)
      work(2);
#pragma omp task depend(mutexinoutset : x)
      x += 1;
#pragma omp task depend(mutexinoutset : x)
      x += 2;
      omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : y)
#pragma omp task depend(depobj : obj)
      y += 3;
#pragma omp depobj(obj) destroy
#pragma omp taskgroup
      {
#pragma omp task
        {
#pragma omp task
          work(3);
        }
      }
      __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
#pragma omp taskwait
    }
  }
  printf("tasks2: %d %d %d %d %d %d\n", sink[0], sink[1], sink[2], sink[3], x, y);
  return 0;
}
