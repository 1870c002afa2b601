/*
 * How the PGI layout calls an explicit task's routine: on a stack segment
 * of its own, like an implicit task's body (invoke.c).  The switch calls
 * the trampoline on the segment, and the trampoline calls
 * mockrt_pgi_task_body, which calls the routine: the body's frame is the
 * runtime frame that calls the routine, so its frame address, on the
 * segment, is the task's exit frame (ompt_frame_framepointer, as libomp 14
 * writes it; the trampoline's own store goes to a scratch slot).
 */
#include "../kmpc/kmpc.h"
#include "../core/task.h"
#include "segment.h"

static MOCKRT_NOINLINE void mockrt_pgi_task_body(int32_t *gtid, int32_t *btid, mockrt_xtask_t *x)
{
  (void)btid;
  mockrt_frame_exit_ex(&x->task, __builtin_frame_address(0),
                       ompt_frame_runtime | ompt_frame_framepointer);
  mockrt_task_invoked(x);
  /* An untied task's routine may ask to run its next part (kmpc/task.c). */
  do {
    x->again = false;
    ((int32_t(*)(int32_t, void *))x->fn)(*gtid, x->arg);
  } while (x->again);
  mockrt_frame_unexit(&x->task);
}

void mockrt_kmpc_task_invoke(mockrt_xtask_t *x)
{
  int32_t gtid = mockrt_self_tls.gtid, btid = x->task.thread_num;
  void *argv[1] = {x};
  void *scratch = NULL;
  mockrt_pgi_segment_t seg;

  /* Out of address space, the task runs on the thread's own stack. */
  if (MOCKRT_UNLIKELY(!mockrt_pgi_segment_take(&seg))) {
    mockrt_pgi_task_body(&gtid, &btid, x);
    return;
  }
  mockrt_pgi_call_t call = {(void (*)(void))mockrt_pgi_task_body, &gtid, &btid, 1, argv, &scratch};
  mockrt_pgi_switch(seg.top, &call);
  mockrt_pgi_segment_give(&seg);
}
