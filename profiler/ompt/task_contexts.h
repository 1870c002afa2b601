/* The creation contexts of tasks created inside explicit tasks, kept only
 * as long as they are needed.
 *
 * A recursive task program (fib, a task-parallel quicksort) creates a task
 * at a new call path every time: the path through the recursion is the
 * task's own. Interning each one (path_tree.h) would keep a node per task
 * for the life of the process, and cost a shared-tree insertion per task,
 * though at 200 samples a second almost no task is ever sampled.
 *
 * So such a task's context is transient: a knit_call_path that is not
 * interned, holding the frames of its own segment (the creating task's
 * frames down to the runtime call) and a reference to the creating task's
 * context. A sample in the task copies the whole path through those
 * references (knit_path_copy), as it does for interned nodes: nothing is
 * interned for it. Each context counts its references: one for its task
 * and one for each context created under it; it is given back, and its
 * parent's count dropped, when its task is done and no context under it
 * is left. Memory then follows the tasks alive at once, not the tasks
 * made, and a task costs its walk and no shared write.
 *
 * A context is interned only when something must keep it past its task: a
 * parallel region opened inside the task (its path lives in the region's
 * data and the capture cache), or a segment too long to hold inline
 * (knit_path_resolve).
 *
 * Contexts are carved per thread and given back to the thread that made
 * them (a lock-free list per thread for the others' returns), so the
 * common case, a task made and finished on one thread, touches no shared
 * line. Not for signal handlers, but a handler may read any context of a
 * task that is running, since that task holds it. */
#ifndef KNIT_OMPT_TASK_CONTEXTS_H
#define KNIT_OMPT_TASK_CONTEXTS_H

#include <stdbool.h>
#include <stdint.h>

#include "ompt/path_tree.h"

/* Frames a transient context holds inline; a longer segment is interned. */
#define KNIT_TASK_CONTEXT_FRAMES 8

/* A transient context for parent's path followed by own[0..n) (n at most
 * KNIT_TASK_CONTEXT_FRAMES), holding one reference for its task; parent
 * (interned, transient or NULL) gains one if transient. NULL when memory
 * ran out. */
const knit_call_path *knit_task_context_make(const knit_call_path *parent,
                                             const knit_path_frame *own, uint32_t n);

/* The task of p is done: drops its reference, and gives p back (and its
 * ancestors that nothing holds any more). p interned or NULL: nothing. */
void knit_task_context_release(const knit_call_path *p);

/* p as an interned node (itself if it is one): a transient context is
 * interned with its ancestors, once, and stays as it is. */
const knit_call_path *knit_path_resolve(const knit_call_path *p);

/* Whether p is a transient context. */
static inline bool knit_path_is_transient(const knit_call_path *p)
{
  return p && p->transient;
}

/* Transient contexts made, given back, and interned (for the log). */
void knit_task_context_counts(uint64_t *made, uint64_t *given_back, uint64_t *resolved);

#endif /* KNIT_OMPT_TASK_CONTEXTS_H */
