/*
 * GOMP loop entry points (dynamic, guided, runtime; monotonic and
 * nonmonotonic alike, since any dynamic order is monotonic per thread here)
 * and the single and sections constructs, which share the dispatcher.
 *
 * gcc passes end exclusive and expects [*istart, *iend) back; a false
 * return means the thread has no more work in this construct.
 */
#include "gomp.h"

/* The enter frame is set while the thread is inside the runtime call. */
#define MOCKRT_GOMP_LOOP_START(name, kind)                                                     \
  MOCKRT_EXPORT bool name(long start, long end, long incr, long chunk, long *istart,          \
                          long *iend)                                                         \
  {                                                                                           \
    mockrt_task_t *t = mockrt_cur_task();                                                     \
    mockrt_frame_enter(t, __builtin_dwarf_cfa());                                             \
    mockrt_ws_enter(t, kind, start, end, incr, chunk);                                        \
    bool more = mockrt_ws_next(t, istart, iend);                                              \
    mockrt_frame_leave(t);                                                                    \
    return more;                                                                              \
  }

#define MOCKRT_GOMP_LOOP_RUNTIME_START(name)                                                   \
  MOCKRT_EXPORT bool name(long start, long end, long incr, long *istart, long *iend)          \
  {                                                                                           \
    mockrt_task_t *t = mockrt_cur_task();                                                     \
    mockrt_frame_enter(t, __builtin_dwarf_cfa());                                             \
    mockrt_ws_enter(t, mockrt_icv.run_sched, start, end, incr, mockrt_icv.run_chunk);         \
    bool more = mockrt_ws_next(t, istart, iend);                                              \
    mockrt_frame_leave(t);                                                                    \
    return more;                                                                              \
  }

/* Taking the next chunk never blocks, so no frame needs publishing. */
#define MOCKRT_GOMP_LOOP_NEXT(name)                                                            \
  MOCKRT_EXPORT bool name(long *istart, long *iend)                                            \
  {                                                                                           \
    return mockrt_ws_next(mockrt_cur_task(), istart, iend);                                   \
  }

MOCKRT_GOMP_LOOP_START(GOMP_loop_dynamic_start, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_LOOP_START(GOMP_loop_guided_start, MOCKRT_SCHED_GUIDED)
MOCKRT_GOMP_LOOP_START(GOMP_loop_nonmonotonic_guided_start, MOCKRT_SCHED_GUIDED)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_runtime_start)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start)

MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_dynamic_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_guided_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_runtime_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)

MOCKRT_EXPORT void GOMP_loop_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_leave(t);
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_loop_end_nowait(void)
{
  mockrt_ws_leave(mockrt_cur_task());
}

/* Sections: section numbers 1..count, one per request; 0 means done. */
static unsigned mockrt_gomp_next_section(mockrt_task_t *t)
{
  long s, e;
  return mockrt_ws_next(t, &s, &e) ? (unsigned)s : 0;
}

MOCKRT_EXPORT unsigned GOMP_sections_start(unsigned count)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_enter(t, MOCKRT_SCHED_DYNAMIC, 1, (long)count + 1, 1, 1);
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

/* Every thread enters and leaves at once; the barrier after is gcc's call. */
MOCKRT_EXPORT bool GOMP_single_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ws_enter(t, MOCKRT_SCHED_DYNAMIC, 0, 0, 1, 1);
  bool mine = mockrt_ws_single(t);
  mockrt_ws_leave(t);
  mockrt_frame_leave(t);
  return mine;
}
