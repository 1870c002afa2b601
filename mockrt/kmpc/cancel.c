/*
 * Cancellation under the __kmpc_* ABI: cancel, cancellation point and the
 * cancellable barrier clang uses in regions with cancel constructs
 * (core/cancel.c does the work; a cancelled taskgroup's tasks not yet
 * started are discarded by core/task.c).
 */
#include "kmpc.h"

/* LLVM's kmp_cancel_kind_t. */
enum {
  MOCKRT_KMP_CANCEL_PARALLEL = 1,
  MOCKRT_KMP_CANCEL_LOOP = 2,
  MOCKRT_KMP_CANCEL_SECTIONS = 3,
  MOCKRT_KMP_CANCEL_TASKGROUP = 4
};

static int mockrt_kmpc_cancel_kind(int32_t kind)
{
  switch (kind) {
  case MOCKRT_KMP_CANCEL_PARALLEL: return ompt_cancel_parallel;
  case MOCKRT_KMP_CANCEL_LOOP: return ompt_cancel_loop;
  case MOCKRT_KMP_CANCEL_SECTIONS: return ompt_cancel_sections;
  case MOCKRT_KMP_CANCEL_TASKGROUP: return ompt_cancel_taskgroup;
  default: return 0;
  }
}

MOCKRT_EXPORT int32_t __kmpc_cancel(mockrt_ident_t *loc, int32_t gtid, int32_t kind)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int k = mockrt_kmpc_cancel_kind(kind);
  (void)loc;
  (void)gtid;
  if (!k || !mockrt_icv.cancellation)
    return 0;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  bool cancelled = mockrt_cancel(t, k, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}

MOCKRT_EXPORT int32_t __kmpc_cancellationpoint(mockrt_ident_t *loc, int32_t gtid, int32_t kind)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int k = mockrt_kmpc_cancel_kind(kind);
  (void)loc;
  (void)gtid;
  if (!k || !mockrt_icv.cancellation)
    return 0;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  bool cancelled = mockrt_cancel_point(t, k, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}

/*
 * The barrier clang calls in regions with cancel constructs, as libomp 14
 * has it: the team's barrier (a call from inside the runtime: its events'
 * codeptr_ra is the runtime's), then, while a cancellation of the region,
 * a loop or sections is pending, a second one, after which every thread has
 * seen it and the request is withdrawn; true for a cancelled region.  Every
 * thread of a cancelled region comes to one at the region's end, so the
 * team's barrier counts stay exact; no cancel events here.  clang marks a
 * barrier the program asked for; all others are implicit.
 */
MOCKRT_EXPORT int32_t __kmpc_cancel_barrier(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int kind = loc && (loc->flags & MOCKRT_IDENT_BARRIER_EXPL) ? ompt_sync_region_barrier_explicit
                                                             : ompt_sync_region_barrier_implicit;
  const void *inside = (const void *)(uintptr_t)__kmpc_cancel_barrier;
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_barrier_wait(t, kind, inside);
  bool cancelled = mockrt_icv.cancellation && mockrt_cancel_settle(t, kind, inside);
  mockrt_frame_leave(t);
  return cancelled;
}
