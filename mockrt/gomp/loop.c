/*
 * GOMP loop entry points: dynamic, guided, runtime and static schedules
 * (monotonic and nonmonotonic alike, since any dynamic order is monotonic
 * per thread here), their ordered forms, the unsigned long long (ull)
 * forms, the generic GOMP_loop_start of gcc 9+, and the loop ends.
 *
 * gcc passes end exclusive and expects [*istart, *iend) back; a false
 * return means the thread has no more work in this construct.  The ull
 * forms go through the same dispatcher as longs: bounds above LONG_MAX are
 * not supported (a down-counting loop's increment is a negative long).
 *
 * Ordered loops take their turn chunk by chunk, as libgomp does
 * (core/ordered.c): a chunk's turn is passed on when the thread asks for
 * its next chunk or leaves the loop.  A doacross loop (gomp/doacross.c)
 * goes on with these entry points; its end leaves the doacross state too.
 */
#include "gomp.h"
#include "../core/doacross.h"

#include <stdio.h>
#include <stdlib.h>

/* libgomp's enum gomp_schedule_type, as GOMP_loop_start receives it. */
enum {
  MOCKRT_GFS_RUNTIME,
  MOCKRT_GFS_STATIC,
  MOCKRT_GFS_DYNAMIC,
  MOCKRT_GFS_GUIDED,
  MOCKRT_GFS_AUTO
};
#define MOCKRT_GFS_MONOTONIC 0x80000000UL

/*
 * Enter a loop and take the first chunk.  The enter frame (cfa) is set while
 * the thread is inside the runtime call; ordered loops start their first unit.
 */
static inline __attribute__((always_inline)) bool
mockrt_gomp_loop_start(int sched, long start, long end, long incr, long chunk, long *istart,
                       long *iend, bool ordered, void *cfa, const void *ra)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, cfa);
  mockrt_ws_enter_ex(t, ompt_work_loop, sched, start, end, incr, chunk, ra);
  bool more = mockrt_ws_next(t, istart, iend);
  if (ordered && more)
    mockrt_ordered_unit(t, (*istart - t->ws->start) / t->ws->incr,
                        (*iend - t->ws->start) / t->ws->incr);
  mockrt_frame_leave(t);
  return more;
}

/* The next chunk; an ordered loop first passes the turn of the last one on. */
static inline __attribute__((always_inline)) bool mockrt_gomp_loop_next(long *istart, long *iend,
                                                                        bool ordered, void *cfa)
{
  mockrt_task_t *t = mockrt_cur_task();
  if (!ordered)
    return mockrt_ws_next(t, istart, iend);
  /* Passing the turn may wait for it, so the frame is published. */
  mockrt_frame_enter(t, cfa);
  mockrt_ordered_unit_end(t);
  bool more = mockrt_ws_next(t, istart, iend);
  if (more)
    mockrt_ordered_unit(t, (*istart - t->ws->start) / t->ws->incr,
                        (*iend - t->ws->start) / t->ws->incr);
  mockrt_frame_leave(t);
  return more;
}

#define MOCKRT_GOMP_LOOP_START(name, kind, ordered)                                                \
  MOCKRT_EXPORT bool name(long start, long end, long incr, long chunk, long *istart, long *iend)   \
  {                                                                                                \
    return mockrt_gomp_loop_start(kind, start, end, incr, chunk, istart, iend, ordered,            \
                                  __builtin_dwarf_cfa(), __builtin_return_address(0));             \
  }

/* schedule(runtime) takes its kind and chunk from OMP_SCHEDULE. */
#define MOCKRT_GOMP_LOOP_RUNTIME_START(name, ordered)                                              \
  MOCKRT_EXPORT bool name(long start, long end, long incr, long *istart, long *iend)               \
  {                                                                                                \
    return mockrt_gomp_loop_start(mockrt_icv.run_sched, start, end, incr, mockrt_icv.run_chunk,    \
                                  istart, iend, ordered, __builtin_dwarf_cfa(),                    \
                                  __builtin_return_address(0));                                    \
  }

#define MOCKRT_GOMP_LOOP_NEXT(name, ordered)                                                       \
  MOCKRT_EXPORT bool name(long *istart, long *iend)                                                \
  {                                                                                                \
    return mockrt_gomp_loop_next(istart, iend, ordered, __builtin_dwarf_cfa());                    \
  }

MOCKRT_GOMP_LOOP_START(GOMP_loop_static_start, MOCKRT_SCHED_STATIC, false)
MOCKRT_GOMP_LOOP_START(GOMP_loop_dynamic_start, MOCKRT_SCHED_DYNAMIC, false)
MOCKRT_GOMP_LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, MOCKRT_SCHED_DYNAMIC, false)
MOCKRT_GOMP_LOOP_START(GOMP_loop_guided_start, MOCKRT_SCHED_GUIDED, false)
MOCKRT_GOMP_LOOP_START(GOMP_loop_nonmonotonic_guided_start, MOCKRT_SCHED_GUIDED, false)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_runtime_start, false)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start, false)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start, false)
MOCKRT_GOMP_LOOP_START(GOMP_loop_ordered_static_start, MOCKRT_SCHED_STATIC, true)
MOCKRT_GOMP_LOOP_START(GOMP_loop_ordered_dynamic_start, MOCKRT_SCHED_DYNAMIC, true)
MOCKRT_GOMP_LOOP_START(GOMP_loop_ordered_guided_start, MOCKRT_SCHED_GUIDED, true)
MOCKRT_GOMP_LOOP_RUNTIME_START(GOMP_loop_ordered_runtime_start, true)

MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_static_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_dynamic_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_guided_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_runtime_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, false)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_ordered_static_next, true)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_ordered_dynamic_next, true)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_ordered_guided_next, true)
MOCKRT_GOMP_LOOP_NEXT(GOMP_loop_ordered_runtime_next, true)

/* ---- unsigned long long loops ---- */

typedef unsigned long long mockrt_ull;

static inline __attribute__((always_inline)) bool
mockrt_gomp_ull_result(bool more, long s, long e, mockrt_ull *istart, mockrt_ull *iend)
{
  if (more) {
    *istart = (mockrt_ull)s;
    *iend = (mockrt_ull)e;
  }
  return more;
}

#define MOCKRT_GOMP_ULL_START(name, kind, ordered)                                                 \
  MOCKRT_EXPORT bool name(bool up, mockrt_ull start, mockrt_ull end, mockrt_ull incr,              \
                          mockrt_ull chunk, mockrt_ull *istart, mockrt_ull *iend)                  \
  {                                                                                                \
    long s, e;                                                                                     \
    (void)up;                                                                                      \
    bool more =                                                                                    \
        mockrt_gomp_loop_start(kind, (long)start, (long)end, (long)incr, (long)chunk, &s, &e,      \
                               ordered, __builtin_dwarf_cfa(), __builtin_return_address(0));       \
    return mockrt_gomp_ull_result(more, s, e, istart, iend);                                       \
  }

#define MOCKRT_GOMP_ULL_RUNTIME_START(name, ordered)                                               \
  MOCKRT_EXPORT bool name(bool up, mockrt_ull start, mockrt_ull end, mockrt_ull incr,              \
                          mockrt_ull *istart, mockrt_ull *iend)                                    \
  {                                                                                                \
    long s, e;                                                                                     \
    (void)up;                                                                                      \
    bool more = mockrt_gomp_loop_start(mockrt_icv.run_sched, (long)start, (long)end, (long)incr,   \
                                       mockrt_icv.run_chunk, &s, &e, ordered,                      \
                                       __builtin_dwarf_cfa(), __builtin_return_address(0));        \
    return mockrt_gomp_ull_result(more, s, e, istart, iend);                                       \
  }

#define MOCKRT_GOMP_ULL_NEXT(name, ordered)                                                        \
  MOCKRT_EXPORT bool name(mockrt_ull *istart, mockrt_ull *iend)                                    \
  {                                                                                                \
    long s, e;                                                                                     \
    bool more = mockrt_gomp_loop_next(&s, &e, ordered, __builtin_dwarf_cfa());                     \
    return mockrt_gomp_ull_result(more, s, e, istart, iend);                                       \
  }

MOCKRT_GOMP_ULL_START(GOMP_loop_ull_static_start, MOCKRT_SCHED_STATIC, false)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_dynamic_start, MOCKRT_SCHED_DYNAMIC, false)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_nonmonotonic_dynamic_start, MOCKRT_SCHED_DYNAMIC, false)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_guided_start, MOCKRT_SCHED_GUIDED, false)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_nonmonotonic_guided_start, MOCKRT_SCHED_GUIDED, false)
MOCKRT_GOMP_ULL_RUNTIME_START(GOMP_loop_ull_runtime_start, false)
MOCKRT_GOMP_ULL_RUNTIME_START(GOMP_loop_ull_nonmonotonic_runtime_start, false)
MOCKRT_GOMP_ULL_RUNTIME_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, false)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_ordered_static_start, MOCKRT_SCHED_STATIC, true)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_ordered_dynamic_start, MOCKRT_SCHED_DYNAMIC, true)
MOCKRT_GOMP_ULL_START(GOMP_loop_ull_ordered_guided_start, MOCKRT_SCHED_GUIDED, true)
MOCKRT_GOMP_ULL_RUNTIME_START(GOMP_loop_ull_ordered_runtime_start, true)

MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_static_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_dynamic_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_guided_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_runtime_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, false)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_ordered_static_next, true)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_ordered_dynamic_next, true)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_ordered_guided_next, true)
MOCKRT_GOMP_ULL_NEXT(GOMP_loop_ull_ordered_runtime_next, true)

/* ---- gcc 9+'s generic loop start (schedule as a value, task reductions, memory) ---- */

/* gomp.h */
int mockrt_gomp_sched(long sched, long *chunk)
{
  switch ((unsigned long)sched & ~MOCKRT_GFS_MONOTONIC) {
  case MOCKRT_GFS_STATIC: return MOCKRT_SCHED_STATIC;
  case MOCKRT_GFS_GUIDED: return MOCKRT_SCHED_GUIDED;
  case MOCKRT_GFS_RUNTIME: *chunk = mockrt_icv.run_chunk; return mockrt_icv.run_sched;
  default: return MOCKRT_SCHED_DYNAMIC; /* dynamic, auto */
  }
}

/* gomp.h */
void mockrt_gomp_loop_extras(const char *entry, const void *reductions, void **mem)
{
  if (reductions || (mem && *mem)) {
    fprintf(stderr, "mockrt: %s with task reductions or loop memory is not supported\n", entry);
    abort();
  }
}

MOCKRT_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                                   long *istart, long *iend, uintptr_t *reductions, void **mem)
{
  mockrt_gomp_loop_extras("GOMP_loop_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &chunk);
  return mockrt_gomp_loop_start(kind, start, end, incr, chunk, istart, iend, false,
                                __builtin_dwarf_cfa(), __builtin_return_address(0));
}

MOCKRT_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                           long *istart, long *iend, uintptr_t *reductions,
                                           void **mem)
{
  mockrt_gomp_loop_extras("GOMP_loop_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &chunk);
  return mockrt_gomp_loop_start(kind, start, end, incr, chunk, istart, iend, true,
                                __builtin_dwarf_cfa(), __builtin_return_address(0));
}

MOCKRT_EXPORT bool GOMP_loop_ull_start(bool up, mockrt_ull start, mockrt_ull end, mockrt_ull incr,
                                       long sched, mockrt_ull chunk, mockrt_ull *istart,
                                       mockrt_ull *iend, uintptr_t *reductions, void **mem)
{
  long s, e, c = (long)chunk;
  (void)up;
  mockrt_gomp_loop_extras("GOMP_loop_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &c);
  bool more = mockrt_gomp_loop_start(kind, (long)start, (long)end, (long)incr, c, &s, &e, false,
                                     __builtin_dwarf_cfa(), __builtin_return_address(0));
  return mockrt_gomp_ull_result(more, s, e, istart, iend);
}

MOCKRT_EXPORT bool GOMP_loop_ull_ordered_start(bool up, mockrt_ull start, mockrt_ull end,
                                               mockrt_ull incr, long sched, mockrt_ull chunk,
                                               mockrt_ull *istart, mockrt_ull *iend,
                                               uintptr_t *reductions, void **mem)
{
  long s, e, c = (long)chunk;
  (void)up;
  mockrt_gomp_loop_extras("GOMP_loop_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &c);
  bool more = mockrt_gomp_loop_start(kind, (long)start, (long)end, (long)incr, c, &s, &e, true,
                                     __builtin_dwarf_cfa(), __builtin_return_address(0));
  return mockrt_gomp_ull_result(more, s, e, istart, iend);
}

/* ---- the ends of loops ---- */

MOCKRT_EXPORT void GOMP_loop_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ordered_unit_end(t);
  mockrt_ws_leave(t);
  mockrt_doacross_end(t);
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_loop_end_nowait(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ordered_unit_end(t);
  mockrt_ws_leave(t);
  mockrt_doacross_end(t);
  mockrt_frame_leave(t);
}

/* The end of a loop in a region with cancel constructs: true if the region is cancelled. */
MOCKRT_EXPORT bool GOMP_loop_end_cancel(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ordered_unit_end(t);
  mockrt_ws_leave(t);
  mockrt_doacross_end(t);
  bool cancelled =
      mockrt_barrier_wait_cancel(t, ompt_sync_region_barrier_implicit, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}

/* The ordered construct inside an ordered loop: the chunk's turn is kept until its end. */
MOCKRT_EXPORT void GOMP_ordered_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_ordered_enter(t, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_ordered_end(void)
{
  mockrt_ordered_exit(mockrt_cur_task(), false, __builtin_return_address(0));
}
