/*
 * The program the OMPT checker watches for explicit tasks: deferred tasks
 * run by any thread (some while others wait in a barrier), recursive tasks
 * with taskwait, dependences, if(0), final (included) tasks, a taskgroup, a
 * taskloop, a taskyield, (clang only) a task that asks for its memory,
 * and tasks in a nested region (their ancestors run
 * out through both regions to the initial task).  Every task body probes
 * the checker (checker.h) with the address of one of its locals.  A task
 * that another thread runs while its creator waits for it in a taskwait,
 * or at the end of a taskgroup, has the checker sample the creator there.
 * Built by gcc and by clang; the checker decides pass or fail, and this
 * program only checks that the tasks computed the right results.
 */
#include "checker.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#if defined(__clang__)
/* What the task that asks for its memory saw of its firstprivate. */
static long memory_seen;
#endif

static int probe(int v)
{
  volatile int local = v;
  knit_ompt_checker_task_probe((const void *)&local);
  return local;
}

static int sum_tree(int depth)
{
  int a = 0, b = 0;
  probe(depth);
  if (depth == 0)
    return 1;
#pragma omp task shared(a)
  a = sum_tree(depth - 1);
#pragma omp task shared(b) final(depth < 3)
  b = sum_tree(depth - 1);
#pragma omp taskwait
  return a + b;
}

/*
 * Spins until another thread has started the task that sets *started, so
 * that its creator goes on to wait for it rather than run it; gives up
 * after half a second (a runtime may run a task only on its creator, as the
 * mock's deterministic mode does: the task then runs in the wait, and the
 * checker sees no one to sample).
 */
static void taken_elsewhere(const int *started)
{
  double give_up = omp_get_wtime() + 0.5;
  while (!__atomic_load_n(started, __ATOMIC_ACQUIRE) && omp_get_wtime() < give_up)
    ;
}

/* A task that has the checker sample its creator while the creator waits
 * for it (what: a taskwait or the end of a taskgroup that follows). */
static void watched_child(int what, int *count, int *started)
{
  __atomic_store_n(started, 0, __ATOMIC_RELAXED);
#pragma omp task
  {
    __atomic_store_n(started, 1, __ATOMIC_RELEASE);
    knit_ompt_checker_await(what, NULL);
    __atomic_add_fetch(count, probe(1), __ATOMIC_RELAXED);
  }
  taken_elsewhere(started);
}

/* The events this program causes on any runtime that offers them. */
static const unsigned long long exercised =
    KNIT_CHECKER_REGION_EVENTS | KNIT_CHECKER_EVENT(ompt_callback_task_create) |
    KNIT_CHECKER_EVENT(ompt_callback_task_schedule) | KNIT_CHECKER_EVENT(ompt_callback_dependences);

int main(void)
{
  int count = 0, x = 0, tree = 0, looped = 0, nested = 0, started = 0;
  omp_lock_t lock;

  knit_ompt_checker_program(KNIT_CHECKER_ABI, exercised);

  /* Registered before omp_init_lock, whose lock_init event names it. */
  memset(&lock, 0, sizeof lock);
  knit_ompt_checker_lock(&lock);
  omp_init_lock(&lock);
#pragma omp parallel shared(count, x, tree, looped, lock)
  {
    /* The checker asks every callback answered 'always' for events: the
     * __kmpc_* runtimes dispatch masked (gcc open-codes master). */
#pragma omp master
    __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); /* no probe: probes come from task bodies */
#pragma omp single
    {
      /* First, while no other task is queued: the creator waits with nothing else to run. */
      watched_child(KNIT_CHECKER_WAIT_TASKWAIT, &count, &started);
#pragma omp taskwait
#pragma omp taskgroup
      watched_child(KNIT_CHECKER_WAIT_TASKGROUP, &count, &started);
      for (int i = 0; i < 16; i++) {
#pragma omp task shared(count, lock)
        {
          /* A task that takes a lock: the lock events come from tasks too. */
          omp_set_lock(&lock);
          count += probe(1);
          omp_unset_lock(&lock);
        }
      }
#pragma omp task depend(out : x) shared(x)
      x = probe(1);
#pragma omp task depend(inout : x) shared(x)
      x += probe(2);
#pragma omp task depend(in : x) shared(x, count)
      __atomic_add_fetch(&count, probe(x == 3), __ATOMIC_RELAXED);
#pragma omp task if (0) shared(count)
      __atomic_add_fetch(&count, probe(1), __ATOMIC_RELAXED);
#pragma omp taskgroup
      {
#pragma omp task shared(tree)
        tree = sum_tree(5);
      }
#pragma omp taskloop grainsize(4) shared(looped)
      for (int i = 0; i < 32; i++)
        __atomic_add_fetch(&looped, probe(1), __ATOMIC_RELAXED);
#if defined(__clang__)
      {
        /* A firstprivate and nothing shared (the global is not captured): in
         * clang's layout the variable ends the task's data block, which
         * ompt_get_task_memory must hold whole. */
        long fp = 42;
#pragma omp task firstprivate(fp)
        {
          knit_ompt_checker_task_memory(&fp, sizeof fp);
          __atomic_add_fetch(&memory_seen, fp, __ATOMIC_RELAXED);
        }
      }
#endif
#pragma omp task shared(count)
      {
#pragma omp taskyield
        __atomic_add_fetch(&count, probe(1), __ATOMIC_RELAXED);
      }
    }
  }
  /* A task's ancestors through two regions: its creator, the outer implicit task, the initial task. */
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) shared(nested)
#pragma omp parallel num_threads(2) shared(nested)
  {
#pragma omp task shared(nested)
    __atomic_add_fetch(&nested, probe(1), __ATOMIC_RELAXED);
  }
  omp_destroy_lock(&lock);
#if defined(__clang__)
  if (memory_seen != 42) {
    fprintf(stderr, "prog_tasks: the firstprivate task saw %ld\n", memory_seen);
    return 1;
  }
#endif
  if (count != 2 + 16 + 1 + 1 + 1 + 1 || x != 3 || tree != 32 || looped != 32 || nested != 4) {
    fprintf(stderr, "prog_tasks: count %d x %d tree %d looped %d nested %d are wrong\n", count, x,
            tree, looped, nested);
    return 1;
  }
  return 0;
}
