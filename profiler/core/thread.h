/* Per-thread state of the tool and the registry of all threads.
 *
 * Each thread that runs under knit gets one knit_thread, created outside any
 * signal handler when the thread starts (the initial thread at load time,
 * others in knit's pthread_create wrapper), and reached from the handler
 * through one initial-exec TLS pointer (no allocation on first access).
 * The registry is a lock-free list, so the writer at exit can visit every
 * thread that ever ran.
 */
#ifndef KNIT_CORE_THREAD_H
#define KNIT_CORE_THREAD_H

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cct/cct.h"
#include "base/arena.h"
#include "measure/format.h"
#include "ompt/attribution.h"
#include "unwind/unwinder.h"

/* Frames of a synchronous capture (at parallel_begin): kept per thread
 * rather than on the stack or in TLS, which may be small. */
#define KNIT_CAPTURE_FRAMES   256
#define KNIT_LAST_PATH_FRAMES 512

/* Mutexes a thread holds at once whose holdings blame tracks (blame.c);
 * waits on more are counted as unclaimed. */
#define KNIT_HELD_MUTEXES 8

/* One holding of a mutex: the waits other threads' samples filed under it.
 * Written by samples of every thread, hence atomic. */
typedef struct knit_held_mutex {
  _Atomic uint64_t wait_id; /* 0: free */
  _Atomic uint64_t waited;  /* milli-periods */
} knit_held_mutex;

/* Slots of knit_thread.steps: one per module id, one for unknown code. */
#define KNIT_STEP_SLOTS (KNIT_MAX_MODULES + 1u)

typedef struct knit_thread {
  uint32_t index; /* order of creation, from 0 */
  pid_t tid;
  _Atomic uint32_t flags; /* KNIT_THREAD_* */
  knit_arena arena;       /* the CCT's memory */
  knit_cct cct;
  bool cct_ready;
  knit_unwinder unwinder;

  /* Set while the handler runs; the writer at exit waits for it to clear. */
  _Atomic int in_handler;
  /* Signals that came while the thread's own code held in_handler (a
   * capture in an OMPT callback), and the periods they stood for: written
   * by the handler only. The thread takes them as one sample of where it
   * is once it lets go (ompt/missed_samples.h), and counts what it took in
   * taken_*; what is never taken is counted as blocked when the thread's
   * file is written. */
  _Atomic uint64_t missed_signals, missed_periods;
  uint64_t taken_signals, taken_periods;
  /* Set while unwinding: a fault then jumps back to the handler. */
  volatile sig_atomic_t in_unwind;
  sigjmp_buf fault_jump;

  /* The thread's timer: has_timer is exchanged to false by whoever works
   * on it (the thread starting, its handler lengthening the period, the
   * thread moving knit to another signal), and timer_retired set for good
   * when the thread or the process ends (core/sampler.c). */
  timer_t timer;
  _Atomic bool has_timer;
  _Atomic bool timer_retired;
  int timer_signal;         /* the signal the timer sends */
  uint64_t timer_period_ns; /* its period now */
  /* The period the timer should have: the session's, lengthened when
   * sampling takes too large a share of the thread's time. */
  _Atomic uint64_t period_ns;
  /* The cost of sampling since cost_start_ns (the sample clock): handler
   * time and samples, for that safeguard; and how often it acted. */
  uint64_t cost_start_ns, cost_ns;
  uint32_t cost_samples;
  uint32_t slowdowns;
  /* The handler's time over the whole run, and its samples (those that
   * built no recipes), for the log's average. */
  uint64_t handler_ns, handler_samples;
  /* Timer signals taken and the overruns they carried (periods that ended
   * with no signal of their own), for the log's word on CPU-time timers,
   * which fire at the kernel's tick. */
  uint64_t timer_signals, timer_overruns;
  /* The timer's clock (the thread's CPU time, or the monotonic clock) when
   * its timer started or its last sample ended, in ns; 0: not known. */
  uint64_t sample_end_ns;
  /* When its file was last written as a snapshot (monotonic ns; 0: not
   * yet), core/writer.h. */
  uint64_t snapshot_ns;
  _Atomic bool written;    /* its file is claimed by a writer; no more samples */
  _Atomic bool retired;    /* it ended, its file written: its state waits for reuse */
  _Atomic int write_rc;    /* the writer's result, once write_done */
  _Atomic bool write_done; /* its file is on disk (or failed: write_rc) */

  uint64_t stats[KNIT_STAT_COUNT];
  /* What OMPT callbacks (or the GOMP wrappers) say the thread does, for
   * blame (ompt/blame.c); changed by the thread itself only. */
  int32_t omp_depth; /* implicit tasks begun and not ended */
  int32_t omp_waits; /* barrier, taskwait and taskgroup waits under way */
  /* Explicit tasks the thread runs one inside another, and for the
   * innermost 64 of them, a bit each (the innermost lowest): whether the
   * task interrupted a wait, which is suspended while the task runs. */
  uint32_t omp_tasks_run;
  uint64_t omp_task_in_wait;
  bool omp_initial; /* runs the initial task: never in the pool */
  bool omp_counted; /* counted among the OpenMP threads */
  bool omp_idle;    /* counted among the idle ones */
  int32_t omp_slot; /* its place in blame.c's idleness board; -1: counted in the overflow */
  knit_held_mutex held[KNIT_HELD_MUTEXES];
  /* The mutex the thread waits for, as the mutex_acquire callback named
   * it (0: none): runtimes may name it otherwise in the wait state (libomp
   * gives an indirect lock's internal address), and the release names it
   * as the callback does. */
  uint64_t waiting_for;
  /* Unwind steps by module (index: load map id; the last slot, code in no
   * known module) and class (confirmed, probable, wrong). A flat array is
   * the signal-safe choice: 96 KiB of the arena's lazily mapped memory, of
   * which only the pages of the few modules a program runs are touched.
   * NULL if the arena could not provide it. */
  uint64_t (*steps)[3];
  /* The path last put into the tree and the tree node of each of its
   * frames (KNIT_LAST_PATH_FRAMES at most), from the arena: a sample's path
   * shares most of its frames with the one before it (a loop sampled again,
   * a deep stack whose leaf moved), and walks the tree's children only from
   * the first frame that differs (knit_thread_path_node). NULL if the arena
   * could not provide them. */
  knit_path_frame *last_path;
  uint32_t *last_nodes;
  uint32_t last_len;
  knit_frame capture_frames[KNIT_CAPTURE_FRAMES];
  knit_path_frame capture_path[KNIT_CAPTURE_FRAMES * 2];
  /* The captures' cache (ompt/call_paths.c), from the arena at the first
   * capture: most threads never open a region. */
  struct knit_capture_state *capture;
  /* Its parallel regions' tickets and its deferred samples
   * (ompt/region_paths.h), made at its first OpenMP callback. */
  struct knit_region_state *regions;
  /* Its trace (core/trace.h), with -t only: made at its attach and kept
   * with the state, as regions are. NULL without -t. */
  struct knit_trace_state *trace;
  /* The device metrics of the target constructs it launched
   * (ompt/device.h), from the arena at its first construct. */
  struct knit_device_nodes *device_nodes;
  /* The node the last path put into the tree ended at (its id): what a
   * sample's trace event names. */
  uint32_t path_leaf;
  /* The node of the thread's last traced sample, which its transitions
   * name; and whether it is idle, or waits for a mutex, as its trace says
   * (so that every end has its begin). */
  uint32_t trace_last_node;
  bool trace_idle, trace_lock_wait;
  /* When the sample the handler takes now was taken (monotonic ns), for a
   * sample kept until its region's path is known (ompt/region_paths.h). */
  uint64_t trace_sample_ns;
  struct knit_thread *next; /* registry link */
} knit_thread;

/* The calling thread's state, or NULL (a thread knit did not see start). */
knit_thread *knit_thread_self(void);

/* What threads counted, summed for the SUMMARY line. */
typedef struct knit_thread_totals {
  uint64_t samples, partial, blocked, faults, wrong;
  unsigned threads, files, unwritten, empty;
} knit_thread_totals;

/* Adds t's counts (not its thread and file counts) to sum. */
void knit_thread_add_totals(knit_thread_totals *sum, const knit_thread *t);

/* What the threads whose state was reused by later threads counted. */
const knit_thread_totals *knit_thread_retired_totals(void);

/* Creates and registers the calling thread's state (idempotent). flags are
 * KNIT_THREAD_* bits. Not async-signal-safe. */
knit_thread *knit_thread_attach(uint32_t flags);

/* Writes the calling thread's data and releases its timer; called when a
 * thread ends. Not async-signal-safe. */
void knit_thread_detach(void);

/* The node of path (outermost first) in the thread's tree, made as
 * needed; the root for an empty path. For the thread itself, in its handler
 * or with the handler held off (in_handler claimed). */
knit_cct_node *knit_thread_path_node(knit_thread *t, const knit_path_frame *path, int n);

/* The thread's unwinder, fault guard and tree, claimed from its own sample
 * handler (a sample that arrives meanwhile is dropped and counted) by the
 * thread itself, outside the handler, and given back. Only the thread and
 * that handler write in_handler, and a handler that runs between the load
 * and the store has given it back before the store: no locked instruction
 * is needed (a compare-and-swap and a sequentially consistent store cost
 * about 15 ns a region). The fences keep the compiler from moving the work
 * across the claim; other threads only wait for it to clear. */
static inline bool knit_thread_claim(knit_thread *t)
{
  if (atomic_load_explicit(&t->in_handler, memory_order_relaxed) != 0)
    return false;
  atomic_store_explicit(&t->in_handler, 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);
  return true;
}

static inline void knit_thread_give_back(knit_thread *t)
{
  atomic_signal_fence(memory_order_seq_cst);
  atomic_store_explicit(&t->in_handler, 0, memory_order_release);
}

/* The first thread of the registry (newest first); walk with ->next. */
knit_thread *knit_thread_list(void);

#endif /* KNIT_CORE_THREAD_H */
