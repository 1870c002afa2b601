/* The offloading library's frames between a target construct and the
 * kernel it runs on the host.
 *
 * LLVM's host plugin runs a kernel on the thread that launched it, called
 * from the program's __tgt_target_*_mapper call through libomptarget, the
 * plugin (libomptarget.rtl.<arch>.so) and libffi's ffi_call. Those frames
 * are the offloading runtime's plumbing, as an OpenMP runtime's frames
 * between a region's call and its body are: a path shows the construct
 * instead, an <omp-target> placeholder (named `target at FILE:LINE` by the
 * report) right under the program's call, and the kernel's frames under
 * it, so that a kernel's samples, and the parallel regions it opens, sit
 * where the mock device's metrics for the same construct are. A kernel
 * may call the OpenMP runtime as its last act (clang's kernel entry
 * tail-calls __kmpc_fork_teams): then no frame of it is left between the
 * library's and the runtime's, whose frames were cut already. A sample
 * inside the library itself (moving data, loading an image) keeps the
 * library's frames as they are. Modules are told by their file names
 * (libomptarget*, libffi*), once per module, in the handler without
 * allocating. */
#ifndef KNIT_OMPT_OFFLOAD_FRAMES_H
#define KNIT_OMPT_OFFLOAD_FRAMES_H

#include <stdbool.h>

#include "unwind/unwinder.h"

/* Where a path's frames[first..last] (innermost first) pass through the
 * offloading library. */
typedef struct knit_offload_run {
  int outer; /* the run's outermost frame, where the placeholder stands
                for the run; -1 when there is nothing to replace */
  int inner; /* its innermost frame */
} knit_offload_run;

/* Finds the outermost run of offloading frames in frames[first..last]
 * that the program entered (a program frame lies outward of it) and that
 * leads to a kernel: program frames lie inward of it, or it reaches
 * frames[first] and runtime_inward says the OpenMP runtime's frames were
 * cut inward of that (a capture in a runtime callback, a sample in the
 * runtime). Async-signal-safe. */
knit_offload_run knit_offload_run_find(const knit_frame *frames, int first, int last,
                                       bool runtime_inward);

#endif /* KNIT_OMPT_OFFLOAD_FRAMES_H */
