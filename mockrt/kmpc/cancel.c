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

/* clang marks a barrier the program asked for; all others are implicit. */
MOCKRT_EXPORT int32_t __kmpc_cancel_barrier(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  int kind = loc && (loc->flags & MOCKRT_IDENT_BARRIER_EXPL) ? ompt_sync_region_barrier_explicit
                                                             : ompt_sync_region_barrier_implicit;
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  bool cancelled = mockrt_barrier_wait_cancel(t, kind, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return cancelled;
}
