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

static void mockrt_kmpc_team_pos(unsigned *tid, unsigned *nth)
{
  mockrt_task_t *t = mockrt_kmpc_task();
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
#define MOCKRT_KMPC_STATIC_INIT(name, T, UT, ST)                                                \
  MOCKRT_EXPORT void name(mockrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,    \
                          T *plower, T *pupper, ST *pstride, ST incr, ST chunk)               \
  {                                                                                           \
    unsigned tid, nth;                                                                        \
    T lo = *plower, hi = *pupper;                                                             \
    UT trip;                                                                                  \
    (void)loc;                                                                                \
    (void)gtid;                                                                               \
    mockrt_kmpc_team_pos(&tid, &nth);                                                         \
    if (incr == 0 || (incr > 0 ? hi < lo : lo < hi)) {                                        \
      /* No iterations: the bounds stay empty for the compiler's own test. */                 \
      if (plast)                                                                              \
        *plast = 0;                                                                           \
      *pstride = incr;                                                                        \
      return;                                                                                 \
    }                                                                                         \
    if (incr > 0)                                                                             \
      trip = ((UT)hi - (UT)lo) / (UT)incr + 1;                                                \
    else                                                                                      \
      trip = ((UT)lo - (UT)hi) / ((UT)0 - (UT)incr) + 1;                                      \
    if (mockrt_kmpc_static_chunked(sched)) {                                                  \
      UT c = chunk > 0 ? (UT)chunk : 1;                                                       \
      UT span = c * (UT)incr;                                                                 \
      *plower = (T)((UT)lo + span * tid);                                                     \
      *pupper = (T)((UT)*plower + span - (UT)incr);                                           \
      *pstride = (ST)(span * nth);                                                            \
      if (plast)                                                                              \
        *plast = tid == ((trip - 1) / c) % nth;                                               \
      return;                                                                                 \
    }                                                                                         \
    if (trip < nth) {                                                                         \
      /* One iteration each for the first trip threads, none for the rest. */                 \
      if (tid < trip) {                                                                       \
        *plower = (T)((UT)lo + (UT)incr * tid);                                               \
        *pupper = *plower;                                                                    \
      } else {                                                                                \
        *plower = (T)((UT)hi + (UT)incr);                                                     \
        *pupper = hi;                                                                         \
      }                                                                                       \
      if (plast)                                                                              \
        *plast = tid == trip - 1;                                                             \
    } else {                                                                                  \
      UT small = trip / nth, extras = trip % nth;                                             \
      UT before = small * tid + (tid < extras ? tid : extras);                                \
      *plower = (T)((UT)lo + (UT)incr * before);                                              \
      *pupper = (T)((UT)*plower + (UT)incr * (small + (tid < extras)) - (UT)incr);            \
      if (plast)                                                                              \
        *plast = tid == nth - 1;                                                              \
    }                                                                                         \
    *pstride = (ST)(trip * (UT)incr);                                                         \
  }

MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_4, int32_t, uint32_t, int32_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_4u, uint32_t, uint32_t, int32_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_8, int64_t, uint64_t, int64_t)
MOCKRT_KMPC_STATIC_INIT(__kmpc_for_static_init_8u, uint64_t, uint64_t, int64_t)

/* The end of a static loop; its barrier, if any, is a separate call. */
MOCKRT_EXPORT void __kmpc_for_static_fini(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
}

/*
 * The ordered position of this thread in its current dispatched loop: the
 * index of the iteration it runs, and whether that iteration has already
 * passed its ordered region.  A thread runs one loop at a time, so TLS will
 * do (nested regions run on teams of one).
 */
static MOCKRT_TLS long mockrt_kmpc_ord_iter;
static MOCKRT_TLS bool mockrt_kmpc_ord_done;

static int mockrt_kmpc_dispatch_kind(int32_t sched, long *chunk)
{
  sched &= ~MOCKRT_KMP_MODIFIER_MASK;
  if (sched > MOCKRT_KMP_ORD_LOWER && sched < MOCKRT_KMP_ORD_UPPER)
    sched -= MOCKRT_KMP_ORD_LOWER - 32; /* ordered kinds mirror 33..39 */
  switch (sched) {
  case MOCKRT_KMP_GUIDED_CHUNKED:
  case MOCKRT_KMP_GUIDED_SIMD:
    return MOCKRT_SCHED_GUIDED;
  case MOCKRT_KMP_RUNTIME:
  case MOCKRT_KMP_RUNTIME_SIMD:
    *chunk = mockrt_icv.run_chunk;
    return mockrt_icv.run_sched;
  default:
    /* Static through the dispatcher (ordered or not) is served dynamically. */
    return MOCKRT_SCHED_DYNAMIC;
  }
}

static void mockrt_kmpc_dispatch_init(int32_t sched, long lb, long ub, long st, long chunk,
                                      void *cfa)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int kind = mockrt_kmpc_dispatch_kind(sched, &chunk);
  int32_t base = sched & ~MOCKRT_KMP_MODIFIER_MASK;

  /* An unchunked static schedule means one block per thread. */
  if ((base == MOCKRT_KMP_STATIC || base == MOCKRT_KMP_ORD_LOWER + 2) && st != 0) {
    long trip = st > 0 ? (ub >= lb ? (ub - lb) / st + 1 : 0) : (lb >= ub ? (lb - ub) / -st + 1 : 0);
    long nth = (long)t->team->nthreads;
    chunk = (trip + nth - 1) / nth;
  }
  mockrt_frame_enter(t, cfa);
  mockrt_ws_enter(t, kind, lb, st >= 0 ? ub + 1 : ub - 1, st, chunk);
  mockrt_frame_leave(t);
  mockrt_kmpc_ord_iter = 0;
  mockrt_kmpc_ord_done = false;
}

/* The next chunk as [*lb, *ub] inclusive; false once the loop is exhausted. */
static bool mockrt_kmpc_dispatch_next(int32_t *plast, long *lb, long *ub, long *st)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_ws_t *ws = t->ws;
  long s, e;

  if (!ws)
    return false;
  if (!mockrt_ws_next(t, &s, &e)) {
    mockrt_ws_leave(t);
    return false;
  }
  *lb = s;
  *ub = e - ws->incr;
  *st = ws->incr;
  if (plast)
    *plast = e == ws->start + ws->count * ws->incr;
  mockrt_kmpc_ord_iter = (s - ws->start) / ws->incr;
  mockrt_kmpc_ord_done = false;
  return true;
}

#define MOCKRT_KMPC_DISPATCH(sfx, T, ST)                                                        \
  MOCKRT_EXPORT void __kmpc_dispatch_init_##sfx(mockrt_ident_t *loc, int32_t gtid,             \
                                                int32_t sched, T lb, T ub, ST st, ST chunk)   \
  {                                                                                           \
    (void)loc;                                                                                \
    (void)gtid;                                                                               \
    mockrt_kmpc_dispatch_init(sched, (long)lb, (long)ub, (long)st, (long)chunk,               \
                              __builtin_dwarf_cfa());                                         \
  }                                                                                           \
  MOCKRT_EXPORT int32_t __kmpc_dispatch_next_##sfx(mockrt_ident_t *loc, int32_t gtid,          \
                                                   int32_t *plast, T *plb, T *pub, ST *pst)   \
  {                                                                                           \
    long lb, ub, st;                                                                          \
    (void)loc;                                                                                \
    (void)gtid;                                                                               \
    if (!mockrt_kmpc_dispatch_next(plast, &lb, &ub, &st))                                     \
      return 0;                                                                               \
    *plb = (T)lb;                                                                             \
    *pub = (T)ub;                                                                             \
    if (pst)                                                                                  \
      *pst = (ST)st;                                                                          \
    return 1;                                                                                 \
  }                                                                                           \
  MOCKRT_EXPORT void __kmpc_dispatch_fini_##sfx(mockrt_ident_t *loc, int32_t gtid)             \
  {                                                                                           \
    (void)loc;                                                                                \
    (void)gtid;                                                                               \
    mockrt_kmpc_ordered_iteration_end(__builtin_dwarf_cfa());                                 \
  }

/*
 * Ordered: iteration i may enter its ordered region once ws->ord is i.  A
 * thread passes the turn on at the end of its ordered region, or at the end
 * of the iteration (clang calls __kmpc_dispatch_fini_* after every
 * iteration of an ordered loop) if the iteration had no ordered region.
 */
static void mockrt_kmpc_wait_turn(mockrt_task_t *t, const void *codeptr)
{
  mockrt_ws_t *ws = t->ws;
  mockrt_thread_t *self = &mockrt_self_tls;
  ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)&ws->ord;
  int prev = self->state;

  /* As for every mutex: the wait state is set before the acquire event. */
  mockrt_set_wait(self, ompt_state_wait_ordered, &ws->ord);
  if (codeptr && mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_ordered, 0, 0, id, codeptr);
  while (atomic_load_explicit(&ws->ord, memory_order_acquire) != mockrt_kmpc_ord_iter)
    sched_yield();
  mockrt_set_state(self, prev);
  if (codeptr && mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_ordered, id, codeptr);
}

static void mockrt_kmpc_pass_turn(mockrt_task_t *t)
{
  atomic_store_explicit(&t->ws->ord, mockrt_kmpc_ord_iter + 1, memory_order_release);
  mockrt_kmpc_ord_done = true;
}

static void mockrt_kmpc_ordered_iteration_end(void *cfa)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  if (!t->ws)
    return;
  if (!mockrt_kmpc_ord_done) {
    mockrt_frame_enter(t, cfa);
    mockrt_kmpc_wait_turn(t, NULL);
    mockrt_kmpc_pass_turn(t);
    mockrt_frame_leave(t);
  }
  mockrt_kmpc_ord_iter++;
  mockrt_kmpc_ord_done = false;
}

MOCKRT_KMPC_DISPATCH(4, int32_t, int32_t)
MOCKRT_KMPC_DISPATCH(4u, uint32_t, int32_t)
MOCKRT_KMPC_DISPATCH(8, int64_t, int64_t)
MOCKRT_KMPC_DISPATCH(8u, uint64_t, int64_t)

/* Outside a dispatched loop (an orphaned ordered) there is nothing to order. */
MOCKRT_EXPORT void __kmpc_ordered(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  if (!t->ws)
    return;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_kmpc_wait_turn(t, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void __kmpc_end_ordered(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  if (!t->ws)
    return;
  mockrt_kmpc_pass_turn(t);
  if (mockrt_ompt.mutex_released)
    mockrt_ompt.mutex_released(ompt_mutex_ordered, (ompt_wait_id_t)(uintptr_t)&t->ws->ord,
                               __builtin_return_address(0));
}
