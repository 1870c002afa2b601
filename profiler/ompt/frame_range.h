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

/* The flags of a frame address as the runtime meant them. LLVM's libomp 14
 * sets the addresses alone, never the flags, and the frame record of a
 * serialized region's implicit task is made on the stack without them (a
 * host teams construct's team, a region inside it): they hold what that
 * memory held before, and come back from memory freed since when the
 * region ends. Bits that are no flag's say so: the word is then read as
 * no flag at all (the runtime's frame, its kind unsaid), which is what
 * libomp means by an address it sets. Pure. */
int knit_ompt_frame_flags(int flags);

/* tf, or, when its enter frame is its exit frame, a copy in *scratch
 * without the enter frame. A task's body is at least one frame between the
 * runtime function that called it and the one it entered, so such an enter
 * frame is left from before: LLVM's libomp 14 leaves the one GOMP_parallel
 * set before the fork on the task it then runs the body in, when it forms
 * no team for a region inside a host teams construct's team (the team's
 * own task, tool.c), and sets the exit frame to the same. (Only the same
 * address: an if(0) task's exit frame on libomp may be any small integer,
 * below every enter frame.) Pure. */
const ompt_frame_t *knit_ompt_frame_checked(const ompt_frame_t *tf, ompt_frame_t *scratch);

/* The index range [*first, *last] of the frames that belong to a task with
 * this frame record (NULL: every frame). Returns false when the range is
 * empty. Pure. */
bool knit_task_frame_range(const knit_frame *frames, int n, const ompt_frame_t *tf, int *first,
                           int *last);

/* Whether an OMPT frame address can name a frame that is live on the
 * calling thread's current stack: one above `below`, an address in the
 * frame of the caller (the sample handler or a callback), which lies below
 * every live frame of the stack it runs on. A frame address taken with
 * __builtin_frame_address in a caller built without frame pointers is
 * whatever that register held (libomp's if(0) tasks), most often a small
 * integer; such an address is not live, and must neither end a walk nor
 * cut frames. NULL is not live. A cactus stack keeps a task's exit frame on
 * the segment the task runs on, above its frames, so this holds there too;
 * an enclosing task's frames may lie on another segment and are not to be
 * judged by it. Pure. */
bool knit_ompt_frame_is_live(const void *frame, const void *below);

#endif /* KNIT_OMPT_FRAME_RANGE_H */
