/*
 * Every explicit-task construct, with results checked: shared counters,
 * recursive fib, if(0), final, untied, depend chains whose order is
 * checked, taskwait, taskgroup, taskloop with grainsize and num_tasks,
 * taskyield, and tasks run by other threads while their creator waits at a
 * barrier.  Built by gcc (GOMP_* ABI) and by clang (__kmpc_* ABI); run on
 * the mocks and on the real runtimes, which proves the checks themselves.
 *
 * Exit status 0 means every check passed.  MOCKRT_DETERMINISTIC=1 makes
 * the mock run each thread's tasks on that thread, so the check that other
 * threads help at a barrier is skipped there (and said so).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static long fib(int n)
{
  long a, b;
  if (n < 2)
    return n;
#pragma omp task shared(a) final(n < 8)
  a = fib(n - 1);
#pragma omp task shared(b) final(n < 8)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static void test_counter_and_barrier(int deterministic)
{
  int count = 0, helpers = 0, started = 0;
  unsigned long seen = 0;
#pragma omp parallel shared(count, helpers, started, seen, deterministic)
  {
#pragma omp single nowait
    {
      for (int i = 0; i < 8; i++) {
#pragma omp task shared(count, started, seen, deterministic)
        {
          __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
          __atomic_or_fetch(&seen, 1ul << (omp_get_thread_num() & 63), __ATOMIC_SEQ_CST);
          /*
           * The first task waits (up to 5 s, for slow emulated thread
           * start-up) until a second one has started: only another thread
           * can start it, so a runtime whose other threads do not run tasks
           * at the barrier is caught however the threads are timed.
           */
          for (int w = 0;
               !deterministic && w < 50000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < 2; w++)
            pause_us(100);
          pause_us(1000);
          __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
        }
      }
    }
    /* The implicit barrier at the end runs the tasks; all are complete after it. */
  }
  CHECK(count == 8);
  CHECK(started == 8);
  helpers = __builtin_popcountl(seen);
  if (deterministic)
    printf("tasks: barrier helpers not checked in deterministic mode (%d thread(s) ran tasks)\n",
           helpers);
  else if (omp_get_max_threads() > 1)
    CHECK(helpers > 1);
  printf("tasks: counter %d, run by %d thread(s)\n", count, helpers);
}

static void test_if0_final_untied(void)
{
  int done = 0, in_final = -1, child_in_final = -1, child_done = 0, untied = 0;
  int creator = -1, runner = -2;
#pragma omp parallel num_threads(2)                                                                \
    shared(done, in_final, child_in_final, child_done, untied, creator, runner)
#pragma omp single
  {
    creator = omp_get_thread_num();
#pragma omp task if (0) shared(done, runner)
    {
      runner = omp_get_thread_num();
      done = 1;
    }
    /* Undeferred: complete before the construct returns, on this thread. */
    CHECK(done == 1);
    CHECK(runner == creator);
#pragma omp task final(1) shared(in_final, child_in_final, child_done)
    {
      in_final = omp_in_final();
#pragma omp task shared(child_in_final, child_done)
      {
        child_in_final = omp_in_final();
        child_done = 1;
      }
      /* Included: ran at once, before this line. */
      CHECK(child_done == 1);
    }
#pragma omp task untied shared(untied)
    __atomic_add_fetch(&untied, 1, __ATOMIC_SEQ_CST);
#pragma omp taskwait
    CHECK(in_final == 1);
    CHECK(child_in_final == 1);
    CHECK(untied == 1);
    CHECK(omp_in_final() == 0);
  }
  printf("tasks: if(0), final, untied ok\n");
}

static void test_depend(void)
{
  int x = 0, y = 0;
  int order[8], n = 0;
#pragma omp parallel shared(x, y, order, n)
#pragma omp single
  {
#pragma omp task depend(out : x) shared(x, order, n)
    {
      pause_us(3000);
      x = 1;
      order[__atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST)] = 1;
    }
#pragma omp task depend(inout : x) shared(x, order, n)
    {
      pause_us(2000);
      x = x * 10 + 2;
      order[__atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST)] = 2;
    }
    /* Two readers: both after the writers, in either order. */
#pragma omp task depend(in : x) shared(x, y, order, n)
    {
      CHECK(x == 12);
      __atomic_add_fetch(&y, 1, __ATOMIC_SEQ_CST);
      order[__atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST)] = 3;
    }
#pragma omp task depend(in : x) shared(x, y, order, n)
    {
      CHECK(x == 12);
      __atomic_add_fetch(&y, 1, __ATOMIC_SEQ_CST);
      order[__atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST)] = 3;
    }
#pragma omp task depend(out : x) shared(x, y, order, n)
    {
      CHECK(y == 2);
      x = x * 10 + 4;
      order[__atomic_fetch_add(&n, 1, __ATOMIC_SEQ_CST)] = 4;
    }
    /* An undeferred task with a dependence waits for the writer above. */
#pragma omp task if (0) depend(in : x) shared(x)
    CHECK(x == 124);
#pragma omp taskwait
  }
  CHECK(n == 5);
  CHECK(x == 124);
  int want[5] = {1, 2, 3, 3, 4};
  for (int i = 0; i < 5 && i < n; i++)
    CHECK(order[i] == want[i]);
  printf("tasks: depend chain %d%d%d%d%d\n", order[0], order[1], order[2], order[3], order[4]);
}

static void test_taskwait_taskgroup(void)
{
  int flags[4] = {0}, grand = 0, yielded = 0;
#pragma omp parallel shared(flags, grand, yielded)
#pragma omp single
  {
    for (int i = 0; i < 4; i++) {
#pragma omp task firstprivate(i) shared(flags)
      {
        pause_us(500);
        flags[i] = 1;
      }
    }
#pragma omp taskwait
    for (int i = 0; i < 4; i++)
      CHECK(flags[i] == 1);
#pragma omp taskgroup
    {
      for (int i = 0; i < 3; i++) {
#pragma omp task shared(grand)
        {
          /* Grandchildren: the taskgroup waits for them too. */
#pragma omp task shared(grand)
          {
            pause_us(1000);
            __atomic_add_fetch(&grand, 1, __ATOMIC_SEQ_CST);
          }
        }
      }
    }
    CHECK(grand == 3);
#pragma omp task shared(yielded)
    {
#pragma omp taskyield
      yielded = 1;
    }
#pragma omp taskwait
    CHECK(yielded == 1);
  }
  printf("tasks: taskwait, taskgroup (%d grandchildren), taskyield ok\n", grand);
}

#define LOOP_N 1000

static void test_taskloop(void)
{
  static int hits[LOOP_N];
  long sum = 0;
  memset(hits, 0, sizeof hits);
#pragma omp parallel shared(sum, hits)
#pragma omp single
  {
#pragma omp taskloop grainsize(10) shared(sum, hits)
    for (int i = 0; i < LOOP_N; i++) {
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
      __atomic_add_fetch(&sum, i, __ATOMIC_RELAXED);
    }
    CHECK(sum == (long)LOOP_N * (LOOP_N - 1) / 2);
#pragma omp taskloop num_tasks(7) shared(sum, hits)
    for (unsigned long i = 0; i < LOOP_N; i += 3)
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
  }
  for (int i = 0; i < LOOP_N; i++)
    CHECK(hits[i] == 1 + (i % 3 == 0));
  printf("tasks: taskloop sum %ld\n", sum);
}

int main(void)
{
  const char *det = getenv("MOCKRT_DETERMINISTIC");
  int deterministic = det && strcmp(det, "1") == 0;
  long f = 0;

  test_counter_and_barrier(deterministic);
#pragma omp parallel shared(f)
#pragma omp single
  f = fib(18);
  CHECK(f == 2584);
  printf("tasks: fib(18) = %ld\n", f);
  test_if0_final_untied();
  test_depend();
  test_taskwait_taskgroup();
  test_taskloop();
  /* Outside any region: the initial task's own tasks. */
  int outside = 0;
#pragma omp task shared(outside)
  outside = 1;
#pragma omp taskwait
  CHECK(outside == 1);
  if (failures) {
    fprintf(stderr, "omp_tasks: %d check(s) failed\n", failures);
    return 1;
  }
  printf("omp_tasks: all checks passed\n");
  return 0;
}
