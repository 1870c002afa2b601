/* The application-level view on GNU libgomp, which has no OMPT.
 *
 * knit wraps the GOMP entry points that start parallel regions. The
 * wrapper captures the encountering thread's call path (as parallel_begin
 * does under OMPT) and runs the region's body through knit's own function,
 * which records on each thread of the team where the body was entered (its
 * CFA: the exit frame of the implicit task) and under which path. Samples
 * are then attributed exactly as with OMPT. Explicit tasks likewise
 * (gomp_task.c): the task's creation path travels in its argument block,
 * and knit's task function publishes it, with its own CFA as the task's
 * exit frame, on the thread that runs the task. Under a runtime whose OMPT
 * accepted knit, the wrappers pass straight through.
 *
 * The wrappers also feed blame (blame.h) as OMPT's callbacks would: a
 * worker works inside a body and is idle outside, the encountering thread
 * waits for its team after its own body returns, a task works (and
 * interrupts the wait it runs in), and the wrapped barriers, task waits,
 * locks, critical sections and atomics announce their waits, mutexes their
 * acquisitions and releases (gomp_sync.c).
 */
#ifndef KNIT_OMPT_GOMP_INTERPOSE_H
#define KNIT_OMPT_GOMP_INTERPOSE_H

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "ompt/attribution.h"

/* Whether the calling thread is running a region body under interposition;
 * if so, *frame gets the synthesized frame record of its implicit task and
 * *prefix the region's call path (captured before the fork: never a
 * ticket, ompt/region_paths.h). Async-signal-safe. */
bool knit_gomp_current_task(ompt_frame_t *frame, const void **prefix);

struct knit_thread;

/* A wait a wrapper is inside (a barrier, a lock, a critical section or an
 * atomic), as the thread's samples see it. */
typedef struct knit_gomp_wait {
  int state;           /* ompt_state_t: a barrier or mutex wait */
  uint64_t wait_id;    /* the mutex's, 0 for a barrier */
  uintptr_t enter_cfa; /* the wrapper's CFA; 0: no wait under way */
} knit_gomp_wait;

/* What the wrappers know of the calling thread, for its samples. */
typedef struct knit_gomp_view {
  bool openmp; /* knit stands in for OMPT, and the thread is an OpenMP one */
  int state;   /* ompt_state_t, apart from the wait below */
  /* ompt_task_implicit in a region body, ompt_task_initial outside any;
   * 0 for a team's worker between bodies, idle in the runtime. */
  int task_flags;
  ompt_frame_t frame;  /* the body's exit frame (run_body) */
  const void *prefix;  /* the region's path, in a body */
  knit_gomp_wait wait; /* the wrapped wait under way */
  /* Load map ids of the runtime and of the C library, which libgomp calls
   * to wait (futex, sched_yield): the only code inward of a wrapper while
   * the thread really waits there (KNIT_MODULE_UNKNOWN when not known). */
  uint32_t runtime_module;
  uint32_t libc_module;
} knit_gomp_view;

/* Fills *v for the calling thread t (NULL: a thread knit does not know).
 * Async-signal-safe. */
void knit_gomp_view_self(const struct knit_thread *t, knit_gomp_view *v);

#endif /* KNIT_OMPT_GOMP_INTERPOSE_H */
