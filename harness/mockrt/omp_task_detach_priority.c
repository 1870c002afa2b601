/*
 * Task priorities and detachable tasks (detach clause, omp_fulfill_event),
 * with results checked:
 * - omp_get_max_task_priority() is OMP_MAX_TASK_PRIORITY (0 without it);
 * - with it at 8 or more, tasks of distinct priorities that wait together
 *   are started in decreasing priority by the thread that waits for them
 *   (the other threads are kept busy outside any scheduling point).  A
 *   priority is only a hint: libomp 14 ignores it (it runs them last in,
 *   first out), so its run passes --any-priority-order;
 * - a detachable task whose event is fulfilled after the body has ended
 *   (by a plain pthread, or for the barrier by another thread of the team)
 *   stays incomplete until then: taskwait, a dependent task, a barrier and
 *   a taskgroup end all wait for the fulfilment;
 * - an event fulfilled by the body itself (deferred and if(0)) completes
 *   the task with its body.
 *
 * Built by gcc (GOMP_* ABI) and by clang (__kmpc_* ABI); run on the mocks
 * and on the real runtimes with the same expectations.  The program is its
 * own OMPT tool; with --ompt-detach (the mocks) the task_schedule events of
 * detachable tasks are checked: a body that ends first is switched out
 * with ompt_task_detach, and the fulfilment reports ompt_task_complete with
 * no next task (OpenMP 5.0: mock-gomp) or ompt_task_late_fulfill (5.1, as
 * libomp 14 does: the __kmpc_* mocks); an event fulfilled while the body
 * runs is ompt_task_early_fulfill with no next task there (5.1) or nothing
 * (5.0), and the body's end an ordinary complete (libgomp 12 reports
 * nothing).  Exit status 0 means every check passed.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int load(const int *p)
{
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(int *p, int v)
{
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* ---- OMPT: the task_schedule events of every explicit task ---- */

#define MAX_TASKS 4096
enum { T_CREATED = 1, T_RUNNING, T_DETACHED, T_COMPLETE };
static unsigned char task_state[MAX_TASKS];
static int n_tasks, n_detach, n_fulfil_complete, n_bad_schedule;
static pthread_mutex_t tool_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_task_create(ompt_data_t *enc, const ompt_frame_t *enc_frame, ompt_data_t *task,
                           int flags, int has_deps, const void *codeptr)
{
  (void)enc;
  (void)enc_frame;
  (void)has_deps;
  (void)codeptr;
  if (!(flags & ompt_task_explicit))
    return;
  pthread_mutex_lock(&tool_mu);
  if (n_tasks < MAX_TASKS) {
    task->value = (uint64_t)n_tasks + 1;
    task_state[n_tasks++] = T_CREATED;
  }
  pthread_mutex_unlock(&tool_mu);
}

static unsigned char *state_of(ompt_data_t *d)
{
  return d && d->value >= 1 && d->value <= (uint64_t)n_tasks ? &task_state[d->value - 1] : NULL;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
  pthread_mutex_lock(&tool_mu);
  unsigned char *p = state_of(prior), *n = state_of(next);
  switch (status) {
  case ompt_task_detach:
    n_detach++;
    if (!p || *p != T_RUNNING || !next)
      n_bad_schedule++;
    else
      *p = T_DETACHED;
    break;
  case ompt_task_early_fulfill:
    /* The event, while the body runs: its end is an ordinary complete. */
    if (!p || *p != T_RUNNING || next)
      n_bad_schedule++;
    break;
  case ompt_task_late_fulfill:
  case ompt_task_complete:
    if (!next) {
      /* The fulfilment of a detached task. */
      n_fulfil_complete++;
      if (!p || *p != T_DETACHED)
        n_bad_schedule++;
    } else if (p && *p != T_RUNNING) {
      n_bad_schedule++;
    }
    if (p)
      *p = T_COMPLETE;
    break;
  default:
    if (n) {
      if (*n != T_CREATED)
        n_bad_schedule++;
      *n = T_RUNNING;
    }
    break;
  }
  pthread_mutex_unlock(&tool_mu);
}

static int tool_on;

static int tool_init(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
  (void)initial_device;
  (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  tool_on =
      set_callback(ompt_callback_task_create, (ompt_callback_t)on_task_create) == ompt_set_always &&
      set_callback(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule) ==
          ompt_set_always;
  return 1;
}

static void tool_fini(ompt_data_t *tool_data)
{
  (void)tool_data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_init, tool_fini, {0}};
  (void)omp_version;
  (void)runtime_version;
  return &result;
}

/* ---- priorities ---- */

#define NPRIO 8

static void test_priority(int max, int any_order)
{
  static const int prio[NPRIO] = {3, 8, 1, 6, 2, 7, 5, 4};
  int order[NPRIO] = {0}, pos = 0, released = 0, team = 0;
#pragma omp parallel shared(order, pos, released, team)
  {
    if (omp_get_thread_num() == 0) {
      team = omp_get_num_threads();
      for (int i = 0; i < NPRIO; i++) {
#pragma omp task firstprivate(i) shared(order, pos) priority(prio[i])
        order[__atomic_fetch_add(&pos, 1, __ATOMIC_SEQ_CST)] = prio[i];
      }
#pragma omp taskwait
      store(&released, 1);
    } else {
      /* Busy in the program, at no scheduling point: thread 0 runs them all. */
      while (!load(&released))
        pause_us(100);
    }
  }
  CHECK(pos == NPRIO);
  if (max < NPRIO || team < 2 || any_order) {
    printf("priority order not checked (max task priority %d, %d threads%s)\n", max, team,
           any_order ? ", --any-priority-order" : "");
    return;
  }
  for (int k = 0; k < NPRIO; k++) {
    if (order[k] != NPRIO - k)
      fprintf(stderr, "task %d started had priority %d, want %d\n", k, order[k], NPRIO - k);
    CHECK(order[k] == NPRIO - k);
  }
}

/* ---- detachable tasks ---- */

/* Fulfils ev from a thread the runtime does not know, once the body has ended. */
typedef struct fulfiller {
  omp_event_handle_t ev;
  int *body_done;
  int fulfilled;
  pthread_t thread;
} fulfiller_t;

static void *fulfil_later(void *arg)
{
  fulfiller_t *f = arg;
  for (int w = 0; w < 100000 && !load(f->body_done); w++)
    pause_us(100);
  pause_us(20000);
  store(&f->fulfilled, 1);
  omp_fulfill_event(f->ev);
  return NULL;
}

static void fulfil_start(fulfiller_t *f, omp_event_handle_t ev, int *body_done)
{
  f->ev = ev;
  f->body_done = body_done;
  f->fulfilled = 0;
  if (pthread_create(&f->thread, NULL, fulfil_later, f) != 0) {
    fprintf(stderr, "pthread_create failed\n");
    exit(1);
  }
}

static void test_detach_taskwait(void)
{
  fulfiller_t f;
  int body_done = 0;
#pragma omp parallel shared(f, body_done)
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body_done)
    store(&body_done, 1);
    fulfil_start(&f, ev, &body_done);
#pragma omp taskwait
    CHECK(load(&f.fulfilled) == 1);
  }
  pthread_join(f.thread, NULL);
}

static void test_detach_depend(void)
{
  fulfiller_t f;
  int body_done = 0, x = 0, seen = 0;
#pragma omp parallel shared(f, body_done, x, seen)
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(body_done, x)
    {
      x = 1;
      store(&body_done, 1);
    }
    fulfil_start(&f, ev, &body_done);
#pragma omp task depend(in : x) shared(f, x, seen)
    {
      CHECK(load(&f.fulfilled) == 1);
      CHECK(x == 1);
      seen = 1;
    }
#pragma omp taskwait
  }
  CHECK(seen == 1);
  pthread_join(f.thread, NULL);
}

/*
 * The barrier waits for the fulfilment.  It comes from the team's last
 * thread here, not from a foreign one: libgomp 12 never wakes a team
 * waiting in a barrier for an event that a thread outside the team fulfils.
 */
static void test_detach_barrier(void)
{
  int body_done = 0, published = 0, fulfilled = 0;
  omp_event_handle_t shared_ev;
  memset(&shared_ev, 0, sizeof shared_ev);
#pragma omp parallel shared(body_done, published, fulfilled, shared_ev)
  {
    int n = omp_get_num_threads();
#pragma omp single nowait
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body_done)
      store(&body_done, 1);
      shared_ev = ev;
      store(&published, 1);
    }
    if (omp_get_thread_num() == n - 1) {
      while (!load(&published))
        pause_us(100);
      /* Alone, the thread could not run the body while it waits here. */
      for (int w = 0; n > 1 && w < 100000 && !load(&body_done); w++)
        pause_us(100);
      pause_us(20000);
      store(&fulfilled, 1);
      omp_fulfill_event(shared_ev);
    }
#pragma omp barrier
    CHECK(load(&fulfilled) == 1);
  }
}

static void test_detach_taskgroup(void)
{
  fulfiller_t f;
  int body_done = 0;
#pragma omp parallel shared(f, body_done)
#pragma omp single
  {
#pragma omp taskgroup
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body_done)
      store(&body_done, 1);
      fulfil_start(&f, ev, &body_done);
    }
    CHECK(load(&f.fulfilled) == 1);
  }
  pthread_join(f.thread, NULL);
}

/* Fulfilled by the body itself: the task completes with its body, deferred or not. */
static void test_detach_early(void)
{
  int done = 0;
#pragma omp parallel shared(done)
#pragma omp single
  {
    for (int i = 0; i < 4; i++) {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(done)
      {
        omp_fulfill_event(ev);
        __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
      }
    }
    omp_event_handle_t ev0;
#pragma omp task detach(ev0) if (0) shared(done)
    {
      omp_fulfill_event(ev0);
      __atomic_add_fetch(&done, 1, __ATOMIC_SEQ_CST);
    }
    CHECK(load(&done) >= 1);
#pragma omp taskwait
    CHECK(load(&done) == 5);
  }
}

int main(int argc, char **argv)
{
  int ompt_detach = 0, any_order = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ompt-detach") == 0)
      ompt_detach = 1;
    else if (strcmp(argv[i], "--any-priority-order") == 0)
      any_order = 1;
  }
  const char *env = getenv("OMP_MAX_TASK_PRIORITY");
  int want_max = env ? atoi(env) : 0;
  int max = omp_get_max_task_priority();
  CHECK(max == (want_max > 0 ? want_max : 0));

  test_priority(max, any_order);
  test_detach_taskwait();
  test_detach_depend();
  test_detach_barrier();
  test_detach_taskgroup();
  test_detach_early();

  if (ompt_detach) {
    CHECK(tool_on);
    pthread_mutex_lock(&tool_mu);
    /* Four events are fulfilled late (at least one surely is); each detach has its completion. */
    if (n_detach < 1 || n_detach != n_fulfil_complete || n_bad_schedule)
      fprintf(stderr, "task_schedule: %d detach, %d completions at fulfilment, %d bad\n", n_detach,
              n_fulfil_complete, n_bad_schedule);
    CHECK(n_detach >= 1 && n_detach <= 4);
    CHECK(n_detach == n_fulfil_complete);
    CHECK(n_bad_schedule == 0);
    for (int i = 0; i < n_tasks; i++)
      CHECK(task_state[i] == T_COMPLETE);
    pthread_mutex_unlock(&tool_mu);
  }
  printf("omp_task_detach_priority: %s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
