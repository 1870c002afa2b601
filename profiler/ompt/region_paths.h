/* A parallel region's call path, captured after its team is released.
 *
 * parallel_begin comes before the runtime releases the new team's workers,
 * so a capture there (a few hundred instructions when the path is
 * remembered) delays every worker of every region by that much. Instead the
 * encountering thread keeps what the capture needs, stores a ticket in
 * parallel_data, and captures at its own implicit_task begin, which every
 * runtime knit knows calls after the release (LLVM's libomp through both of
 * its ABIs, knit's mocks): it works while its workers wake up. Not on GNU
 * libgomp: its release waits for the workers to reach it, so the GOMP
 * wrappers capture before the fork (gomp_interpose.c).
 *
 * Until then a worker may meet the ticket where it expects its region's
 * path (the implicit task's prefix):
 *   - a callback that needs the path (a nested region, a task, a release's
 *     blame) waits for it, a bounded time (knit_region_path_wait);
 *   - a sample cannot wait: its frames below the prefix stay on the thread
 *     (knit_deferred_keep) and go under the path once it is known, at the
 *     thread's next sample or callback (knit_deferred_flush). A sample that
 *     cannot be kept, or whose region was never resolved, goes under
 *     <partial>, counted as a partial sample: nothing is lost silently.
 * A call site met for the first time is captured at parallel_begin, as a
 * region's path always was: a first capture walks the stack and may analyse
 * code, which would keep the ticket open for long.
 *
 * A ticket names a slot of the encountering thread's own board, one slot
 * per level of the regions it has open (regions it opens inside its own
 * implicit tasks nest), so a slot serves one region for all of that
 * region's life, and the next region at its level after it. The slot says
 * which region it serves: a sample kept past its region is recognized,
 * never given another region's path. Boards live as long as the process: a
 * ticket never dangles. Regions nested deeper than the board are captured
 * at parallel_begin. */
#ifndef KNIT_REGION_PATHS_H
#define KNIT_REGION_PATHS_H

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/format.h"
#include "ompt/attribution.h"

struct knit_thread;
struct knit_sample_state;

#define KNIT_REGION_SLOTS      32
#define KNIT_REGION_WARM_SITES 64
#define KNIT_DEFERRED_SAMPLES  16
#define KNIT_DEFERRED_FRAMES   128

typedef struct knit_region_slot {
  _Atomic uint64_t opened; /* the number of the region it serves, from 1 */
  _Atomic uint64_t done;   /* == opened once path is final */
  const knit_call_path *path;
} knit_region_slot;

/* A sample whose region's path was not known yet: its frames below the
 * prefix and its metrics. */
typedef struct knit_deferred_sample {
  knit_region_slot *slot;
  uint64_t number;
  uint64_t time_ns; /* when it was taken, for its trace event (core/trace.h) */
  uint32_t len;
  uint64_t metrics[KNIT_METRIC_HOST_COUNT];
  knit_path_frame frames[KNIT_DEFERRED_FRAMES];
} knit_deferred_sample;

/* A thread's regions and deferred samples, made at its first OpenMP
 * callback (knit_region_state_of); written by the thread only (the board's
 * slots are read by every thread). */
typedef struct knit_region_state {
  knit_region_slot slots[KNIT_REGION_SLOTS];
  uint64_t opened; /* regions this thread opened with a ticket (ever) */
  uint32_t open;   /* of those, not ended: the level of the next */
  /* The implicit tasks the thread runs, one bit each, the innermost
   * lowest: set for a task of a region it opened with a ticket. */
  uint64_t tasks;
  /* The slot of the region whose capture waits for the thread's implicit
   * task; NULL when none waits. */
  knit_region_slot *pending_slot;
  ompt_frame_t pending_here;
  void *pending_outer;      /* the encountering task's prefix: a path or a ticket */
  const void *pending_site; /* the region's call site (codeptr_ra) */
  /* Call sites (codeptr_ra) captured before, direct-mapped. */
  const void *warm_sites[KNIT_REGION_WARM_SITES];
  /* Deferred samples; count changes only with the handler held off. */
  uint32_t deferred_count;
  knit_deferred_sample deferred[KNIT_DEFERRED_SAMPLES];
  /* The encountering task of the region the thread began last and the
   * word its parallel_data got, until the thread's next implicit task
   * begins; and a region's data lent to a region that the runtime reports
   * under it, with the word it held and the task it is lent to (tool.c:
   * LLVM's libomp 14, gcc's regions inside a host teams construct). */
  const ompt_data_t *begun_by;
  void *begun_word;
  ompt_data_t *lent;
  void *lent_word;
  const ompt_data_t *lent_to;
  /* For the log (with opened): samples deferred, deferred samples that
   * found their path, and those that did not (under <partial>), waits that
   * gave up, regions whose encountering thread got no implicit task. */
  uint64_t kept, resolved, unresolved, gave_up, untasked;
} knit_region_state;

/* The thread's region state, made on first use. Not for signal handlers. */
knit_region_state *knit_region_state_of(struct knit_thread *t);

/* parallel_begin: the word to store in the new region's parallel_data: a
 * ticket, when the capture can wait for the thread's implicit task (the
 * runtime reports the task: deferrable), or the path, captured now. outer:
 * the encountering task's prefix word; site: the region's call site. */
void *knit_region_open(struct knit_thread *t, const ompt_frame_t *here, void *outer,
                       const void *site, bool deferrable);

/* An implicit task begins on the thread: if it is the task of the region
 * the thread just opened with a ticket, the region's path is captured. */
void knit_region_task_begins(struct knit_thread *t);

/* An implicit task of the thread ends: the slot of a region it opened is
 * free again, and samples it kept are resolved. */
void knit_region_task_ends(struct knit_thread *t);

/* parallel_end: a region whose capture still waits (its runtime gave the
 * encountering thread no implicit task) is resolved without a path. */
void knit_region_close(struct knit_thread *t);

/* The path a prefix word stands for, waiting (bounded) for a ticket to be
 * resolved. For callbacks, never for signal handlers. */
const knit_call_path *knit_region_path_wait(const void *word);

/* Without waiting, for the handler: true and *path when the word is a path
 * or a resolved ticket; false, and *slot and *number set, while the
 * ticket's capture is under way. */
bool knit_region_path_peek(const void *word, const knit_call_path **path, knit_region_slot **slot,
                           uint64_t *number);

/* In the handler: keeps a sample of path[0..len) (the frames below its
 * region's prefix) with its metrics until its region is resolved. False
 * when it cannot be kept. */
bool knit_deferred_keep(struct knit_thread *t, const struct knit_sample_state *st,
                        const knit_path_frame *path, int len, const uint64_t *metrics);

/* Puts the thread's deferred samples whose regions are resolved into its
 * tree. wait: waits for the others too (callbacks), else leaves them (the
 * handler). give_up: what stays unresolved goes under <partial> (the
 * thread's end, the writer). The caller holds off the handler. */
void knit_deferred_flush(struct knit_thread *t, bool wait, bool give_up);

/* Flushes from a callback: claims the thread from its handler and waits;
 * give_up as for knit_deferred_flush (the thread's end). */
void knit_deferred_flush_here(struct knit_thread *t, bool give_up);

/* Before a probe's signal, outside any handler: waits for the calling
 * task's region path if it is still being captured, so that a probe's
 * sample is never deferred and PROBE runs stay deterministic. */
void knit_region_settle(void);

/* In the handler: the prefix word of a sample of a task with this region
 * data and frame record, given word, the one the data holds. While the
 * data is lent to a region begun inside it (tool.c) and the task has no
 * exit frame (the runtime forks or joins that region), the word the data
 * held before. */
const void *knit_region_unlent(struct knit_thread *t, const ompt_data_t *parallel_data,
                               const ompt_frame_t *tf, const void *word);

/* Logs the tickets and deferred samples of every thread. */
void knit_region_log(void);

#endif /* KNIT_REGION_PATHS_H */
