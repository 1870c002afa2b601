/*
 * GOMP doacross loops, as gcc 12 emits them for ordered(n) with
 * depend(sink:) and depend(source):
 *
 *   GOMP_loop_doacross_<sched>_start(ncounts, counts, [chunk,] &istart, &iend)
 *   ... GOMP_doacross_wait(i0, i1, ...) / GOMP_doacross_post(vec) ...
 *   GOMP_loop_<sched>_next(&istart, &iend) ... GOMP_loop_end[_nowait]()
 *
 * counts[i] is the trip count of dimension i and every vector gives
 * logical iteration numbers (0-based), so each dimension starts at 0 with
 * step 1; the loop itself hands out [0, counts[0]).  The ull forms are the
 * same in unsigned long long.  The loop's end (gomp/loop.c) leaves the
 * doacross state as well.
 */
#include "gomp.h"
#include "../core/doacross.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long long mockrt_ull;

static void mockrt_gomp_doacross_dims(unsigned ncounts, const unsigned long *counts,
                                      mockrt_doacross_dim_t *dims)
{
  if (ncounts > MOCKRT_DOACROSS_MAX_DIMS) {
    fprintf(stderr, "mockrt: doacross loop with %u dimensions is not supported (at most %d)\n",
            ncounts, MOCKRT_DOACROSS_MAX_DIMS);
    abort();
  }
  for (unsigned i = 0; i < ncounts; i++) {
    dims[i].lo = 0;
    dims[i].st = 1;
    dims[i].count = counts[i];
  }
}

/*
 * Enter the doacross state, then the loop over [0, counts[0]), and take
 * the first chunk.  The enter frame (cfa) is set while the thread is in
 * the runtime.
 */
static inline __attribute__((always_inline)) bool
mockrt_gomp_doacross_start(unsigned ncounts, const unsigned long *counts, int sched, long chunk,
                           long *istart, long *iend, void *cfa, const void *ra)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_doacross_dim_t dims[MOCKRT_DOACROSS_MAX_DIMS];
  mockrt_frame_enter(t, cfa);
  mockrt_gomp_doacross_dims(ncounts, counts, dims);
  mockrt_doacross_begin(t, (int)ncounts, dims);
  mockrt_ws_enter_ex(t, ompt_work_loop, sched, 0, (long)counts[0], 1, chunk, ra);
  bool more = mockrt_ws_next(t, istart, iend);
  mockrt_frame_leave(t);
  return more;
}

#define MOCKRT_GOMP_DOACROSS_START(name, kind)                                                     \
  MOCKRT_EXPORT bool name(unsigned ncounts, long *counts, long chunk, long *istart, long *iend)    \
  {                                                                                                \
    return mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts, kind, chunk, istart, \
                                      iend, __builtin_dwarf_cfa(), __builtin_return_address(0));   \
  }

MOCKRT_GOMP_DOACROSS_START(GOMP_loop_doacross_static_start, MOCKRT_SCHED_STATIC)
MOCKRT_GOMP_DOACROSS_START(GOMP_loop_doacross_dynamic_start, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_DOACROSS_START(GOMP_loop_doacross_guided_start, MOCKRT_SCHED_GUIDED)

MOCKRT_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                                    long *iend)
{
  return mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts, mockrt_icv.run_sched,
                                    mockrt_icv.run_chunk, istart, iend, __builtin_dwarf_cfa(),
                                    __builtin_return_address(0));
}

MOCKRT_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                            long *istart, long *iend, uintptr_t *reductions,
                                            void **mem)
{
  mockrt_gomp_loop_extras("GOMP_loop_doacross_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &chunk);
  return mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts, kind, chunk, istart,
                                    iend, __builtin_dwarf_cfa(), __builtin_return_address(0));
}

/* ---- unsigned long long loops: counts above LONG_MAX are not supported ---- */

static inline __attribute__((always_inline)) bool
mockrt_gomp_doacross_ull_result(bool more, long s, long e, mockrt_ull *istart, mockrt_ull *iend)
{
  if (more) {
    *istart = (mockrt_ull)s;
    *iend = (mockrt_ull)e;
  }
  return more;
}

#define MOCKRT_GOMP_DOACROSS_ULL_START(name, kind)                                                 \
  MOCKRT_EXPORT bool name(unsigned ncounts, mockrt_ull *counts, mockrt_ull chunk,                  \
                          mockrt_ull *istart, mockrt_ull *iend)                                    \
  {                                                                                                \
    long s, e;                                                                                     \
    bool more =                                                                                    \
        mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts, kind, (long)chunk, &s,  \
                                   &e, __builtin_dwarf_cfa(), __builtin_return_address(0));        \
    return mockrt_gomp_doacross_ull_result(more, s, e, istart, iend);                              \
  }

MOCKRT_GOMP_DOACROSS_ULL_START(GOMP_loop_ull_doacross_static_start, MOCKRT_SCHED_STATIC)
MOCKRT_GOMP_DOACROSS_ULL_START(GOMP_loop_ull_doacross_dynamic_start, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_DOACROSS_ULL_START(GOMP_loop_ull_doacross_guided_start, MOCKRT_SCHED_GUIDED)

MOCKRT_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, mockrt_ull *counts,
                                                        mockrt_ull *istart, mockrt_ull *iend)
{
  long s, e;
  bool more = mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts,
                                         mockrt_icv.run_sched, mockrt_icv.run_chunk, &s, &e,
                                         __builtin_dwarf_cfa(), __builtin_return_address(0));
  return mockrt_gomp_doacross_ull_result(more, s, e, istart, iend);
}

MOCKRT_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, mockrt_ull *counts, long sched,
                                                mockrt_ull chunk, mockrt_ull *istart,
                                                mockrt_ull *iend, uintptr_t *reductions, void **mem)
{
  long s, e, c = (long)chunk;
  mockrt_gomp_loop_extras("GOMP_loop_doacross_start", reductions, mem);
  int kind = mockrt_gomp_sched(sched, &c);
  bool more = mockrt_gomp_doacross_start(ncounts, (const unsigned long *)counts, kind, c, &s, &e,
                                         __builtin_dwarf_cfa(), __builtin_return_address(0));
  return mockrt_gomp_doacross_ull_result(more, s, e, istart, iend);
}

/* ---- depend(source) and depend(sink:) ---- */

MOCKRT_EXPORT void GOMP_doacross_post(long *counts)
{
  mockrt_doacross_post(mockrt_cur_task(), counts);
}

MOCKRT_EXPORT void GOMP_doacross_ull_post(mockrt_ull *counts)
{
  mockrt_doacross_post(mockrt_cur_task(), (const long *)counts);
}

/* One argument per dimension of the loop the thread is in. */
#define MOCKRT_GOMP_DOACROSS_WAIT(T)                                                               \
  mockrt_task_t *t = mockrt_cur_task();                                                            \
  long vec[MOCKRT_DOACROSS_MAX_DIMS];                                                              \
  int n = mockrt_doacross_dims(t);                                                                 \
  va_list ap;                                                                                      \
  if (n == 0)                                                                                      \
    return;                                                                                        \
  vec[0] = (long)first;                                                                            \
  va_start(ap, first);                                                                             \
  for (int i = 1; i < n; i++)                                                                      \
    vec[i] = (long)va_arg(ap, T);                                                                  \
  va_end(ap);                                                                                      \
  mockrt_frame_enter(t, __builtin_dwarf_cfa());                                                    \
  mockrt_doacross_wait(t, vec);                                                                    \
  mockrt_frame_leave(t);

MOCKRT_EXPORT void GOMP_doacross_wait(long first, ...){MOCKRT_GOMP_DOACROSS_WAIT(long)}

MOCKRT_EXPORT void GOMP_doacross_ull_wait(mockrt_ull first, ...)
{
  MOCKRT_GOMP_DOACROSS_WAIT(mockrt_ull)
}
