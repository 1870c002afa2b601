/*
 * Shared declarations of the GNU personality (gcc's GOMP_* ABI).
 */
#ifndef MOCKRT_GOMP_GOMP_H
#define MOCKRT_GOMP_GOMP_H

#include "../core/fault.h"
#include "../core/mockrt.h"

/*
 * The body of every parallel entry point.  It is always inlined so that the
 * entry point itself calls the outlined function, which gives the master
 * the libgomp layout: user frame -> GOMP_parallel -> fn.  cfa and ra are
 * evaluated by the entry point and passed in for the same reason.
 */
static inline __attribute__((always_inline)) void
mockrt_gomp_run_region(void (*fn)(void *), void *data, unsigned nthreads, void *cfa,
                       const void *ra, mockrt_team_init_fn init, void *arg)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  mockrt_team_t team;
  mockrt_task_t task;

  /* Read once: with no tool no frame is kept (bench/ompt_overhead). */
  const bool tool = MOCKRT_OMPT_ON;

  if (tool)
    mockrt_frame_enter(enc, cfa);
  mockrt_fork_ex(&team, &task, fn, data, nthreads, ra, init, arg);
  if (tool) {
    mockrt_frame_exit(&task, cfa);
    if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_WRONG))
      mockrt_fault_exit_frame(&task, (char *)cfa - 65536);
    /* Two words into the program's frame that called the entry point. */
    if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_NOT_CALLERS))
      mockrt_fault_exit_frame(&task, (char *)cfa + 16);
  }
  fn(data);
  if (tool)
    mockrt_frame_unexit(&task);
  mockrt_join(&team, &task, cfa);
  if (tool)
    mockrt_frame_leave(enc);
}

#endif
