/*
 * GOMP sections and single.  Sections are handed out like a loop over the
 * section numbers 1..count, one at a time; 0 means "no more for you".
 * A single is claimed by one thread; gcc calls nothing at its end unless it
 * has copyprivate data, so the executor's work end is reported at the
 * thread's next runtime call (core/ws.c, mockrt_ws_settle).
 */
#include "gomp.h"

static unsigned mockrt_gomp_next_section(mockrt_task_t *t)
{
  long s, e;
  return mockrt_ws_next(t, &s, &e) ? (unsigned)s : 0;
}

MOCKRT_EXPORT unsigned GOMP_sections_start(unsigned count)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_enter_ex(t, ompt_work_sections, MOCKRT_SCHED_DYNAMIC, 1, (long)count + 1, 1, 1,
                     __builtin_return_address(0));
  unsigned s = mockrt_gomp_next_section(t);
  mockrt_frame_leave(t);
  return s;
}

MOCKRT_EXPORT unsigned GOMP_sections_next(void)
{
  return mockrt_gomp_next_section(mockrt_cur_task());
}

MOCKRT_EXPORT void GOMP_sections_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_leave(t);
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_sections_end_nowait(void)
{
  mockrt_ws_leave(mockrt_cur_task());
}

/* The end of sections in a region with cancel constructs: true if the region is cancelled. */
MOCKRT_EXPORT bool GOMP_sections_end_cancel(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_leave(t);
  bool cancelled =
      mockrt_barrier_wait_cancel(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}

/* Every thread enters and leaves at once; the barrier after is gcc's call. */
MOCKRT_EXPORT bool GOMP_single_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  bool mine = mockrt_ws_single(t, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return mine;
}

/*
 * single copyprivate: the executor gets NULL, runs the body and publishes
 * its data with GOMP_single_copy_end; the others get that data once it is
 * there.  Two barriers: the first makes the data visible, the second (in
 * copy_end for the executor, after the copy for the others, which gcc
 * follows with GOMP_barrier) keeps it alive until everyone has copied.
 */
MOCKRT_EXPORT void *GOMP_single_copy_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  const void *ra = __builtin_return_address(0);
  void *data = NULL;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  if (!mockrt_ws_single(t, ra)) {
    mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, ra);
    data = t->team->copyprivate;
  }
  mockrt_frame_leave(t);
  return data;
}

MOCKRT_EXPORT void GOMP_single_copy_end(void *data)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_single_end(t);
  t->team->copyprivate = data;
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
}
