/*
 * GOMP cancellation: cancel and cancellation point constructs and the
 * cancellable barrier (core/cancel.c does the work).  gcc names the
 * construct with libgomp's GOMP_CANCEL_* bits; taskgroup cancellation
 * belongs to explicit tasks and is not handled here.
 */
#include "gomp.h"

enum {
  MOCKRT_GOMP_CANCEL_PARALLEL = 1,
  MOCKRT_GOMP_CANCEL_LOOP = 2,
  MOCKRT_GOMP_CANCEL_SECTIONS = 4,
  MOCKRT_GOMP_CANCEL_TASKGROUP = 8
};

static int mockrt_gomp_cancel_kind(int which)
{
  switch (which) {
  case MOCKRT_GOMP_CANCEL_PARALLEL: return ompt_cancel_parallel;
  case MOCKRT_GOMP_CANCEL_LOOP: return ompt_cancel_loop;
  case MOCKRT_GOMP_CANCEL_SECTIONS: return ompt_cancel_sections;
  default: return 0;
  }
}

MOCKRT_EXPORT bool GOMP_cancellation_point(int which)
{
  mockrt_task_t *t = mockrt_cur_task();
  int kind = mockrt_gomp_cancel_kind(which);
  if (!kind || !mockrt_icv.cancellation)
    return false;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  bool cancelled = mockrt_cancel_point(t, kind, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}

/* cancel ... if(false) is a cancellation point. */
MOCKRT_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
  mockrt_task_t *t = mockrt_cur_task();
  const void *ra = __builtin_return_address(0);
  int kind = mockrt_gomp_cancel_kind(which);
  if (!kind || !mockrt_icv.cancellation)
    return false;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  bool cancelled = do_cancel ? mockrt_cancel(t, kind, ra) : mockrt_cancel_point(t, kind, ra);
  mockrt_frame_leave(t);
  return cancelled;
}

MOCKRT_EXPORT bool GOMP_barrier_cancel(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  bool cancelled =
      mockrt_barrier_wait_cancel(t, ompt_sync_region_barrier_explicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}
