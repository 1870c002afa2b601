/* Which frames of a sample belong to an OpenMP task.
 *
 * A task's own frames lie strictly between the runtime function it entered
 * (its enter_frame: set while the task is inside a runtime call) and the
 * runtime function that called it (its exit_frame). OMPT names both by an
 * address that is either that function's CFA (ompt_frame_cfa) or its frame
 * pointer (ompt_frame_framepointer); both lie within the function's frame,
 * which is how the function is found among unwound frames.
 */
#ifndef KNIT_OMPT_FRAME_RANGE_H
#define KNIT_OMPT_FRAME_RANGE_H

#include <omp-tools.h>
#include <stdbool.h>

#include "unwind/unwinder.h"

/* The index range [*first, *last] of the frames that belong to a task with
 * this frame record (NULL: every frame). Returns false when the range is
 * empty. Pure. */
bool knit_task_frame_range(const knit_frame *frames, int n, const ompt_frame_t *tf, int *first,
                           int *last);

#endif /* KNIT_OMPT_FRAME_RANGE_H */
