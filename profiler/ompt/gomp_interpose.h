/* The application-level view on GNU libgomp, which has no OMPT.
 *
 * knit wraps the GOMP entry points that start parallel regions. The
 * wrapper captures the encountering thread's call path (as parallel_begin
 * does under OMPT) and runs the region's body through knit's own function,
 * which records on each thread of the team where the body was entered (its
 * CFA: the exit frame of the implicit task) and under which path. Samples
 * are then attributed exactly as with OMPT. Under a runtime whose OMPT
 * accepted knit, the wrappers pass straight through.
 */
#ifndef KNIT_OMPT_GOMP_INTERPOSE_H
#define KNIT_OMPT_GOMP_INTERPOSE_H

#include <omp-tools.h>
#include <stdbool.h>

#include "ompt/attribution.h"

/* Whether the calling thread is running a region body under interposition;
 * if so, *frame gets the synthesized frame record of its implicit task and
 * *prefix the region's call path. Async-signal-safe. */
bool knit_gomp_current_task(ompt_frame_t *frame, const knit_call_path **prefix);

/* Whether the calling thread has ever run a region body as a worker of a
 * team (so that, between regions, it is an idle runtime thread).
 * Async-signal-safe. */
bool knit_gomp_is_worker(void);

#endif /* KNIT_OMPT_GOMP_INTERPOSE_H */
