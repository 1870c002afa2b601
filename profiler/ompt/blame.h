/* Blame shifting: charging the time threads spend waiting to the code that
 * made them wait.
 *
 * Undirected blame (OMP_IDLE): every OpenMP thread is counted as working or
 * idle (in the runtime's pool, or waiting in a barrier, taskwait or
 * taskgroup), from OMPT callbacks, or on GNU libgomp, which has none, from
 * the GOMP wrappers (gomp_interpose.h). A working thread's sample is charged
 * periods x idle / working: idleness lands on the code the working threads
 * ran meanwhile, the serial code or the longest share of a loop.
 *
 * Directed blame (OMP_MUTEX): a sample waiting for a lock, critical section,
 * ordered section or atomic adds its time to the waiter's OMP_MUTEX_WAIT and
 * to a shared table under the mutex's wait id. When a thread releases a
 * mutex, it takes what the table holds for that id and charges it, as
 * OMP_MUTEX_BLAME, to its own call path at the release.
 *
 * Nothing is lost silently: a wait id that finds no room in the table
 * (KNIT_STAT_BLAME_LOST) and waits no release claimed by the end of the run
 * (KNIT_STAT_BLAME_UNCLAIMED) are counted in the measurement.
 */
#ifndef KNIT_OMPT_BLAME_H
#define KNIT_OMPT_BLAME_H

#include <stdbool.h>
#include <stdint.h>

struct knit_thread;
struct knit_cct_node;

/* What the runtime said the sampled thread was doing. */
typedef struct knit_sample_state {
  bool openmp;      /* the runtime answered (OMPT is active on this thread) */
  int state;        /* ompt_state_t */
  uint64_t wait_id; /* for wait states */
  /* Set when the sample's region path was not known yet (its capture under
   * way, ompt/region_paths.h): the path holds the frames below it only. */
  struct knit_region_slot *pending_slot;
  uint64_t pending_number;
} knit_sample_state;

/* --- idleness, from OMPT callbacks or GOMP wrappers (not for signal
 * handlers) --- */
/* The calling thread became an OpenMP thread; initial says it runs the
 * initial task (working from the start), otherwise it is a pool thread. */
void knit_blame_thread_begin(struct knit_thread *t, bool initial);
/* The calling thread ends: it no longer counts. */
void knit_blame_thread_end(struct knit_thread *t);
/* A worker's implicit task begins or ends. */
void knit_blame_implicit_task(struct knit_thread *t, bool begin);
/* A barrier, taskwait or taskgroup wait begins or ends. */
void knit_blame_wait(struct knit_thread *t, bool begin);

/* An explicit task begins to run on t (begin), or its body ends. Runtimes
 * run queued tasks while a thread waits in a barrier, a taskwait or a
 * taskgroup's end: the thread then works, and its wait is suspended for as
 * long as the task runs. A recursive task program spends nearly all its
 * time so, inside taskwaits; counting those threads idle charged every
 * sample its whole period again as OMP_IDLE. */
void knit_blame_task_runs(struct knit_thread *t, bool begin);

/* --- samples (async-signal-safe) --- */
/* Charges one sample of `periods` periods, which landed on node, with the
 * blame its state calls for. */
void knit_blame_sample(struct knit_thread *t, struct knit_cct_node *node, uint64_t periods,
                       const knit_sample_state *s);

/* --- holders (from the mutex callbacks, or the GOMP wrappers) --- */
/* The calling thread is about to wait for (or try) the mutex wait_id. */
void knit_blame_acquire(struct knit_thread *t, uint64_t wait_id);
/* The calling thread acquired the mutex wait_id: a new holding begins. */
void knit_blame_acquired(struct knit_thread *t, uint64_t wait_id);
/* The calling thread released wait_id: takes the waits filed under its
 * holding (0 when there are none). Acquisitions find the mutex a slot of
 * the table whether or not anybody waits: a table full of mutexes loses
 * the waits of the others (KNIT_STAT_BLAME_LOST). */
uint64_t knit_blame_take(struct knit_thread *t, uint64_t wait_id);

/* The waits still in the table: what no release claimed. */
uint64_t knit_blame_unclaimed(void);

#endif /* KNIT_OMPT_BLAME_H */
