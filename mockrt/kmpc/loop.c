/*
 * Worksharing loops under the __kmpc_* ABI.
 *
 * Static schedules are pure arithmetic on (thread number, team size): each
 * thread computes its own bounds and no state is shared.  Dynamic, guided,
 * runtime and ordered schedules go through the core's dispatcher, which
 * counts iterations 0..count-1; clang passes and expects inclusive upper
 * bounds, the core takes an exclusive end.
 *
 * clang normalizes its loops (lower 0, increment 1), but the arithmetic
 * below is done in the loop's own unsigned type so that any bounds a
 * program passes give the right trip count without signed overflow.
 * The 8u variants go through the dispatcher as longs: bounds above
 * LONG_MAX are not supported there.
 */
#include "kmpc.h"
#include "../core/fault.h"

#include <sched.h>

/* Schedule kinds (LLVM's enum sched_type) and the modifier bits. */
enum {
  MOCKRT_KMP_STATIC_CHUNKED = 33,
  MOCKRT_KMP_STATIC = 34,
  MOCKRT_KMP_DYNAMIC_CHUNKED = 35,
  MOCKRT_KMP_GUIDED_CHUNKED = 36,
  MOCKRT_KMP_RUNTIME = 37,
  MOCKRT_KMP_AUTO = 38,
  MOCKRT_KMP_STATIC_BALANCED_CHUNKED = 45,
  MOCKRT_KMP_GUIDED_SIMD = 46,
  MOCKRT_KMP_RUNTIME_SIMD = 47,
  MOCKRT_KMP_ORD_LOWER = 64,
  MOCKRT_KMP_ORD_UPPER = 72,
  MOCKRT_KMP_DISTRIBUTE_STATIC_CHUNKED = 91,
  MOCKRT_KMP_MODIFIER_MASK = 0x60000000, /* monotonic, nonmonotonic */
};

/* Whether a static schedule hands out fixed-size chunks round robin. */
static bool mockrt_kmpc_static_chunked(int32_t sched)
{
  sched &= ~MOCKRT_KMP_MODIFIER_MASK;
  return sched == MOCKRT_KMP_STATIC_CHUNKED || sched == MOCKRT_KMP_STATIC_BALANCED_CHUNKED ||
         sched == MOCKRT_KMP_DISTRIBUTE_STATIC_CHUNKED;
}

/* clang marks the static loop of a sections or distribute construct in the ident. */
#define MOCKRT_IDENT_WORK_SECTIONS   0x400
#define MOCKRT_IDENT_WORK_DISTRIBUTE 0x800

static int mockrt_kmpc_wstype(const mockrt_ident_t *loc)
{
  if (loc && (loc->flags & MOCKRT_IDENT_WORK_SECTIONS))
    return ompt_work_sections;
  if (loc && (loc->flags & MOCKRT_IDENT_WORK_DISTRIBUTE))
    return ompt_work_distribute;
  return ompt_work_loop;
}

/*
 * A static loop's work begin, and the dispatch of the thread's first chunk
 * (first: its logical number, -1 if the thread has none; later chunks of a
 * chunked schedule are the compiler's arithmetic, unseen by the runtime).
 */
static void mockrt_kmpc_static_events(const mockrt_ident_t *loc, uint64_t trip, int64_t first,
                                      int64_t lower, const void *codeptr)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int wstype = mockrt_kmpc_wstype(loc);
  if (mockrt_ompt.work)
    mockrt_ompt.work((ompt_work_t)wstype, ompt_scope_begin, &t->team->parallel_data, &t->task_data,
                     trip, codeptr);
  if (first >= 0 && (uint64_t)first < trip && mockrt_ompt.dispatch) {
    ompt_data_t instance = {.value =
                                wstype == ompt_work_sections ? (uint64_t)lower : (uint64_t)first};
    mockrt_ompt.dispatch(
        &t->team->parallel_data, &t->task_data,
        wstype == ompt_work_sections ? ompt_dispatch_section : ompt_dispatch_iteration, instance);
  }
}

/* A distribute loop is shared among the teams of the league, a loop among a team's threads. */
static void mockrt_kmpc_team_pos(int32_t sched, unsigned *tid, unsigned *nth)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  if ((sched & ~MOCKRT_KMP_MODIFIER_MASK) >= MOCKRT_KMP_DISTRIBUTE_STATIC_CHUNKED) {
    mockrt_league_pos(tid, nth);
    return;
  }
  *tid = t ? (unsigned)t->thread_num : 0;
  *nth = t ? t->team->nthreads : 1;
}

/*
 * Static init: on entry *plower..*pupper (inclusive) is the whole loop; on
 * return it is this thread's first (for chunked schedules, every later one
 * is *pstride further) and *plast says whether the thread runs the last
 * iteration.  Unchunked loops are split into balanced blocks, the first
 * trip % nth threads taking one iteration more.
 */
#define MOCKRT_KMPC_STATIC_INIT(name, T, UT, ST)                                                   \
  static inline __attribute__((always_inline))                                                     \
  uint64_t name##_bounds(mockrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,         \
                         T *plower, T *pupper, ST *pstride, ST incr, ST chunk)                     \
  {                                                                                                \
    unsigned tid, nth;                                                                             \
    T lo = *plower, hi = *pupper;                                                                  \
    UT trip;                                                                                       \
    (void)loc;                                                                                     \
    (void)gtid;                                                                                    \
    mockrt_kmpc_team_pos(sched, &tid, &nth);                                                       \
    if (incr == 0 || (incr > 0 ? hi < lo : lo < hi)) {                                             \
      /* No iterations: the bounds stay empty for the compiler's own test. */                      \
      if (plast)                                                                                   \
        *plast = 0;                                                                                \
      *pstride = incr;                                                                             \
      return 0;                                                                                    \
    }                                                                                              \
    if (incr > 0)                                                                                  \
      trip = ((UT)hi - (UT)lo) / (UT)incr + 1;                                                     \
    else                                                                                           \
      trip = ((UT)lo - (UT)hi) / ((UT)0 - (UT)incr) + 1;                                           \
    if (mockrt_kmpc_static_chunked(sched)) {                                                       \
      UT c = chunk > 0 ? (UT)chunk : 1;                                                            \
      UT span = c * (UT)incr;                                                                      \
      *plower = (T)((UT)lo + span * tid);                                                          \
      *pupper = (T)((UT)*plower + span - (UT)incr);                                                \
      *pstride = (ST)(span * nth);                                                                 \
      if (plast)                                                                                   \
        *plast = tid == ((trip - 1) / c) % nth;                                                    \
      return trip;                                                                                 \
    }                                                                                              \
    if (trip < nth) {                                                                              \
      /* One iteration each for the first trip threads, none for the rest. */                      \
      if (tid < trip) {                                                                            \
        *plower = (T)((UT)lo + (UT)incr * tid);                                                    \
        *pupper = *plower;                                                                         \
      } else {                                                                                     \
        *plower = (T)((UT)hi + (UT)incr);                                                          \
        *pupper = hi;                                                                              \
      }                                                                                            \
      if (plast)                                                                                   \
        *plast = tid == trip - 1;                                                                  \
    } else {                                                                                       \
      UT small = trip / nth, extras = trip % nth;                                                  \
      UT before = small * tid + (tid < extras ? tid : extras);                                     \
      *plower = (T)((UT)lo + (UT)incr * before);                                                   \
      *pupper = (T)((UT)*plower + (UT)incr * (small + (tid < extras)) - (UT)incr);                 \
      if (plast)                                                                                   \
        *plast = tid == nth - 1;                                                                   \
    }                                                                                              \
    *pstride = (ST)(trip * (UT)incr);                                                              \
    return trip;                                                                                   \
  }                                                                                                \
  MOCKRT_EXPORT void name(mockrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
                          T *plower, T *pupper, ST *pstride, ST incr, ST chunk)                    \
  {                                                                                                \
    T lo = *plower;                                                                                \
    uint64_t trip = name##_bounds(loc, gtid, sched, plast, plower, pupper, pstride, incr, chunk);  \
    if (mockrt_ompt.work || mockrt_ompt.dispatch)                                                  \
      mockrt_kmpc_static_events(loc, trip,                                                         \
                                (incr > 0 ? *plower <= *pupper : *plower >= *pupper) && trip       \
                                    ? (int64_t)(incr > 0                                           \
                                                    ? ((UT)*plower - (UT)lo) / (UT)incr            \
                                                    : ((UT)lo - (UT)*plower) / ((UT)0 - (UT)incr)) \
                                    : -1,                                                          \
                                (int64_t)*plower, __builtin_return_address(0));                    \
  }

MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_4, int32_t, uint32_t, int32_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_4u, uint32_t, uint32_t, int32_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_8, int64_t, uint64_t, int64_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_8u, uint64_t, uint64_t, int64_t)

/* The end of a static loop; its barrier, if any, is a separate call. */
MOCKRT_EXPORT void __kmpc_for_static_fini(mockrt_ident_t *loc, int32_t gtid)
{
  int wstype = mockrt_kmpc_wstype(loc);
  (void)gtid;
  if (mockrt_ompt.work &&
      !(mockrt_fault(MOCKRT_FAULT_WORK_END_DROPPED) && wstype == ompt_work_loop)) {
    mockrt_task_t *t = mockrt_kmpc_task();
    mockrt_ompt.work((ompt_work_t)wstype, ompt_scope_end, &t->team->parallel_data, &t->task_data, 0,
                     __builtin_return_address(0));
  }
}

static int mockrt_kmpc_dispatch_kind(int32_t sched, long *chunk, bool *ordered)
{
  sched &= ~MOCKRT_KMP_MODIFIER_MASK;
  *ordered = sched > MOCKRT_KMP_ORD_LOWER && sched < MOCKRT_KMP_ORD_UPPER;
  if (*ordered)
    sched -= MOCKRT_KMP_ORD_LOWER - 32; /* ordered kinds mirror 33..39 */
  switch (sched) {
  case MOCKRT_KMP_STATIC:
  case MOCKRT_KMP_STATIC_CHUNKED:
  case MOCKRT_KMP_STATIC_BALANCED_CHUNKED:
    if (sched == MOCKRT_KMP_STATIC)
      *chunk = 0; /* one block per thread */
    return MOCKRT_SCHED_STATIC;
  case MOCKRT_KMP_GUIDED_CHUNKED:
  case MOCKRT_KMP_GUIDED_SIMD: return MOCKRT_SCHED_GUIDED;
  case MOCKRT_KMP_RUNTIME:
  case MOCKRT_KMP_RUNTIME_SIMD: *chunk = mockrt_icv.run_chunk; return mockrt_icv.run_sched;
  default: return MOCKRT_SCHED_DYNAMIC; /* dynamic, auto */
  }
}

/* As libomp 14, the loop entry points set no enter frame. */
static void mockrt_kmpc_dispatch_init(int32_t sched, long lb, long ub, long st, long chunk,
                                      const void *codeptr)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  bool ordered;
  int kind = mockrt_kmpc_dispatch_kind(sched, &chunk, &ordered);

  mockrt_ws_enter_ex(t, ompt_work_loop, kind, lb, st >= 0 ? ub + 1 : ub - 1, st, chunk, codeptr);
  t->pos.ordered = ordered;
}

/*
 * The next chunk as [*lb, *ub] inclusive; false once the loop is exhausted.
 * An ordered loop's units are single iterations: clang calls
 * __kmpc_dispatch_fini_* after each one, which passes the turn on.
 */
static bool mockrt_kmpc_dispatch_next(int32_t *plast, long *lb, long *ub, long *st,
                                      const void *codeptr)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_ws_t *ws = t->ws;
  long s, e;

  if (!ws)
    return false;
  /* The loop ends at the call that finds no chunk left: as on libomp 14,
   * its work end names that call and counts 0 iterations. */
  if (!mockrt_ws_next(t, &s, &e)) {
    mockrt_ws_leave_at(t, 0, codeptr);
    return false;
  }
  *lb = s;
  *ub = e - ws->incr;
  *st = ws->incr;
  if (plast)
    *plast = e == ws->start + ws->count * ws->incr;
  if (t->pos.ordered) {
    long i = (s - ws->start) / ws->incr;
    mockrt_ordered_unit(t, i, i + 1);
  }
  return true;
}

/* The end of an iteration of an ordered loop: pass the turn, the next iteration is a new unit. */
static void mockrt_kmpc_ordered_iteration_end(void)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  if (!t->ws || !t->pos.ordered)
    return;
  mockrt_ordered_unit_end(t);
  mockrt_ordered_unit(t, t->pos.ord_end, t->pos.ord_end + 1);
}

#define MOCKRT_KMPC_DISPATCH(sfx, T, ST)                                                           \
  MOCKRT_EXPORT void __kmpc_dispatch_init_##sfx(mockrt_ident_t *loc, int32_t gtid, int32_t sched,  \
                                                T lb, T ub, ST st, ST chunk)                       \
  {                                                                                                \
    (void)loc;                                                                                     \
    (void)gtid;                                                                                    \
    mockrt_kmpc_dispatch_init(sched, (long)lb, (long)ub, (long)st, (long)chunk,                    \
                              __builtin_return_address(0));                                        \
  }                                                                                                \
  MOCKRT_EXPORT int32_t __kmpc_dispatch_next_##sfx(mockrt_ident_t *loc, int32_t gtid,              \
                                                   int32_t *plast, T *plb, T *pub, ST *pst)        \
  {                                                                                                \
    long lb, ub, st;                                                                               \
    (void)loc;                                                                                     \
    (void)gtid;                                                                                    \
    if (!mockrt_kmpc_dispatch_next(plast, &lb, &ub, &st, __builtin_return_address(0)))             \
      return 0;                                                                                    \
    *plb = (T)lb;                                                                                  \
    *pub = (T)ub;                                                                                  \
    if (pst)                                                                                       \
      *pst = (ST)st;                                                                               \
    return 1;                                                                                      \
  }                                                                                                \
  MOCKRT_EXPORT void __kmpc_dispatch_fini_##sfx(mockrt_ident_t *loc, int32_t gtid)                 \
  {                                                                                                \
    (void)loc;                                                                                     \
    (void)gtid;                                                                                    \
    mockrt_kmpc_ordered_iteration_end();                                                           \
  }

MOCKRT_KMPC_DISPATCH(4, int32_t, int32_t)
MOCKRT_KMPC_DISPATCH(4u, uint32_t, int32_t)
MOCKRT_KMPC_DISPATCH(8, int64_t, int64_t)
MOCKRT_KMPC_DISPATCH(8u, uint64_t, int64_t)

/*
 * Outside a dispatched loop (an orphaned ordered) there is nothing to order.
 * No enter frame while waiting for the turn, as on libomp 14.
 */
MOCKRT_EXPORT void __kmpc_ordered(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  if (!t->ws)
    return;
  mockrt_ordered_enter(t, __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_ordered(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_ordered_exit(mockrt_kmpc_task(), true, __builtin_return_address(0));
}
