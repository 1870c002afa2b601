/* What the GOMP wrappers share (gomp_interpose.c, gomp_sync.c): finding
 * the runtime's own entry points, whether knit stands in for OMPT, and the
 * waits a wrapper announces to the calling thread's samples. */
#ifndef KNIT_OMPT_GOMP_WRAP_H
#define KNIT_OMPT_GOMP_WRAP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/thread.h"
#include "ompt/attribution.h"
#include "gomp/gomp_interpose.h"
#include "ompt/ompt_state.h"

/* A wrapper's own definition: exported, and kept out of line so that its
 * frame, named by its CFA, is a frame of its own. */
#define KNIT_GOMP_EXPORT __attribute__((visibility("default"), noinline))

/* Result types of the wrapped entry points (tags VOID, BOOL, INT: not the
 * type names, which may be macros), and how a wrapper keeps the result
 * across its own work after the call (KEEP) and returns it (GIVE). */
#define KNIT_GOMP_RESULT_VOID void
#define KNIT_GOMP_KEEP_VOID
#define KNIT_GOMP_GIVE_VOID   return
#define KNIT_GOMP_RESULT_BOOL bool
#define KNIT_GOMP_KEEP_BOOL   bool kept =
#define KNIT_GOMP_GIVE_BOOL   return kept
#define KNIT_GOMP_RESULT_INT  int
#define KNIT_GOMP_KEEP_INT    int kept =
#define KNIT_GOMP_GIVE_INT    return kept

/* A wrapper's start: `real` is the runtime's entry point and `t` the
 * calling thread. When knit does not stand in for OMPT the call goes
 * straight through, as a tail call where the ISA allows one. */
#define KNIT_GOMP_PASS(ret, name, params, args)                                                    \
  static void *slot;                                                                               \
  void *found_ = __atomic_load_n(&slot, __ATOMIC_RELAXED);                                         \
  if (__builtin_expect(!found_, 0))                                                                \
    found_ = knit_gomp_real(&slot, #name);                                                         \
  KNIT_GOMP_RESULT_##ret(*real) params = (KNIT_GOMP_RESULT_##ret(*) params)found_;                 \
  /* A runtime with OMPT reports to knit's tool itself: one load and the      \
   * call, in every region of such a runtime. */                    \
  if (__atomic_load_n(&knit_ompt_runtime.active, __ATOMIC_RELAXED)) {                              \
    KNIT_GOMP_KEEP_##ret real args;                                                                \
    KNIT_GOMP_GIVE_##ret;                                                                          \
  }                                                                                                \
  knit_thread *t = knit_gomp_self();                                                               \
  if (!t) {                                                                                        \
    KNIT_GOMP_KEEP_##ret real args;                                                                \
    KNIT_GOMP_GIVE_##ret;                                                                          \
  }

/* The runtime's entry point `name`, looked up on first use into *slot
 * (threads that race store the same address). Exits with 127 when the
 * runtime lacks it: the program could not have run without knit either. */
void *knit_gomp_real(void **slot, const char *name);

/* The calling thread when knit stands in for OMPT (a runtime without it:
 * GNU libgomp), counted among the OpenMP threads from its first OpenMP call
 * on; NULL when the wrappers must pass the call straight through (a
 * runtime with OMPT reports it to knit's tool itself, or knit is off). */
knit_thread *knit_gomp_self(void);

/* The calling thread begins a wait inside the wrapper whose CFA is
 * enter_cfa: counted as idle (a barrier) or as waiting for the mutex
 * wait_id, and shown so to its samples. Returns the wait it interrupts
 * (an explicit task run inside a barrier may wait for a lock), for
 * knit_gomp_wait_end. */
knit_gomp_wait knit_gomp_wait_begin(knit_thread *t, int state, uint64_t wait_id,
                                    uintptr_t enter_cfa);

/* The wait ends: a barrier's thread works again; a mutex was acquired
 * (a new holding begins) or, !acquired, given up. */
void knit_gomp_wait_end(knit_thread *t, knit_gomp_wait outer, bool acquired);

/* The call path where the calling thread is: the frames of the task it
 * runs above the wrapper whose CFA is entry_cfa, under that task's own
 * prefix (a region body's path, or an explicit task's creation path). As
 * parallel_begin and task_create capture it under OMPT; NULL when it
 * cannot be had. transient: a task's transient context, which the caller
 * gives back when the task is done (task_contexts.h). */
const knit_call_path *knit_gomp_path_here(uintptr_t entry_cfa, bool transient);

/* A region begins at the wrapper whose CFA is entry_cfa, called from site:
 * its path, captured now, before the fork (gomp_interpose.c says why). */
const void *knit_gomp_region_open(knit_thread *t, uintptr_t entry_cfa, const void *site);

/* What an explicit task interrupts on the thread that runs it: the task or
 * body the thread was running, and the wait it was in. */
typedef struct knit_gomp_saved {
  const void *prefix; /* a path */
  uintptr_t exit_cfa;
  knit_gomp_wait wait;
} knit_gomp_saved;

/* The calling thread t (NULL: one knit does not know) begins an explicit
 * task created where path says, whose body is entered from the frame with
 * CFA exit_cfa: its samples go under path, with the frames outward of that
 * frame cut, as OMPT's task stitching does; a wait it interrupts is over
 * meanwhile, and the thread works. Returns what knit_gomp_task_end
 * restores when the task's body returns. */
knit_gomp_saved knit_gomp_task_begin(knit_thread *t, const knit_call_path *path,
                                     uintptr_t exit_cfa);
void knit_gomp_task_end(knit_thread *t, knit_gomp_saved saved);

#endif /* KNIT_OMPT_GOMP_WRAP_H */
