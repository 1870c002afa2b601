/*
 * How the Intel layout calls an explicit task's routine: from this runtime
 * function on the thread's own stack (LLVM's __kmp_invoke_task calls it
 * from C as well), whose frame address is the task's exit frame
 * (ompt_frame_framepointer, as libomp 14 writes it).
 */
#include "../kmpc/kmpc.h"
#include "../core/task.h"

MOCKRT_NOINLINE void mockrt_kmpc_task_invoke(mockrt_xtask_t *x)
{
  int32_t gtid = mockrt_self_tls.gtid;
  mockrt_frame_exit_ex(&x->task, __builtin_frame_address(0),
                       ompt_frame_runtime | ompt_frame_framepointer);
  mockrt_task_invoked(x);
  /* An untied task's routine may ask to run its next part (kmpc/task.c). */
  do {
    x->again = false;
    ((int32_t(*)(int32_t, void *))x->fn)(gtid, x->arg);
  } while (x->again);
  mockrt_frame_unexit(&x->task);
}
