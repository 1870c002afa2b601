/*
 * Lock words with OMPT mutex events and wait states, shared by critical
 * sections, atomic fallbacks and the omp_*_lock API.  The wait id of a
 * mutex is the address of its lock word, which is what a tool uses to tie
 * a waiting thread to the thread that releases the lock.
 */
#include "mockrt.h"
#include "fault.h"

void mockrt_mutex_acquire(atomic_int *w, int kind, int wait_state, const void *codeptr)
{
  mockrt_thread_t *self = mockrt_self();
  int prev = self->state;
  ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)w;

  if (mockrt_fault(MOCKRT_FAULT_LOCK_WAIT_ID_WRONG))
    id += 8;
  if (mockrt_fault(MOCKRT_FAULT_CRITICAL_STATE_WRONG) && wait_state == ompt_state_wait_critical)
    wait_state = ompt_state_wait_lock;
  if (mockrt_fault(MOCKRT_FAULT_LOCK_STATE_MISSING) && wait_state == ompt_state_wait_lock)
    wait_state = prev;
  if (mockrt_fault(MOCKRT_FAULT_ATOMIC_STATE_WRONG) && wait_state == ompt_state_wait_atomic)
    wait_state = ompt_state_wait_critical;
  mockrt_set_wait(self, wait_state,
                  mockrt_fault(MOCKRT_FAULT_STATE_WAIT_ID_WRONG) ? (char *)w + 8 : (void *)w);
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(kind, 0 /* no hint */, MOCKRT_MUTEX_IMPL(kind), id, codeptr);
  mockrt_word_lock(w);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(kind, id, codeptr);
}

bool mockrt_mutex_try(atomic_int *w, int kind, const void *codeptr)
{
  ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)w;
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(kind, 0 /* no hint */, MOCKRT_MUTEX_IMPL(kind), id, codeptr);
  bool got = mockrt_word_trylock(w);
  if (got && mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(kind, id, codeptr);
  return got;
}

void mockrt_mutex_release(atomic_int *w, int kind, const void *codeptr)
{
  mockrt_word_unlock(w);
  if (mockrt_ompt.mutex_released)
    mockrt_ompt.mutex_released(kind, (ompt_wait_id_t)(uintptr_t)w, codeptr);
}
