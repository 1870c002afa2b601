/*
 * GOMP barrier, critical and atomic entry points.  Each sets the current
 * task's enter frame to its own CFA before it can block or call a tool, and
 * clears it before returning to user code.
 */
#include "gomp.h"

/* gcc's unnamed critical sections all share one lock; atomics another. */
static atomic_int mockrt_gomp_critical_lock;
static atomic_int mockrt_gomp_atomic_lock;

MOCKRT_EXPORT void GOMP_barrier(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_barrier_wait(t, ompt_sync_region_barrier_explicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_critical_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_acquire(&mockrt_gomp_critical_lock, ompt_mutex_critical, ompt_state_wait_critical,
                       __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_critical_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_release(&mockrt_gomp_critical_lock, ompt_mutex_critical,
                       __builtin_return_address(0));
  mockrt_frame_leave(t);
}

/*
 * A named critical section passes the address of a zeroed pointer-sized
 * variable private to that name.  A lock word fits in it, so its first four
 * bytes are the lock and nothing needs allocating (libgomp does the same).
 */
MOCKRT_EXPORT void GOMP_critical_name_start(void **pptr)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_acquire((atomic_int *)pptr, ompt_mutex_critical, ompt_state_wait_critical,
                       __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_critical_name_end(void **pptr)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_release((atomic_int *)pptr, ompt_mutex_critical, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_atomic_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_acquire(&mockrt_gomp_atomic_lock, ompt_mutex_atomic, ompt_state_wait_atomic,
                       __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_atomic_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_release(&mockrt_gomp_atomic_lock, ompt_mutex_atomic, __builtin_return_address(0));
  mockrt_frame_leave(t);
}
