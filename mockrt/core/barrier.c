/*
 * Team barriers: a central counter and a generation word.  The last thread
 * to arrive resets the counter and bumps the generation; the others spin
 * briefly and then sleep on the generation word, so a long wait costs no
 * CPU (which matters for blame: an idle thread should look idle).  How
 * long they spin is OMP_WAIT_POLICY's (mockrt_spin).
 */
#include "mockrt.h"
#include "fault.h"

#include <limits.h>

void mockrt_barrier_init(mockrt_barrier_t *b, unsigned n)
{
  atomic_init(&b->arrived, 0);
  atomic_init(&b->gen, 0);
  b->n = n;
}

/* Inlined into both barrier paths: as a call it cost the tool-less path a
 * fifth of its instructions. */
static inline __attribute__((always_inline)) void mockrt_barrier_block(mockrt_barrier_t *b)
{
  unsigned gen = atomic_load_explicit(&b->gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
    /* No one arrives for the next round before the generation moves on. */
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
    mockrt_futex_wake(&b->gen, INT_MAX);
    return;
  }
  int spins = 0;
  while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen) {
    if (!mockrt_spin(&spins, MOCKRT_SPIN_WAIT))
      mockrt_futex_wait(&b->gen, gen);
  }
}

/* The barrier as a tool sees it: events, the wait state and its wait id.
 * The end events name the region when join is false; the join barrier's
 * name none, as libomp 14's (the team may be gone when a worker leaves). */
__attribute__((noinline, cold)) void mockrt_barrier_wait_observed_ex(mockrt_task_t *task, int kind,
                                                                     const void *codeptr, bool join)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_team_t *team = task->team;
  int wait_state = kind == ompt_sync_region_barrier_explicit ? ompt_state_wait_barrier_explicit
                                                             : ompt_state_wait_barrier_implicit;
  int prev = self->state;

  /* A single construct's executor is done once it reaches a barrier. */
  mockrt_ws_settle(task);
  bool early_wait = mockrt_fault(MOCKRT_FAULT_SYNC_WAIT_BEFORE_REGION);
  if (early_wait && mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_begin, &team->parallel_data, &task->task_data,
                                 codeptr);
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(kind, ompt_scope_begin, &team->parallel_data, &task->task_data,
                            codeptr);
  if (mockrt_fault(MOCKRT_FAULT_BARRIER_STATE_WRONG))
    wait_state = ompt_state_work_parallel;
  if (mockrt_fault(MOCKRT_FAULT_BARRIER_KIND_WRONG) && kind == ompt_sync_region_barrier_explicit)
    wait_state = ompt_state_wait_barrier_implicit;
  if (mockrt_fault(MOCKRT_FAULT_ENTER_FRAME_MISSING) && kind == ompt_sync_region_barrier_explicit)
    mockrt_frame_leave(task);
  /* As libomp 14, the wait state comes after the begin events. */
  if (!early_wait && mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_begin, &team->parallel_data, &task->task_data,
                                 codeptr);
  mockrt_set_wait(self, wait_state, &team->barrier);
  /* Waiting threads run the team's tasks; none leaves while tasks are pending. */
  unsigned gen = atomic_load_explicit(&team->barrier.gen, memory_order_relaxed);
  if (!mockrt_task_barrier(task))
    mockrt_barrier_block(&team->barrier);
  ompt_data_t *ended = join ? NULL : &team->parallel_data;
  /* libomp 14's join has no code address at its end when tasks were created
   * since the team's last barrier (it ends through its tasking path). */
  if (join && atomic_load_explicit(&team->task_gen, memory_order_relaxed) == gen + 1)
    codeptr = NULL;
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_end, ended, &task->task_data, codeptr);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.sync_region && !(mockrt_fault(MOCKRT_FAULT_SYNC_REGION_END_DROPPED) &&
                                   kind == ompt_sync_region_barrier_explicit))
    mockrt_ompt.sync_region(kind, ompt_scope_end, ended, &task->task_data, codeptr);
}

void mockrt_barrier_wait_observed(mockrt_task_t *task, int kind, const void *codeptr)
{
  mockrt_barrier_wait_observed_ex(task, kind, codeptr, false);
}

/* No tool: nothing to report and no state to keep. */
static inline __attribute__((always_inline)) void mockrt_barrier_wait_unseen(mockrt_task_t *task)
{
  mockrt_ws_settle(task);
  if (!mockrt_task_barrier(task))
    mockrt_barrier_block(&task->team->barrier);
}

void mockrt_barrier_wait_plain(mockrt_task_t *task, int kind, const void *codeptr)
{
  (void)kind;
  (void)codeptr;
  mockrt_barrier_wait_unseen(task);
}

void mockrt_barrier_wait(mockrt_task_t *task, int kind, const void *codeptr)
{
  /* One test of the tool flag is all OMPT costs here (bench/ompt_overhead). */
  if (MOCKRT_OMPT_ON)
    mockrt_barrier_wait_observed(task, kind, codeptr);
  else
    mockrt_barrier_wait_unseen(task);
}
