/*
 * omp_control_tool: the program's way to talk to a tool (start, pause,
 * flush, end, or commands of its own from 64 up).  The answer is the tool's
 * control_tool callback's, or omp_control_tool_notool when no tool is
 * active and omp_control_tool_nocallback when the tool has no such callback.
 * While the tool runs, the caller's enter frame names this runtime call.
 */
#include "mockrt.h"

/* omp.h's omp_control_tool_result_t, which the two ABIs' headers share. */
enum { MOCKRT_CONTROL_NOTOOL = -2, MOCKRT_CONTROL_NOCALLBACK = -1 };

MOCKRT_EXPORT int omp_control_tool(int command, int modifier, void *arg)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *t = self->task;
  /* As libomp 14, which answers notool until its start-up completes at the
   * first parallel region, whatever the tool. */
  if (!mockrt_ompt_active() || !mockrt_ompt_forked_once())
    return MOCKRT_CONTROL_NOTOOL;
  int r = MOCKRT_CONTROL_NOCALLBACK;
  if (t)
    mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  if (mockrt_ompt.control_tool)
    r = mockrt_ompt.control_tool((uint64_t)command, (uint64_t)modifier, arg,
                                 __builtin_return_address(0));
  if (t)
    mockrt_frame_leave(t);
  return r;
}
