/* Undirected blame's bookkeeping (ompt/blame.c): which OpenMP threads are
 * idle when a working thread is sampled, through thread begins and ends,
 * implicit tasks and waits, with more threads than the board has lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <omp-tools.h>

#include "cct/cct.h"
#include "core/thread.h"
#include "core/trace.h"
#include "measure/format.h"
#include "ompt/blame.h"

/* blame.c reads the registry only for unclaimed mutex waits. */
knit_thread *knit_thread_list(void)
{
  return NULL;
}

/* The trace's side (core/trace.c): what blame.c tells it, in order, as
 * (kind or state) codes: 'I'/'i' idle or not, 'L'/'l' waiting for a mutex
 * or not, and the transition kinds as digits. */
static char told[64];
static size_t told_count;

static void tell(char c)
{
  if (told_count + 1 < sizeof told)
    told[told_count++] = c;
  told[told_count] = '\0';
}

void knit_trace_idle(knit_thread *t, bool idle)
{
  (void)t;
  tell(idle ? 'I' : 'i');
}

void knit_trace_lock_wait(knit_thread *t, bool waiting)
{
  (void)t;
  tell(waiting ? 'L' : 'l');
}

void knit_trace_transition(knit_thread *t, uint32_t kind)
{
  (void)t;
  tell((char)('0' + kind));
}

static const knit_sample_state working = {true, ompt_state_work_parallel, 0, NULL, 0};

/* The OMP_IDLE a one-period sample of t charges. */
static uint64_t idle_charged(knit_thread *t)
{
  knit_cct_node node = {0};
  knit_blame_sample(t, &node, 1, &working);
  return node.metrics[KNIT_METRIC_OMP_IDLE];
}

static knit_thread *new_thread(void)
{
  return calloc(1, sizeof(knit_thread));
}

static void test_pool_threads_are_idle_until_they_work(void **state)
{
  (void)state;
  knit_thread *master = new_thread(), *w1 = new_thread(), *w2 = new_thread();
  knit_blame_thread_begin(master, true);
  assert_int_equal(idle_charged(master), 0); /* alone: nobody idles */
  knit_blame_thread_begin(w1, false);
  knit_blame_thread_begin(w2, false);
  /* Two idle pool threads, one working: twice the sample. */
  assert_int_equal(idle_charged(master), 2 * KNIT_BLAME_SCALE);
  knit_blame_implicit_task(w1, true);
  knit_blame_implicit_task(w2, true);
  assert_int_equal(idle_charged(master), 0);
  /* w2 waits in a barrier: one idle, shared by two working threads. */
  knit_blame_wait(w2, true);
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE / 2);
  knit_blame_wait(w2, false);
  knit_blame_implicit_task(w2, false);
  knit_blame_thread_end(w2);
  /* Gone threads no longer count, idle or not. */
  assert_int_equal(idle_charged(master), 0);
  knit_blame_implicit_task(w1, false);
  knit_blame_thread_end(w1);
  knit_blame_thread_end(master);
  free(master);
  free(w1);
  free(w2);
}

/* A thread that runs an explicit task inside its wait works while the
 * task runs, nested tasks and waits included; between tasks it waits, and
 * its own samples then take no one's idleness, whatever its state says
 * (libomp looks for tasks in a taskwait in a working state). */
static void test_tasks_run_inside_waits_are_work(void **state)
{
  (void)state;
  knit_thread *master = new_thread(), *w = new_thread();
  knit_blame_thread_begin(master, true);
  knit_blame_thread_begin(w, false);
  knit_blame_implicit_task(w, true);
  knit_blame_wait(w, true); /* a barrier */
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE);
  assert_int_equal(idle_charged(w), 0);
  knit_blame_task_runs(w, true); /* a task, inside the barrier */
  assert_int_equal(idle_charged(master), 0);
  knit_blame_wait(w, true); /* the task's taskwait */
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE);
  knit_blame_task_runs(w, true); /* a child task, inside the taskwait */
  assert_int_equal(idle_charged(master), 0);
  /* The master waits: the worker's samples take its idleness. */
  knit_blame_wait(master, true);
  assert_int_equal(idle_charged(w), KNIT_BLAME_SCALE);
  knit_blame_wait(master, false);
  knit_blame_task_runs(w, false); /* back in the taskwait */
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE);
  knit_blame_wait(w, false);
  assert_int_equal(idle_charged(master), 0);
  knit_blame_task_runs(w, false); /* back in the barrier */
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE);
  knit_blame_wait(w, false);
  assert_int_equal(idle_charged(master), 0);
  /* An end without a begin changes nothing. */
  knit_blame_task_runs(w, false);
  assert_int_equal(idle_charged(master), 0);
  knit_blame_implicit_task(w, false);
  knit_blame_thread_end(w);
  knit_blame_thread_end(master);
  free(master);
  free(w);
}

/* Tasks nested deeper than the bits kept: the waits of the levels past
 * them stay counted, and every level comes back as it was. */
static void test_deep_task_nesting(void **state)
{
  (void)state;
  knit_thread *master = new_thread(), *w = new_thread();
  knit_blame_thread_begin(master, true);
  knit_blame_thread_begin(w, false);
  knit_blame_implicit_task(w, true);
  enum { DEPTH = 100 };
  for (int i = 0; i < DEPTH; i++) {
    knit_blame_wait(w, true);
    knit_blame_task_runs(w, true);
  }
  /* Past 64 levels a task in a wait is still counted waiting. */
  assert_int_equal(idle_charged(master), KNIT_BLAME_SCALE);
  for (int i = 0; i < DEPTH; i++) {
    knit_blame_task_runs(w, false);
    knit_blame_wait(w, false);
  }
  assert_int_equal(w->omp_waits, 0);
  assert_int_equal(idle_charged(master), 0);
  knit_blame_implicit_task(w, false);
  knit_blame_thread_end(w);
  knit_blame_thread_end(master);
  free(master);
  free(w);
}

/* More threads than lines on the board: the rest share counters, and the
 * count stays exact through begins and ends in any order. */
static void test_more_threads_than_lines(void **state)
{
  (void)state;
  enum { N = 1100 };
  knit_thread **t = calloc(N, sizeof *t);
  for (int i = 0; i < N; i++) {
    t[i] = new_thread();
    knit_blame_thread_begin(t[i], i == 0);
  }
  assert_int_equal(idle_charged(t[0]), (uint64_t)(N - 1) * KNIT_BLAME_SCALE);
  /* Half of the pool goes to work, on the board and beyond it. */
  int busy = 0;
  for (int i = 1; i < N; i += 2, busy++)
    knit_blame_implicit_task(t[i], true);
  uint64_t idle = (uint64_t)(N - 1 - busy), work = (uint64_t)(1 + busy);
  assert_int_equal(idle_charged(t[0]), idle * KNIT_BLAME_SCALE / work);
  /* Threads on the board end, and new ones take their lines. */
  for (int i = 2; i < 40; i += 2) {
    knit_blame_thread_end(t[i]);
    knit_blame_thread_begin(t[i], false);
  }
  assert_int_equal(idle_charged(t[0]), idle * KNIT_BLAME_SCALE / work);
  for (int i = N - 1; i >= 0; i--) {
    knit_blame_thread_end(t[i]);
    free(t[i]);
  }
  free(t);
}

/* What the trace is told: a worker idles in its pool until its implicit
 * task and after it, its barrier waits are transitions (only for a thread
 * that traces), and a mutex wait lasts until the mutex is acquired. A
 * thread that does not trace tells it nothing. */
static void test_trace_told_the_states(void **state)
{
  (void)state;
  knit_thread *master = new_thread(), *w = new_thread();
  w->trace = (struct knit_trace_state *)w; /* traced: any non-null state */
  told_count = 0;
  knit_blame_thread_begin(master, true);
  knit_blame_implicit_task(master, true);
  knit_blame_thread_begin(w, false);
  assert_string_equal(told, "I");
  told_count = 0;
  knit_blame_implicit_task(w, true);
  knit_blame_wait(w, true);
  knit_blame_wait(w, false);
  knit_blame_implicit_task(w, false);
  assert_string_equal(told, "i34I");
  told_count = 0;
  knit_blame_acquire(w, 0x1234);
  knit_blame_acquired(w, 0x1234);
  knit_blame_acquire(w, 0x99);
  knit_blame_acquire(w, 0); /* waits for nothing any more (GOMP wrappers) */
  assert_string_equal(told, "LlLl");
  told_count = 0;
  knit_blame_thread_end(w);
  knit_blame_implicit_task(master, false);
  knit_blame_wait(master, true); /* not traced: nothing told */
  knit_blame_wait(master, false);
  assert_string_equal(told, "i");
  knit_blame_thread_end(master);
  free(master);
  free(w);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_threads_are_idle_until_they_work),
      cmocka_unit_test(test_tasks_run_inside_waits_are_work),
      cmocka_unit_test(test_deep_task_nesting),
      cmocka_unit_test(test_more_threads_than_lines),
      cmocka_unit_test(test_trace_told_the_states),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
