/*
 * mockrt core: the parts every personality (gomp, intel, pgi) shares.
 *
 * The core owns the thread-local state that OMPT inquiries read, the tasks
 * and teams that describe parallel regions, the worker pool, barriers, locks,
 * worksharing dispatch and the OMPT dispatch table.  A personality owns the
 * ABI entry points: those must evaluate MOCKRT_ENTRY_FRAME() themselves and
 * call the outlined function themselves, because the frame layout that a
 * profiler sees is exactly what distinguishes one personality from another.
 *
 * Signal safety: every structure reachable from a thread's current-task
 * pointer stays valid for as long as that pointer may be read, and every
 * structure is filled in before the pointer to it is published.
 */
#ifndef MOCKRT_CORE_MOCKRT_H
#define MOCKRT_CORE_MOCKRT_H

#include <omp-tools.h>
#include "target_hooks.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MOCKRT_EXPORT      __attribute__((visibility("default")))
#define MOCKRT_NOINLINE    __attribute__((noinline))
#define MOCKRT_TLS         __thread __attribute__((tls_model("initial-exec")))
#define MOCKRT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MOCKRT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the runtime's own globals: read directly, not through the GOT. */
#define MOCKRT_HIDDEN      __attribute__((visibility("hidden")))

/* The largest team the mock builds; requests beyond it are clipped. */
#define MOCKRT_MAX_THREADS 256
/* Worksharing constructs that may be in flight at once (nowait chains). */
#define MOCKRT_WS_SLOTS    8

/*
 * Static: chunk k of the loop goes to thread k % nthreads, computed by each
 * thread alone (so no thread can take another's chunk); an unchunked static
 * loop has one chunk per thread.  Deterministic mode serves every schedule
 * this way (ws.c).
 */
enum mockrt_sched { MOCKRT_SCHED_DYNAMIC = 1, MOCKRT_SCHED_GUIDED = 2, MOCKRT_SCHED_STATIC = 3 };

/*
 * One worksharing construct (loop, sections or single) shared by a team.
 * Threads number the constructs they meet; construct k uses slot
 * k % MOCKRT_WS_SLOTS once that slot's ticket says k.
 */
typedef struct mockrt_ws {
  atomic_ulong ticket; /* construct number this slot serves next */
  atomic_int phase;    /* 0 unused, 1 being set up, 2 ready */
  atomic_int left;     /* threads that have not left the construct */
  atomic_long next;    /* next iteration index not yet handed out */
  atomic_int single;   /* 1 once a thread has claimed a single */
  atomic_long ord;     /* iteration index whose ordered region may run next */
  int sched;
  int wstype; /* ompt_work_t */
  long count; /* iterations in total */
  long chunk;
  long start;
  long incr;
  struct mockrt_doacross *doacross; /* a doacross loop's flags (doacross.c), or NULL */
} mockrt_ws_t;

/* A counting barrier whose generation word doubles as the futex. */
typedef struct mockrt_barrier {
  atomic_uint arrived;
  atomic_uint gen;
  unsigned n;
} mockrt_barrier_t;

struct mockrt_team;
struct mockrt_xtask;
struct mockrt_taskgroup;

/*
 * The explicit tasks of a team (core/task.c): a queue of tasks ready to run
 * under one lock word, the count of tasks not yet complete (barriers wait
 * for it to reach zero) and a futex word bumped whenever a task is queued
 * or completes, on which threads with nothing to run sleep.
 */
typedef struct mockrt_team_tasks {
  atomic_int lock;
  struct mockrt_xtask *head, *tail;
  atomic_uint unfinished;
  atomic_uint wake;
  atomic_uint sleepers;
} mockrt_team_tasks_t;

/*
 * How the __kmpc_* personalities call an outlined body: through a
 * trampoline of their own layout (an assembly routine for intel, a stack
 * switch for pgi).  The trampoline calls fn(gtid, btid, argv[0], ...,
 * argv[argc - 1]) and, before that call, stores its own CFA into
 * *exit_frame, because only it knows where its frame is: it is the runtime
 * function that calls the body, so its CFA is the task's exit frame.
 */
typedef void (*mockrt_invoke_fn)(void (*fn)(void), int32_t *gtid, int32_t *btid, int argc,
                                 void **argv, void **exit_frame);
typedef struct mockrt_microtask {
  mockrt_invoke_fn invoke;
  void (*fn)(void);
  int argc;
  void **argv; /* lives on the master's stack for the region */
} mockrt_microtask_t;

/*
 * A task's position inside its current worksharing construct: the chunks a
 * fixed assignment gives it, its ordered turn, and a single construct whose
 * executor end is still to be reported (gcc calls nothing at its end).
 */
typedef struct mockrt_ws_pos {
  long fixed_k;            /* fixed assignment: the next chunk number this task owns */
  long walk_k, walk_first; /* guided fixed assignment: chunk walk_k starts at walk_first */
  long ord_first, ord_end; /* ordered unit (an iteration or a chunk) the task runs */
  bool ord_held, ord_passed;
  bool ordered;            /* the loop has the ordered clause (__kmpc_* dispatch) */
  const void *codeptr;     /* of the construct, for its work end */
  const void *single_open; /* a single whose executor end is pending, or NULL */
} mockrt_ws_pos_t;

/*
 * A task as OMPT sees it: an implicit task of a team or the initial task of
 * an initial thread.  The frame and data fields are what get_task_info hands
 * out, so their addresses must stay stable while the task exists.
 */
typedef struct mockrt_task {
  ompt_frame_t frame;
  ompt_data_t task_data;
  struct mockrt_task *parent; /* the task that encountered the region */
  struct mockrt_team *team;   /* the team this task belongs to */
  int thread_num;
  int flags;             /* ompt_task_implicit or ompt_task_initial */
  int nthreads_var;      /* ICV inherited by nested regions */
  unsigned long ws_next; /* number of the next worksharing construct */
  mockrt_ws_t *ws;       /* the construct the task is inside */
  mockrt_ws_pos_t pos;   /* where the task is inside ws (ws.c, ordered.c) */
  mockrt_ws_t *doacross; /* the slot of the doacross loop it is in (doacross.c) */
  /* Explicit tasking (task.c); all zero in a fresh task. */
  atomic_int children;                /* child tasks not yet complete (taskwait) */
  struct mockrt_taskgroup *taskgroup; /* innermost taskgroup this task has open */
  struct mockrt_xtask *dep_children;  /* children with dependences, not yet complete */
} mockrt_task_t;

/* A team: the threads that run one parallel region (or the initial thread). */
typedef struct mockrt_team {
  ompt_data_t parallel_data;
  void (*fn)(void *);
  void *data;
  const mockrt_microtask_t *micro; /* if set, workers run this instead of fn(data) */
  void *volatile copyprivate;      /* the single thread's data, for copyprivate */
  unsigned nthreads;
  int level;        /* enclosing parallel regions, this included */
  int active_level; /* the same, counting only teams of > 1 */
  mockrt_task_t *encountering;
  int invoker; /* ompt_parallel_invoker_runtime or _program, set at the fork */
  int kind;    /* MOCKRT_TEAM_*, set at the fork from the thread's fork_kind */
  /* The threads a team of the teams construct the team is in may have (0:
   * not in teams), which bounds the regions nested in it, and its
   * thread_limit clause (0: none), thread-limit-var there; inherited. */
  unsigned cg_limit;
  unsigned cg_thread_limit_var;
  /* Host teams: a team's own region names its team's number (by default
   * the thread number of its initial thread in the league), a league the
   * number of its teams (by default its threads); core/teams.c reads them. */
  unsigned team_num;
  unsigned num_teams;
  /* nthreads-var of the team's implicit tasks, set at the fork: a worker
   * that read it from the encountering task would share that task's cache
   * line with the frame record its thread writes meanwhile (with a tool). */
  int tasks_nthreads_var;
  const void *codeptr;
  mockrt_barrier_t barrier;
  atomic_uint left;   /* workers that have finished with the team */
  bool preset_ws;     /* slot 0 is a loop every thread starts in */
  bool inline_serial; /* serialized by the program (thread's fork_inline) */
  /* One more than the barrier generation in which an explicit task was
   * last created (0: none), with a tool: the join can tell whether tasks
   * came since the team's last barrier (barrier.c). */
  atomic_uint task_gen;
  atomic_int cancelled;            /* cancel parallel was activated (cancel.c) */
  atomic_int ws_cancelled;         /* cancel for/sections, until the construct's barrier */
  mockrt_barrier_t cancel_barrier; /* cancellable barriers; unused once cancelled */
  mockrt_team_tasks_t tasks;       /* explicit tasks (task.c) */
  mockrt_ws_t ws[MOCKRT_WS_SLOTS];
} mockrt_team_t;

/*
 * What a team is (host teams: kmpc/teams.c, gomp/teams.c).  A league's threads are the
 * initial threads of its teams: its events say ompt_parallel_league and
 * ompt_task_initial.  A team's own region is the one each of them opens to
 * run the teams body, as libomp 14 does, always on a team of one.  Neither
 * counts as a nesting level.
 */
enum { MOCKRT_TEAM_PARALLEL = 0, MOCKRT_TEAM_LEAGUE = 1, MOCKRT_TEAM_TEAMS_BODY = 2 };

/* Per-thread state; lives in initial-exec TLS so a signal handler can read it. */
typedef struct mockrt_thread {
  int kind;           /* 0 unknown, else ompt_thread_initial/worker/other */
  int gtid;           /* global thread number (__kmpc_* ABIs); -1 if none */
  volatile int state; /* an ompt_state_t */
  volatile ompt_wait_id_t wait_id;
  ompt_data_t thread_data;
  mockrt_task_t *volatile task; /* the current task */
  mockrt_task_t initial_task;
  mockrt_team_t *initial_team; /* allocated once, never freed */
  int no_tool;                 /* attached, and no tool is (mockrt_plain_entry) */
  /* The next region this thread forks is the runtime's to invoke (its
   * trampoline calls the body: __kmpc_fork_call), as its parallel_begin
   * and parallel_end flags say; reset by the fork. */
  bool fork_by_runtime;
  /* The next region this thread forks is one the program serialized and
   * runs itself (__kmpc_serialized_parallel): as in libomp 14, its fork
   * and join are not overhead; reset by the fork. */
  bool fork_inline;
  /* The MOCKRT_TEAM_* of the next region this thread forks; reset by the fork. */
  int fork_kind;
  /* The thread has a place: a worker from its start, an initial thread
   * from its first fork (libomp 14 binds it there). */
  bool place_bound;
  /* The target construct the thread is in, for ompt_get_target_info (set
   * by the mock device through target_hooks.c; target_id 0: none). */
  int target_device;
  ompt_id_t target_id;
  ompt_id_t target_host_op_id;
} mockrt_thread_t;

extern MOCKRT_TLS mockrt_thread_t mockrt_self_tls;

/* The calling thread, attached as an initial thread on first use. */
mockrt_thread_t *mockrt_thread_attach_initial(void);
static inline mockrt_thread_t *mockrt_self(void)
{
  if (MOCKRT_LIKELY(mockrt_self_tls.kind != 0))
    return &mockrt_self_tls;
  return mockrt_thread_attach_initial();
}
static inline mockrt_task_t *mockrt_cur_task(void)
{
  return mockrt_self()->task;
}

/*
 * At a hot entry point, before anything else: true if the calling thread
 * is attached and no tool is, which one thread-local word says (it does
 * mockrt_self()'s test at the same time).  False means: call mockrt_self()
 * and test the tool flag.
 */
static inline bool mockrt_plain_entry(void)
{
#ifdef MOCKRT_NO_OMPT
  return MOCKRT_LIKELY(mockrt_self_tls.kind != 0);
#else
  return MOCKRT_LIKELY(mockrt_self_tls.no_tool);
#endif
}

/* Attach the calling pool thread; dispatches thread_begin. */
mockrt_thread_t *mockrt_thread_attach_worker(void);
/* Detach the calling pool (or helper) thread; dispatches thread_end. */
void mockrt_thread_detach_worker(mockrt_thread_t *self);
/*
 * Attach the calling thread as a runtime helper that never runs user code
 * (ompt_thread_other: no task, idle state); dispatches thread_begin.
 * mockrt_thread_detach_worker ends it.
 */
mockrt_thread_t *mockrt_thread_attach_other(void);

/*
 * Personality hooks, optional (weak): start runs once, on the first
 * thread's first entry into the runtime, after the tool is initialized and
 * the initial thread has had its begin events; stop runs at exit after the
 * pool has shut down and before the tool is finalized.
 */
void mockrt_personality_start(void) __attribute__((weak));
void mockrt_personality_stop(void) __attribute__((weak));

/*
 * MOCKRT_NO_OMPT builds the runtime without OMPT (the baseline of
 * bench/ompt_overhead): no tool is looked for, every dispatch test reads a
 * constant NULL and compiles away, and no state or frame is kept.
 */
#ifdef MOCKRT_NO_OMPT
#define MOCKRT_OMPT_ENABLED 0
#define MOCKRT_OMPT_ON      0
#else
#define MOCKRT_OMPT_ENABLED 1
/*
 * Set once a tool's initialize has accepted (ompt.c).  States and frames
 * are kept only then: without a tool no one can ask for them (the
 * inquiry functions are reached only through the tool's lookup), and a
 * runtime with OMPT compiled in but no tool must cost next to nothing
 * (bench/ompt_overhead).  A tool initializes before the first region, so
 * no state it can see was skipped.
 */
extern MOCKRT_HIDDEN int mockrt_ompt_attached;
#define MOCKRT_OMPT_ON      MOCKRT_UNLIKELY(mockrt_ompt_attached)
#endif

/*
 * State and frame updates.  A compiler barrier orders them with the stores
 * around them, which is all a signal handler on the same thread needs.
 */
static inline int mockrt_set_state(mockrt_thread_t *self, int state)
{
  if (!MOCKRT_OMPT_ON)
    return 0;
  int old = self->state;
  atomic_signal_fence(memory_order_seq_cst);
  self->state = state;
  atomic_signal_fence(memory_order_seq_cst);
  return old;
}
static inline void mockrt_set_wait(mockrt_thread_t *self, int state, const void *wait_id)
{
  if (!MOCKRT_OMPT_ON)
    return;
  self->wait_id = (ompt_wait_id_t)(uintptr_t)wait_id;
  atomic_signal_fence(memory_order_seq_cst);
  self->state = state;
  atomic_signal_fence(memory_order_seq_cst);
}
/* Frame addresses with explicit flags (an application frame, a frame pointer). */
static inline void mockrt_frame_enter_ex(mockrt_task_t *t, void *addr, int flags)
{
  if (!MOCKRT_OMPT_ON)
    return;
  __atomic_store_n(&t->frame.enter_frame_flags, flags, __ATOMIC_RELAXED);
  __atomic_store_n(&t->frame.enter_frame.ptr, addr, __ATOMIC_RELEASE);
  atomic_signal_fence(memory_order_seq_cst);
}
static inline void mockrt_frame_exit_ex(mockrt_task_t *t, void *addr, int flags)
{
  if (!MOCKRT_OMPT_ON)
    return;
  __atomic_store_n(&t->frame.exit_frame_flags, flags, __ATOMIC_RELAXED);
  __atomic_store_n(&t->frame.exit_frame.ptr, addr, __ATOMIC_RELEASE);
  atomic_signal_fence(memory_order_seq_cst);
}
/*
 * A runtime entry point's enter frame, as the personality writes it: the
 * __kmpc_* mocks, as libomp 14, the entry's frame address with
 * ompt_frame_framepointer (LLVM's OMPT_GET_FRAME_ADDRESS(0)); mock-gomp its
 * CFA with ompt_frame_cfa.  A tool must read both; the mocks exercise both.
 * MOCKRT_ENTRY_FRAME() is evaluated in the entry point itself.
 */
extern const int mockrt_entry_frame_flags;
#define MOCKRT_ENTRY_FRAME()                                                                       \
  ((mockrt_entry_frame_flags & ompt_frame_framepointer) ? __builtin_frame_address(0)               \
                                                        : __builtin_dwarf_cfa())
static inline void mockrt_frame_enter(mockrt_task_t *t, void *entry_frame)
{
  mockrt_frame_enter_ex(t, entry_frame, mockrt_entry_frame_flags);
}
static inline void mockrt_frame_leave(mockrt_task_t *t)
{
  if (!MOCKRT_OMPT_ON)
    return;
  atomic_signal_fence(memory_order_seq_cst);
  __atomic_store_n(&t->frame.enter_frame.ptr, NULL, __ATOMIC_RELEASE);
}
static inline void mockrt_frame_exit(mockrt_task_t *t, void *cfa)
{
  mockrt_frame_exit_ex(t, cfa, ompt_frame_runtime | ompt_frame_cfa);
}
/*
 * The flags of an exit frame whose address a trampoline stores itself
 * (mockrt_invoke_microtask): they are in place before the address can be
 * seen.  The trampoline stores its frame pointer, as libomp's
 * __kmp_invoke_microtask does, hence framepointer.
 */
static inline void mockrt_frame_exit_flags(mockrt_task_t *t)
{
  if (!MOCKRT_OMPT_ON)
    return;
  __atomic_store_n(&t->frame.exit_frame_flags, ompt_frame_runtime | ompt_frame_framepointer,
                   __ATOMIC_RELAXED);
  atomic_signal_fence(memory_order_seq_cst);
}
static inline void mockrt_frame_unexit(mockrt_task_t *t)
{
  if (!MOCKRT_OMPT_ON)
    return;
  atomic_signal_fence(memory_order_seq_cst);
  __atomic_store_n(&t->frame.exit_frame.ptr, NULL, __ATOMIC_RELEASE);
}

/* ---- ICVs (icv.c) ---- */
typedef struct mockrt_icv {
  int deterministic; /* MOCKRT_DETERMINISTIC=1: fixed work assignment and task order */
  int nthreads;      /* OMP_NUM_THREADS or the number of CPUs */
  int num_procs;
  int dynamic;
  int thread_limit;
  int run_sched; /* OMP_SCHEDULE kind for schedule(runtime) */
  long run_chunk;
  int max_active_levels; /* OMP_MAX_ACTIVE_LEVELS, OMP_NESTED, omp_set_max_active_levels */
  int cancellation;      /* OMP_CANCELLATION=true */
  int nthreads_levels;   /* entries of the OMP_NUM_THREADS list */
  int nthreads_list[8];  /* nthreads-var of the implicit tasks at each level */
  int wait_policy;       /* OMP_WAIT_POLICY: a MOCKRT_WAIT_* */
} mockrt_icv_t;
/* The nesting depth the runtime supports (omp_get_supported_active_levels). */
#define MOCKRT_SUPPORTED_LEVELS 255
extern MOCKRT_HIDDEN mockrt_icv_t mockrt_icv;
void mockrt_icv_init(void);

/* ---- waiting (OMP_WAIT_POLICY; futex.c) ---- */
/*
 * How a thread waits for another: OMP_WAIT_POLICY unset polls a little
 * (limit polls, no pause) and then sleeps on a futex; passive sleeps at
 * once; active polls with a pause hint, then yields the CPU at each poll
 * (so an oversubscribed machine still progresses), and sleeps only after a
 * very long wait (mockrt_spin_active).
 */
enum { MOCKRT_WAIT_DEFAULT = 0, MOCKRT_WAIT_ACTIVE = 1, MOCKRT_WAIT_PASSIVE = 2 };
/* The default policy's polls before a sleep: waits for a team, locks. */
#define MOCKRT_SPIN_WAIT 2000
#define MOCKRT_SPIN_LOCK 100
bool mockrt_spin_active(int *spins);
/*
 * Called each time a wait loop finds it must go on waiting, with *spins 0
 * at the start of the wait: true to poll again, false to sleep now (and at
 * every later call of the same wait).
 */
static inline bool mockrt_spin(int *spins, int limit)
{
  int policy = mockrt_icv.wait_policy;
  if (MOCKRT_LIKELY(policy == MOCKRT_WAIT_DEFAULT)) {
    if (*spins >= limit)
      return false;
    ++*spins;
    return true;
  }
  if (policy == MOCKRT_WAIT_PASSIVE)
    return false;
  return mockrt_spin_active(spins);
}

/* ---- teams (team.c) ---- */
/*
 * Prepare a team for a region opened by the calling thread, take workers
 * from the pool, dispatch parallel_begin and start the workers.  The caller
 * has set the encountering task's enter frame.  On return the caller's
 * implicit task (team->... thread 0) is published as the current task.
 */
void mockrt_fork(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *), void *data,
                 unsigned requested, const void *codeptr);
/* Hook run between team setup and the start of the workers. */
typedef void (*mockrt_team_init_fn)(mockrt_team_t *team, void *arg);
void mockrt_fork_ex(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *), void *data,
                    unsigned requested, const void *codeptr, mockrt_team_init_fn init, void *arg);
/*
 * The _plain variants below are for an entry point that has tested
 * mockrt_ompt_attached itself (once, after mockrt_self()) and found no
 * tool: they do the same minus every OMPT step, and test nothing.
 */
void mockrt_fork_ex_plain(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *),
                          void *data, unsigned requested, const void *codeptr,
                          mockrt_team_init_fn init, void *arg);
/*
 * The master's side of the end of a region: join barrier (no enter frame,
 * as in libomp 14), implicit_task end, wait for the workers to
 * let go of the team, parallel_end, and the encountering task is current again.
 */
void mockrt_join(mockrt_team_t *team, mockrt_task_t *master_task);
void mockrt_join_plain(mockrt_team_t *team, mockrt_task_t *master_task);
/* Set up a task as an implicit task of team and publish it (begin event). */
void mockrt_implicit_begin(mockrt_team_t *team, mockrt_task_t *task, int thread_num);
void mockrt_implicit_begin_plain(mockrt_team_t *team, mockrt_task_t *task, int thread_num);
/* Join barrier, end event, unpublish; used by workers. */
void mockrt_implicit_end_worker(mockrt_team_t *team, mockrt_task_t *task);
void mockrt_implicit_end_worker_plain(mockrt_team_t *team, mockrt_task_t *task);

/* ---- host teams (teams.c) ---- */
/* nteams-var and teams-thread-limit-var (0: not set). */
int mockrt_teams_nteams_var(void);
int mockrt_teams_thread_limit_var(void);
/* The calling task's team number and the number of teams (0 and 1 outside teams). */
void mockrt_league_pos(unsigned *team_num, unsigned *nteams);

/* ---- explicit tasks (task.c; the rest of the interface is in task.h) ---- */
/* Empty a fresh team's task queue. */
void mockrt_task_team_init(mockrt_team_t *team);
/*
 * The blocking part of a barrier for a team that can have tasks: waiting
 * threads run the team's tasks, and the barrier opens only when every
 * thread has arrived and no task is unfinished, so the tasks of a region
 * are complete before any thread leaves it.  False (nothing done) for a
 * team of one, which runs its tasks at their creation.
 */
bool mockrt_task_barrier(mockrt_task_t *task);
/* Run the team's tasks until none is unfinished (a cancellable barrier's arrival). */
void mockrt_task_drain(mockrt_task_t *task);

/* ---- the worker pool (pool.c) ---- */
/* Take up to want workers for team, numbering them 1..; returns how many. */
unsigned mockrt_pool_reserve(mockrt_team_t *team, unsigned want);
/* Start the workers that mockrt_pool_reserve assigned to team. */
void mockrt_pool_start(mockrt_team_t *team);
/* Stop and join the idle workers (at process exit). */
void mockrt_pool_shutdown(void);
/* An initial thread ends: the workers of its hot team are free for others. */
void mockrt_pool_release_root(const mockrt_thread_t *root);

/* ---- barriers (barrier.c) ---- */
void mockrt_barrier_init(mockrt_barrier_t *b, unsigned n);
/* Wait for the whole team, with OMPT sync events; kind is ompt_sync_region_t. */
void mockrt_barrier_wait(mockrt_task_t *task, int kind, const void *codeptr);
/* Its two halves: with a tool (events, states), and without (the test made). */
void mockrt_barrier_wait_observed(mockrt_task_t *task, int kind, const void *codeptr);
/* The same; join: the region's join barrier, whose end events name no region. */
void mockrt_barrier_wait_observed_ex(mockrt_task_t *task, int kind, const void *codeptr, bool join);
void mockrt_barrier_wait_plain(mockrt_task_t *task, int kind, const void *codeptr);

/* ---- futexes and lock words (futex.c) ---- */
void mockrt_futex_wait(atomic_uint *addr, unsigned val);
void mockrt_futex_wake(atomic_uint *addr, int n);
void mockrt_word_lock(atomic_int *w);
bool mockrt_word_trylock(atomic_int *w);
void mockrt_word_unlock(atomic_int *w);

/* ---- OMPT-instrumented mutexes (mutex.c) ---- */
/* Acquire a lock word with mutex_acquire/acquired events and a wait state. */
void mockrt_mutex_acquire(atomic_int *w, int kind, int wait_state, const void *codeptr);

/* The implementation a mutex event names, as libomp 14 names its own:
 * kmp_mutex_impl_spin (1) for ordered, kmp_mutex_impl_queuing (2) for
 * locks and critical sections (the numbers ompt_enumerate_mutex_impls
 * lists, ompt_platform.c). */
#define MOCKRT_MUTEX_IMPL_SPIN    1
#define MOCKRT_MUTEX_IMPL_QUEUING 2
#define MOCKRT_MUTEX_IMPL(kind)                                                                    \
  ((kind) == ompt_mutex_ordered ? MOCKRT_MUTEX_IMPL_SPIN : MOCKRT_MUTEX_IMPL_QUEUING)
bool mockrt_mutex_try(atomic_int *w, int kind, const void *codeptr);
void mockrt_mutex_release(atomic_int *w, int kind, const void *codeptr);

/* ---- worksharing (ws.c) ---- */
/* Enter the next worksharing construct (a loop); the first thread in sets it up. */
void mockrt_ws_enter(mockrt_task_t *t, int sched, long start, long end, long incr, long chunk);
/* The same for any ompt_work_t, with the construct's codeptr for the work events. */
void mockrt_ws_enter_ex(mockrt_task_t *t, int wstype, int sched, long start, long end, long incr,
                        long chunk, const void *codeptr);
/* Set up slot 0 of a fresh team as a loop all threads are already inside. */
void mockrt_ws_preset(mockrt_team_t *team, int sched, long start, long end, long incr, long chunk);
/* The work begin of a preset construct, from each implicit task of the team. */
void mockrt_ws_preset_begin(mockrt_task_t *t, const void *codeptr);
bool mockrt_ws_next(mockrt_task_t *t, long *istart, long *iend);
/*
 * Claim a single construct: true for exactly one thread of the team (thread
 * 0 in deterministic mode).  The executor's work end waits for
 * mockrt_ws_single_end, or for the thread's next runtime call
 * (mockrt_ws_settle) when the ABI calls nothing at the end of a single.
 */
bool mockrt_ws_single(mockrt_task_t *t, const void *codeptr);
void mockrt_ws_single_end(mockrt_task_t *t);
/* The same, with the end's own code address (the ABI's end call) when not NULL. */
void mockrt_ws_single_end_at(mockrt_task_t *t, const void *end_codeptr);
void mockrt_ws_settle(mockrt_task_t *t);
void mockrt_ws_leave(mockrt_task_t *t);
/* The same, with the end event's count and codeptr_ra given. */
void mockrt_ws_leave_at(mockrt_task_t *t, uint64_t count, const void *codeptr);
/*
 * Take the slot of the task's next construct without entering it (t->ws is
 * untouched) and without events; mockrt_ws_unclaim gives it back, and the
 * last thread to do so frees what hangs on it.
 */
mockrt_ws_t *mockrt_ws_claim(mockrt_task_t *t);
void mockrt_ws_unclaim(mockrt_ws_t *ws);

/* ---- ordered (ordered.c): turns are taken in units of iterations ---- */
/* The task now runs iteration indices [first, end) of its loop. */
void mockrt_ordered_unit(mockrt_task_t *t, long first, long end);
/* Wait for the unit's turn (wait_ordered, mutex events with codeptr). */
void mockrt_ordered_enter(mockrt_task_t *t, const void *codeptr);
/* Leave an ordered region; pass hands the turn on to the next unit now. */
void mockrt_ordered_exit(mockrt_task_t *t, bool pass, const void *codeptr);
/* The unit is done: pass the turn on (after waiting for it if never taken). */
void mockrt_ordered_unit_end(mockrt_task_t *t);

/* ---- cancellation (cancel.c) ---- */
/* Activate cancellation of the innermost construct of kind (ompt_cancel_*); false if off. */
bool mockrt_cancel(mockrt_task_t *t, int kind, const void *codeptr);
/* A cancellation point: true (and a detected event) if kind was cancelled. */
bool mockrt_cancel_point(mockrt_task_t *t, int kind, const void *codeptr);
/*
 * After a barrier of the whole team (__kmpc_cancel_barrier, libomp's way):
 * when a cancellation of the region or of a loop or sections is pending, a
 * second barrier, then the requests are withdrawn; true if the region was
 * cancelled.
 */
bool mockrt_cancel_settle(mockrt_task_t *t, int kind, const void *codeptr);
/* A cancellable barrier: true if the region was cancelled. */
bool mockrt_barrier_wait_cancel(mockrt_task_t *t, int kind, const void *codeptr);

/* ---- OMPT (ompt.c, ompt_inquiry.c) ---- */
typedef struct mockrt_ompt_cbs {
  ompt_callback_thread_begin_t thread_begin;
  ompt_callback_thread_end_t thread_end;
  ompt_callback_parallel_begin_t parallel_begin;
  ompt_callback_parallel_end_t parallel_end;
  ompt_callback_implicit_task_t implicit_task;
  ompt_callback_sync_region_t sync_region;
  ompt_callback_sync_region_t sync_region_wait;
  ompt_callback_mutex_acquire_t mutex_acquire;
  ompt_callback_mutex_t mutex_acquired;
  ompt_callback_mutex_t mutex_released;
  ompt_callback_nest_lock_t nest_lock;
  ompt_callback_mutex_acquire_t lock_init;
  ompt_callback_mutex_t lock_destroy;
  /* explicit tasks (task.c and the personalities' task entry points) */
  ompt_callback_task_create_t task_create;
  ompt_callback_task_schedule_t task_schedule;
  ompt_callback_dependences_t dependences;
  ompt_callback_task_dependence_t task_dependence;
  /* worksharing, masked, cancellation, reductions, flush, control_tool */
  ompt_callback_work_t work;
  ompt_callback_dispatch_t dispatch;
  ompt_callback_masked_t masked;
  ompt_callback_cancel_t cancel;
  ompt_callback_sync_region_t reduction;
  ompt_callback_flush_t flush;
  ompt_callback_control_tool_t control_tool;
  /* target constructs and devices: dispatched by the mock device
   * (mockrt/target) through mockrt_ompt_target_hooks (target_hooks.c) */
  mockrt_target_cbs_t device;
} mockrt_ompt_cbs_t;
#if MOCKRT_OMPT_ENABLED
extern MOCKRT_HIDDEN mockrt_ompt_cbs_t mockrt_ompt;
#else
static const mockrt_ompt_cbs_t mockrt_ompt_none;
#define mockrt_ompt mockrt_ompt_none
#endif
/* Find and initialize a tool (OMP_TOOL, ompt_start_tool, OMP_TOOL_LIBRARIES). */
void mockrt_ompt_init(void);
/* Call the tool's finalize once, and stop dispatching. */
void mockrt_ompt_finalize(void);
/* The runtime's end (thread.c): pool workers' and the calling initial
 * thread's end events, then the tool's finalize; once, at exit or at
 * ompt_finalize_tool. */
void mockrt_shutdown(void);
ompt_interface_fn_t mockrt_ompt_lookup(const char *name);
/* A tool is initialized and not yet finalized (omp_control_tool). */
bool mockrt_ompt_active(void);
uint64_t mockrt_unique_id(void);
/* The devices the mock device library announced (target_hooks.c): their
 * count (0 when none is loaded) and their finalization at shutdown. */
int mockrt_target_num_devices(void);
void mockrt_target_shutdown(void);
/* The calling thread's initial task and the thread itself end now. */
void mockrt_thread_end_initial(void);

/* Async-signal-safe inquiries (ompt_inquiry.c). */
int mockrt_ompt_get_state(ompt_wait_id_t *wait_id);
int mockrt_ompt_get_task_info(int level, int *flags, ompt_data_t **task_data, ompt_frame_t **frame,
                              ompt_data_t **parallel_data, int *thread_num);
int mockrt_ompt_get_parallel_info(int level, ompt_data_t **parallel_data, int *team_size);
int mockrt_ompt_get_task_memory(void **addr, size_t *size, int block);
ompt_data_t *mockrt_ompt_get_thread_data(void);
int mockrt_ompt_enumerate_states(int current, int *next, const char **name);

/* Platform inquiries (ompt_platform.c), as libomp 14 answers them. */
void mockrt_ompt_places_ready(void);
void mockrt_ompt_places_bound(void);
/* Whether a region was forked yet: libomp 14 completes its start-up (its
 * "middle" initialization) there. */
bool mockrt_ompt_forked_once(void);
int mockrt_ompt_get_num_procs(void);
int mockrt_ompt_get_num_places(void);
int mockrt_ompt_get_place_proc_ids(int place_num, int ids_size, int *ids);
int mockrt_ompt_get_place_num(void);
int mockrt_ompt_get_partition_place_nums(int place_nums_size, int *place_nums);
int mockrt_ompt_get_proc_id(void);
int mockrt_ompt_get_num_devices(void);
int mockrt_ompt_get_target_info(uint64_t *device_num, ompt_id_t *target_id, ompt_id_t *host_op_id);
int mockrt_ompt_enumerate_mutex_impls(int current, int *next, const char **name);

/*
 * Callbacks whose events the personality's ABI hides from the runtime in
 * part (the compiler open-codes some instances: set_callback answers
 * sometimes) or wholly (never), as bits 1 << callback id.
 */
extern const uint64_t mockrt_abi_sometimes, mockrt_abi_never;
/* The personality reports a detachable task's fulfilment with OpenMP 5.1's
 * early/late_fulfill statuses, as libomp 14 does (core/task.c). */
extern const bool mockrt_fulfill_statuses;
#define MOCKRT_CB_BIT(cb) ((uint64_t)1 << (cb))

/* The string a personality reports as runtime_version to ompt_start_tool. */
extern const char *mockrt_runtime_version;

/* An implicit task's flags as the inquiries give them: implicit and, as
 * libomp 14 marks every one there, undeferred (its implicit_task events
 * say implicit alone). */
#define MOCKRT_IMPLICIT_TASK_FLAGS (ompt_task_implicit | ompt_task_undeferred)

#endif
