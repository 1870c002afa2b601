/* Which frames of a stack belong to a task: the pure part of frame
 * elision, testable without a runtime. */
#include "ompt/frame_range.h"

#include <stdint.h>

int knit_ompt_frame_flags(int flags)
{
  const int known = ompt_frame_application | ompt_frame_stackaddress;
  return (flags & ~known) ? 0 : flags;
}

const ompt_frame_t *knit_ompt_frame_checked(const ompt_frame_t *tf, ompt_frame_t *scratch)
{
  if (!tf || !tf->enter_frame.ptr || tf->enter_frame.ptr != tf->exit_frame.ptr)
    return tf;
  *scratch = *tf;
  scratch->enter_frame.ptr = NULL;
  return scratch;
}

/* The frame that is the runtime function an OMPT frame address names: the
 * first frame whose CFA lies above the address, or at it when the address
 * is a CFA. With a frame-pointer address the function's own CFA is above
 * it and its callee's is at or below it. */
static int frame_named_by(const knit_frame *frames, int n, const ompt_frame_t *tf, bool enter)
{
  /* A walk that stopped at the exit frame marked the frame it stopped at:
   * that is the one, whatever its computed CFA says. */
  if (!enter && n > 0 && (frames[n - 1].flags & KNIT_FRAME_AT_LIMIT))
    return n - 1;
  uint64_t a = (uint64_t)(uintptr_t)(enter ? tf->enter_frame.ptr : tf->exit_frame.ptr);
  int flags = knit_ompt_frame_flags(enter ? tf->enter_frame_flags : tf->exit_frame_flags);
  bool is_cfa = (flags & ompt_frame_cfa) != 0;
  for (int i = 0; i < n; i++)
    if (frames[i].cfa > a || (is_cfa && frames[i].cfa == a))
      return i;
  return n;
}

bool knit_task_frame_range(const knit_frame *frames, int n, const ompt_frame_t *tf, int *first,
                           int *last)
{
  int lo = 0, hi = n - 1;
  ompt_frame_t own;
  tf = knit_ompt_frame_checked(tf, &own);
  /* An enter frame flagged as the application's names the task's last
   * frame of its own before the runtime (libomp's if(0) tasks: the
   * function that calls __kmpc_omp_task_begin_if0), not a frame of the
   * runtime: it stays. */
  if (tf && tf->enter_frame.ptr)
    lo = frame_named_by(frames, n, tf, true) +
         ((knit_ompt_frame_flags(tf->enter_frame_flags) & ompt_frame_application) ? 0 : 1);
  if (tf && tf->exit_frame.ptr)
    hi = frame_named_by(frames, n, tf, false) - 1;
  *first = lo;
  *last = hi;
  return lo <= hi;
}

bool knit_ompt_frame_is_live(const void *frame, const void *below)
{
  return frame != NULL && (uintptr_t)frame > (uintptr_t)below;
}
