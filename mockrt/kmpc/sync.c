/*
 * Synchronization under the __kmpc_* ABI: barrier, critical, single,
 * master/masked, flush and reductions.  Where libomp 14 sets the current
 * task's enter frame (barriers, reductions, copyprivate's barriers) the entry
 * point sets it to its own frame address first and clears it before
 * returning to the program; critical and single set none, as libomp's.
 */
#include "kmpc.h"
#include "../core/fault.h"

#include <stdlib.h>

/* clang marks a barrier the program asked for; all others are implicit. */
static int mockrt_kmpc_barrier_kind(const mockrt_ident_t *loc)
{
  return loc && (loc->flags & MOCKRT_IDENT_BARRIER_EXPL) ? ompt_sync_region_barrier_explicit
                                                         : ompt_sync_region_barrier_implicit;
}

MOCKRT_EXPORT void __kmpc_barrier(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_barrier_wait(t, mockrt_kmpc_barrier_kind(loc), __builtin_return_address(0));
  mockrt_frame_leave(t);
}

atomic_int *mockrt_kmpc_critical_word(mockrt_critical_name_t *crit)
{
  _Atomic(atomic_int *) *slot = (_Atomic(atomic_int *) *)((char *)*crit + sizeof(void *));
  atomic_int *w = atomic_load_explicit(slot, memory_order_acquire);
  if (w)
    return w;
  atomic_int *fresh = calloc(1, 64);
  if (!fresh)
    abort();
  atomic_init(fresh, 0);
  atomic_int *expected = NULL;
  if (atomic_compare_exchange_strong_explicit(slot, &expected, fresh, memory_order_acq_rel,
                                              memory_order_acquire))
    return fresh;
  free(fresh);
  return expected;
}

/* The zeroed kmp_critical_name holds a pointer to the critical's lock. */
MOCKRT_EXPORT void __kmpc_critical(mockrt_ident_t *loc, int32_t gtid, mockrt_critical_name_t *crit)
{
  (void)loc;
  (void)gtid;
  mockrt_mutex_acquire(mockrt_kmpc_critical_word(crit), ompt_mutex_critical,
                       ompt_state_wait_critical, __builtin_return_address(0));
}

/* Hints choose a lock implementation; this runtime has one. */
MOCKRT_EXPORT void __kmpc_critical_with_hint(mockrt_ident_t *loc, int32_t gtid,
                                             mockrt_critical_name_t *crit, uint32_t hint)
{
  (void)loc;
  (void)gtid;
  (void)hint;
  mockrt_mutex_acquire(mockrt_kmpc_critical_word(crit), ompt_mutex_critical,
                       ompt_state_wait_critical, __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_critical(mockrt_ident_t *loc, int32_t gtid,
                                       mockrt_critical_name_t *crit)
{
  (void)loc;
  (void)gtid;
  /* libomp 14 reads the code address kept for thread 0, whoever releases:
   * only the initial thread's release names its call, the others' NULL. */
  const void *ra = mockrt_self()->gtid == 0 ? __builtin_return_address(0) : NULL;
  mockrt_mutex_release(mockrt_kmpc_critical_word(crit), ompt_mutex_critical, ra);
}

/*
 * Every thread enters and leaves at once; the barrier after is clang's
 * call.  The executor's work end comes with __kmpc_end_single.
 */
MOCKRT_EXPORT int32_t __kmpc_single(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  return mockrt_ws_single(mockrt_kmpc_task(), __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_single(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  /* The executor's end names the end's call, as libomp 14's. */
  mockrt_ws_single_end_at(mockrt_kmpc_task(), __builtin_return_address(0));
}

/* master and masked: the thread that runs the region reports its begin and end. */
static int32_t mockrt_kmpc_masked_begin(bool mine, const void *codeptr)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  if (mine && mockrt_ompt.masked)
    mockrt_ompt.masked(ompt_scope_begin, &t->team->parallel_data, &t->task_data, codeptr);
  return mine;
}

static void mockrt_kmpc_masked_end(const void *codeptr)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  if (mockrt_ompt.masked && !mockrt_fault(MOCKRT_FAULT_MASKED_END_DROPPED))
    mockrt_ompt.masked(ompt_scope_end, &t->team->parallel_data, &t->task_data, codeptr);
}

MOCKRT_EXPORT int32_t __kmpc_master(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  return mockrt_kmpc_masked_begin(mockrt_kmpc_task()->thread_num == 0, __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_master(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_kmpc_masked_end(__builtin_return_address(0));
}

MOCKRT_EXPORT int32_t __kmpc_masked(mockrt_ident_t *loc, int32_t gtid, int32_t filter)
{
  (void)loc;
  (void)gtid;
  return mockrt_kmpc_masked_begin(mockrt_kmpc_task()->thread_num == filter,
                                  __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_masked(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_kmpc_masked_end(__builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_flush(mockrt_ident_t *loc)
{
  (void)loc;
  atomic_thread_fence(memory_order_seq_cst);
  if (mockrt_ompt.flush)
    mockrt_ompt.flush(&mockrt_self()->thread_data, __builtin_return_address(0));
}

/*
 * Reductions, with the method libomp 14 chooses on a host CPU: a team of
 * one combines without a lock (1, "combine it yourself"); a team of two to
 * four threads, when clang offers it (it always does), combines with atomic
 * updates of its own (2), which the runtime neither locks nor reports; a
 * larger team combines in a critical section on the lock the compiler
 * passes (1: libomp's tree reduction there is a different way to the same
 * result, left out).  The reduction events and state work_reduction
 * (begin to end) come with the methods the runtime takes part in.
 */
#define MOCKRT_IDENT_ATOMIC_REDUCE    0x10
#define MOCKRT_REDUCE_ATOMIC_MAX_TEAM 4
enum { MOCKRT_REDUCE_EMPTY, MOCKRT_REDUCE_ATOMIC, MOCKRT_REDUCE_CRITICAL };

/* The method of this thread's reduction in progress (its begin chose it). */
static MOCKRT_TLS int mockrt_kmpc_reduce_method;

static int32_t mockrt_kmpc_reduce_begin(const mockrt_ident_t *loc, mockrt_critical_name_t *lck,
                                        void *entry_frame, const void *ra)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  unsigned n = t->team->nthreads;
  int method =
      n == 1 ? MOCKRT_REDUCE_EMPTY
      : (n <= MOCKRT_REDUCE_ATOMIC_MAX_TEAM && loc && (loc->flags & MOCKRT_IDENT_ATOMIC_REDUCE))
          ? MOCKRT_REDUCE_ATOMIC
          : MOCKRT_REDUCE_CRITICAL;
  mockrt_kmpc_reduce_method = method;
  mockrt_ws_settle(t);
  if (method == MOCKRT_REDUCE_ATOMIC)
    return 2;
  mockrt_frame_enter(t, entry_frame);
  if (mockrt_ompt.reduction)
    mockrt_ompt.reduction(ompt_sync_region_reduction, ompt_scope_begin, &t->team->parallel_data,
                          &t->task_data, ra);
  if (method == MOCKRT_REDUCE_CRITICAL)
    mockrt_mutex_acquire(mockrt_kmpc_critical_word(lck), ompt_mutex_critical,
                         ompt_state_wait_critical, ra);
  mockrt_set_state(mockrt_self(), ompt_state_work_reduction);
  mockrt_frame_leave(t);
  return 1;
}

/* The end call of method 1 (and of method 2 when blocking: its barrier). */
static void mockrt_kmpc_reduce_end(mockrt_critical_name_t *lck, bool wait,
                                   const mockrt_ident_t *loc, void *entry_frame, const void *ra)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int method = mockrt_kmpc_reduce_method;
  mockrt_frame_enter(t, entry_frame);
  if (method != MOCKRT_REDUCE_ATOMIC) {
    mockrt_set_state(mockrt_self(), ompt_state_work_parallel);
    if (method == MOCKRT_REDUCE_CRITICAL)
      mockrt_mutex_release(mockrt_kmpc_critical_word(lck), ompt_mutex_critical, ra);
    if (mockrt_ompt.reduction)
      mockrt_ompt.reduction(ompt_sync_region_reduction, ompt_scope_end, &t->team->parallel_data,
                            &t->task_data, ra);
  }
  if (wait && t->team->nthreads > 1)
    mockrt_barrier_wait(t, mockrt_kmpc_barrier_kind(loc), ra);
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT int32_t __kmpc_reduce_nowait(mockrt_ident_t *loc, int32_t gtid, int32_t nvars,
                                           size_t size, void *data,
                                           void (*reduce)(void *lhs, void *rhs),
                                           mockrt_critical_name_t *lck)
{
  (void)gtid;
  (void)nvars;
  (void)size;
  (void)data;
  (void)reduce;
  return mockrt_kmpc_reduce_begin(loc, lck, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_reduce_nowait(mockrt_ident_t *loc, int32_t gtid,
                                            mockrt_critical_name_t *lck)
{
  (void)gtid;
  mockrt_kmpc_reduce_end(lck, false, loc, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
}

MOCKRT_EXPORT int32_t __kmpc_reduce(mockrt_ident_t *loc, int32_t gtid, int32_t nvars, size_t size,
                                    void *data, void (*reduce)(void *lhs, void *rhs),
                                    mockrt_critical_name_t *lck)
{
  (void)gtid;
  (void)nvars;
  (void)size;
  (void)data;
  (void)reduce;
  return mockrt_kmpc_reduce_begin(loc, lck, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_reduce(mockrt_ident_t *loc, int32_t gtid, mockrt_critical_name_t *lck)
{
  (void)gtid;
  mockrt_kmpc_reduce_end(lck, true, loc, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
}

/*
 * copyprivate: the thread that ran the single publishes its data in the
 * team, the others copy from it between two barriers (the second keeps the
 * data alive until everyone has copied).  The barriers are implicit ones.
 */
MOCKRT_EXPORT void __kmpc_copyprivate(mockrt_ident_t *loc, int32_t gtid, size_t size, void *data,
                                      void (*copy)(void *dst, void *src), int32_t didit)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  const void *ra = __builtin_return_address(0);
  (void)loc;
  (void)gtid;
  (void)size;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  if (didit)
    t->team->copyprivate = data;
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, ra);
  if (!didit)
    copy(data, t->team->copyprivate);
  mockrt_barrier_wait(t, ompt_sync_region_barrier_implicit, ra);
  mockrt_frame_leave(t);
}
