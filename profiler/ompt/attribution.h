/* From a raw stack to the application-level call path of a sample.
 *
 * The raw frames of a sample show the runtime's view: a worker's stack ends
 * in the runtime's thread start, and the master's runs through the
 * runtime's fork code. With OMPT, knit cuts every runtime frame away (they
 * lie between a task's exit frame and its parent's enter frame) and puts
 * each task's frames under the call path that was current where its
 * parallel region began, captured by the encountering thread at
 * parallel_begin. Without OMPT the raw frames are used as they are.
 */
#ifndef KNIT_OMPT_ATTRIBUTION_H
#define KNIT_OMPT_ATTRIBUTION_H

#include <stdbool.h>
#include <stdint.h>

#include "ompt/blame.h"
#include "ompt/path_tree.h"
#include "unwind/unwinder.h"


/* Builds the path of one sample, outermost first, into out (at most max
 * frames; the innermost are kept when it does not fit). frames/n/end are
 * the unwinder's output; probe says the sample came from knit_probe(), whose
 * own frames are cut. Returns the path's length; *partial says whether the
 * application-level path is incomplete (the unwind stopped inside the
 * program's own frames); *st, what the runtime says the thread is doing,
 * and whether the path lacks its region's prefix, still being captured
 * (st->pending_slot: the caller keeps the sample, ompt/region_paths.h).
 * Async-signal-safe. */
int knit_attribute_sample(const knit_frame *frames, int n, knit_unwind_end end, bool probe,
                          knit_path_frame *out, int max, bool *partial, knit_sample_state *st);

/* knit_attribute_sample for a walk taken inside an OMPT callback: the path
 * of the program's call into the runtime, the frame that returns to call_ra
 * (a callback's codeptr_ra); without one, the frames of knit and of the
 * runtime (runtime_module) at the top are cut. Waits for a region path
 * still being captured: not for signal handlers. */
int knit_attribute_call(const knit_frame *frames, int n, knit_unwind_end end, uint64_t call_ra,
                        uint32_t runtime_module, knit_path_frame *out, int max, bool *partial,
                        knit_sample_state *st);

/* Where the walk of a sample may stop: the current task's exit frame (the
 * runtime function that called the task), beyond which every frame is the
 * runtime's and the task's region path stands for the rest. 0 when the walk
 * must go to the bottom (no task, or the initial task). *runtime_module is
 * the runtime's load map id (see knit_unwinder.stop_module). Async-signal-
 * safe. */
void knit_unwind_limit(uint64_t *stop_at, bool *stop_is_cfa, uint32_t *runtime_module);

/* True once an OpenMP runtime has accepted knit's OMPT tool. */
bool knit_ompt_active(void);

#endif /* KNIT_OMPT_ATTRIBUTION_H */
