/* Walking the calling thread's own stack synchronously, from an OMPT
 * callback: where a parallel region or task was created, where a mutex was
 * released. */
#ifndef KNIT_OMPT_WALK_HERE_H
#define KNIT_OMPT_WALK_HERE_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/unwinder.h"

struct knit_thread;

/* Claims the thread's unwinder (t->in_handler) and walks from the caller
 * outward into frames (at most max), stopping at stop_at as
 * knit_unwinder.stop_at says (0: at the bottom); runtime_module as
 * knit_unwinder.stop_module. Returns the number of frames, or -1 when the
 * unwinder was busy (nothing claimed). On success the claim stays: a
 * sample arriving meanwhile is dropped and counted instead of interleaved
 * with the caller's use of the thread's tree; release it with
 * knit_walk_here_done. A fault while walking keeps the frames found so far
 * (*end: partial). Not for signal handlers. */
int knit_walk_here(struct knit_thread *t, uint64_t stop_at, bool stop_is_cfa,
                   uint32_t runtime_module, knit_frame *frames, int max, knit_unwind_end *end);

void knit_walk_here_done(struct knit_thread *t);

/* knit_walk_here with the limit a sample's walk would have: the current
 * task's exit frame (knit_unwind_limit), and *runtime_module set. */
int knit_walk_here_to_limit(struct knit_thread *t, knit_frame *frames, int max,
                            knit_unwind_end *end, uint32_t *runtime_module);

#endif /* KNIT_OMPT_WALK_HERE_H */
