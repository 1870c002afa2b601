/*
 * The ordered construct.  A loop's iterations take their turn in units: one
 * iteration under the __kmpc_* ABI (clang calls __kmpc_dispatch_fini_* after
 * each one), one chunk under GOMP (libgomp orders whole chunks, and gcc
 * calls nothing between the iterations of a chunk).  ws->ord is the first
 * iteration index whose unit may run its ordered regions; a unit passes the
 * turn on by storing its end there.
 *
 * A unit that ran no ordered region (the region is conditional) must still
 * take and pass its turn, or the units after it would wait forever: that is
 * mockrt_ordered_unit_end's job.  Waiting is in state wait_ordered with the
 * turn word as the wait id, as the mutex events name it.
 */
#include "mockrt.h"
#include "fault.h"

#include <sched.h>

#define MOCKRT_ID(p) ((ompt_wait_id_t)(uintptr_t)(p))

void mockrt_ordered_unit(mockrt_task_t *t, long first, long end)
{
  t->pos.ord_first = first;
  t->pos.ord_end = end;
  t->pos.ord_held = false;
  t->pos.ord_passed = false;
}

static void mockrt_ordered_wait(mockrt_task_t *t, const void *codeptr)
{
  mockrt_ws_t *ws = t->ws;
  mockrt_thread_t *self = &mockrt_self_tls;
  int prev = self->state;
  const void *id = &ws->ord;

  /* As for every mutex: the wait state is set before the acquire event. */
  mockrt_set_wait(self,
                  mockrt_fault(MOCKRT_FAULT_ORDERED_STATE_WRONG) ? ompt_state_wait_lock
                                                                 : ompt_state_wait_ordered,
                  mockrt_fault(MOCKRT_FAULT_ORDERED_WAIT_ID_WRONG) ? (const char *)id + 8 : id);
  if (codeptr && mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_ordered, 0, MOCKRT_MUTEX_IMPL_SPIN, MOCKRT_ID(id),
                              codeptr);
  while (atomic_load_explicit(&ws->ord, memory_order_acquire) != t->pos.ord_first)
    sched_yield();
  mockrt_set_state(self, prev);
  if (codeptr && mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_ordered, MOCKRT_ID(id), codeptr);
  t->pos.ord_held = true;
}

void mockrt_ordered_enter(mockrt_task_t *t, const void *codeptr)
{
  if (!t->ws || t->pos.ord_passed)
    return;
  if (!t->pos.ord_held) {
    mockrt_ordered_wait(t, codeptr);
    return;
  }
  /* A later ordered region of a unit that holds the turn: no wait, the same events and state. */
  mockrt_thread_t *self = &mockrt_self_tls;
  int prev = self->state;
  const void *id = &t->ws->ord;
  mockrt_set_wait(self, ompt_state_wait_ordered,
                  mockrt_fault(MOCKRT_FAULT_ORDERED_WAIT_ID_WRONG) ? (const char *)id + 8 : id);
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_ordered, 0, MOCKRT_MUTEX_IMPL_SPIN, MOCKRT_ID(id),
                              codeptr);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_ordered, MOCKRT_ID(id), codeptr);
}

static void mockrt_ordered_pass(mockrt_task_t *t)
{
  atomic_store_explicit(&t->ws->ord, t->pos.ord_end, memory_order_release);
  t->pos.ord_passed = true;
  t->pos.ord_held = false;
}

void mockrt_ordered_exit(mockrt_task_t *t, bool pass, const void *codeptr)
{
  if (!t->ws || !t->pos.ord_held)
    return;
  if (pass)
    mockrt_ordered_pass(t);
  if (mockrt_ompt.mutex_released)
    mockrt_ompt.mutex_released(ompt_mutex_ordered, MOCKRT_ID(&t->ws->ord), codeptr);
}

void mockrt_ordered_unit_end(mockrt_task_t *t)
{
  if (!t->ws || t->pos.ord_passed)
    return;
  if (!t->pos.ord_held)
    mockrt_ordered_wait(t, NULL);
  mockrt_ordered_pass(t);
}
