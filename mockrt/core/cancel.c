/*
 * Cancellation of parallel regions, loops and sections.  As in libgomp and
 * libomp, cancel constructs do anything only when the cancel-var ICV is
 * true (OMP_CANCELLATION=true); otherwise they are no-ops that return false.
 *
 * A cancelled loop or sections construct hands out no more chunks (ws.c)
 * until the team has passed the construct's (cancellable) barrier;
 * a cancelled region releases the threads that wait in its cancellable
 * barriers.  Those barriers use a barrier of their own (team->cancel_barrier)
 * rather than the team's: a cancel leaves its counter inconsistent, and
 * the team's barrier must stay exact for the join.  After a cancel, every
 * cancellable barrier of the region returns at once, so the stale counter
 * is never read again.
 *
 * Events: cancel with ompt_cancel_activated when a thread cancels, and
 * ompt_cancel_detected when a thread finds the cancellation at a
 * cancellation point or a cancellable barrier, each with the construct's flag.
 */
#include "mockrt.h"
#include "fault.h"
#include "task.h"

#include <limits.h>

static void mockrt_cancel_event(mockrt_task_t *t, int kind, int what, const void *codeptr)
{
  if (mockrt_ompt.cancel)
    mockrt_ompt.cancel(&t->task_data,
                       mockrt_fault(MOCKRT_FAULT_CANCEL_FLAGS_WRONG) ? what : kind | what, codeptr);
}

/* Where the cancellation of kind is recorded, or NULL if there is nothing to cancel. */
static atomic_int *mockrt_cancel_word(mockrt_task_t *t, int kind)
{
  if (kind == ompt_cancel_parallel)
    return &t->team->cancelled;
  /* The innermost taskgroup around the task: one it opened, or the one it
   * was created in (task.c discards that group's tasks not yet started). */
  if (kind == ompt_cancel_taskgroup) {
    if (t->taskgroup)
      return &t->taskgroup->cancelled;
    mockrt_taskgroup_t *g = (t->flags & ompt_task_explicit) ? ((mockrt_xtask_t *)t)->group : NULL;
    return g ? &g->cancelled : NULL;
  }
  /* gcc open-codes static loops: a cancelled loop may have no ws at all. */
  if (kind == ompt_cancel_loop || kind == ompt_cancel_sections)
    return &t->team->ws_cancelled;
  return NULL;
}

bool mockrt_cancel(mockrt_task_t *t, int kind, const void *codeptr)
{
  if (!mockrt_icv.cancellation)
    return false;
  atomic_int *w = mockrt_cancel_word(t, kind);
  if (!w)
    return false;
  atomic_store_explicit(w, 1, memory_order_release);
  mockrt_cancel_event(t, kind, ompt_cancel_activated, codeptr);
  if (kind == ompt_cancel_parallel) {
    /* Waiters see a new generation, find the flag, and return cancelled. */
    mockrt_barrier_t *b = &t->team->cancel_barrier;
    atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
    mockrt_futex_wake(&b->gen, INT_MAX);
  }
  return true;
}

bool mockrt_cancel_point(mockrt_task_t *t, int kind, const void *codeptr)
{
  if (!mockrt_icv.cancellation)
    return false;
  atomic_int *w = mockrt_cancel_word(t, kind);
  if (!w || !atomic_load_explicit(w, memory_order_acquire))
    return false;
  mockrt_cancel_event(t, kind, ompt_cancel_detected, codeptr);
  return true;
}

bool mockrt_cancel_settle(mockrt_task_t *t, int kind, const void *codeptr)
{
  mockrt_team_t *team = t->team;
  bool region = atomic_load_explicit(&team->cancelled, memory_order_acquire);
  bool construct = atomic_load_explicit(&team->ws_cancelled, memory_order_acquire);
  if (!region && !construct)
    return false;
  /* Everyone has read the requests before anyone withdraws them. */
  mockrt_barrier_wait(t, kind, codeptr);
  if (region)
    atomic_store_explicit(&team->cancelled, 0, memory_order_relaxed);
  if (construct)
    atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
  return region;
}

bool mockrt_barrier_wait_cancel(mockrt_task_t *t, int kind, const void *codeptr)
{
  mockrt_team_t *team = t->team;
  /* A team of one (the initial team has no cancel barrier) never waits for anyone. */
  if (!mockrt_icv.cancellation || team->nthreads <= 1) {
    mockrt_barrier_wait(t, kind, codeptr);
    atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
    return mockrt_cancel_point(t, ompt_cancel_parallel, codeptr);
  }
  if (mockrt_cancel_point(t, ompt_cancel_parallel, codeptr))
    return true;

  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_barrier_t *b = &team->cancel_barrier;
  int prev = self->state;
  int wait_state = kind == ompt_sync_region_barrier_explicit ? ompt_state_wait_barrier_explicit
                                                             : ompt_state_wait_barrier_implicit;
  mockrt_ws_settle(t);
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(kind, ompt_scope_begin, &team->parallel_data, &t->task_data, codeptr);
  mockrt_set_wait(self, wait_state, b);
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_begin, &team->parallel_data, &t->task_data,
                                 codeptr);
  /* The team's tasks first: none may be pending once the barrier opens. */
  mockrt_task_drain(t);
  unsigned gen = atomic_load_explicit(&b->gen, memory_order_acquire);
  if (atomic_load_explicit(&team->cancelled, memory_order_acquire)) {
    /* Cancelled between the check and the load of gen: do not arrive at all. */
  } else if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
    /* Everyone has left the construct a cancel for/sections was about. */
    atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
    mockrt_futex_wake(&b->gen, INT_MAX);
  } else {
    /* Unset OMP_WAIT_POLICY sleeps at once here; active spins first. */
    int spins = 0;
    while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen) {
      if (!mockrt_spin(&spins, 0))
        mockrt_futex_wait(&b->gen, gen);
    }
  }
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_end, &team->parallel_data, &t->task_data,
                                 codeptr);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(kind, ompt_scope_end, &team->parallel_data, &t->task_data, codeptr);
  return mockrt_cancel_point(t, ompt_cancel_parallel, codeptr);
}
