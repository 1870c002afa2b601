/* Parallel regions on GNU libgomp, without OMPT: see gomp_interpose.h. */
#define _GNU_SOURCE
#include "gomp/gomp_interpose.h"
#include "gomp/gomp_wrap.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "core/session.h"
#include "core/thread.h"
#include "core/trace.h"
#include "ompt/blame.h"
#include "ompt/missed_samples.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"

/* What a thread knows of the region body it is running. Written only by the
 * thread itself, outside its handler, and read by its handler. */
typedef struct gomp_task {
  const void *prefix; /* the region's path, NULL outside */
  uintptr_t exit_cfa; /* CFA of run_body: where the body begins */
} gomp_task;

static __thread gomp_task current __attribute__((tls_model("initial-exec")));
static __thread bool ran_as_worker __attribute__((tls_model("initial-exec")));
/* The wrapped wait under way, if any (enter_cfa 0: none). */
static __thread knit_gomp_wait waiting __attribute__((tls_model("initial-exec")));

/* Set once a wrapper finds no OMPT runtime: from then on the wrappers'
 * view of a thread is what blame goes by. The modules are found first. */
static bool standing_in;
static uint32_t runtime_module = KNIT_MODULE_UNKNOWN;
static uint32_t libc_module = KNIT_MODULE_UNKNOWN;
/* An address in the runtime: its omp_get_max_threads. */
static void (*runtime_code)(void);

/* What every thread of a team reads of its region, in run_body. */
typedef struct region {
  void (*fn)(void *);
  void *data;
  const void *prefix;  /* the region's path */
  knit_thread *master; /* the encountering thread */
  uintptr_t entry_cfa; /* CFA of the wrapper it called */
  /* What the encountering thread's wait inside the wrapper (the fork, then
   * the end barrier) interrupts: in the wrapper's frame, written by the
   * encountering thread only. */
  knit_gomp_wait *outer;
} region;

/* The records a thread's regions use, one per level of the wrappers it is
 * inside, each on a cache line of its own. A region opened again from the
 * same place (a loop of regions) finds its record as it left it and
 * writes nothing: the workers' copies of the line stay good, and a worker
 * starts its body without fetching the line from the encountering thread's
 * core, which a record on the wrapper's stack, written every region, cost
 * every worker of every region. Deeper levels use the stack. */
#define RECORD_LEVELS 8
typedef union region_line {
  region r;
  char line[64];
} region_line;
static __thread region_line *records __attribute__((tls_model("initial-exec")));
static __thread unsigned record_level __attribute__((tls_model("initial-exec")));

/* The record for a region at the calling thread's current level, or
 * fallback, filled in with what differs. */
static region *record_for(const region *want, region *fallback)
{
  unsigned level = record_level;
  if (!records && level < RECORD_LEVELS)
    records = knit_pages_alloc(RECORD_LEVELS * sizeof *records); /* never freed */
  region *r = records && level < RECORD_LEVELS ? &records[level].r : fallback;
  if (r == fallback || memcmp(r, want, sizeof *r) != 0)
    *r = *want;
  return r;
}

bool knit_gomp_current_task(ompt_frame_t *frame, const void **prefix)
{
  gomp_task t = current;
  if (!t.prefix)
    return false;
  frame->exit_frame.ptr = (void *)t.exit_cfa;
  frame->exit_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
  frame->enter_frame.ptr = NULL;
  frame->enter_frame_flags = 0;
  *prefix = t.prefix;
  return true;
}

void knit_gomp_view_self(const knit_thread *t, knit_gomp_view *v)
{
  *v = (knit_gomp_view){0};
  uint32_t flags = t ? atomic_load(&t->flags) : 0;
  if (knit_gomp_current_task(&v->frame, &v->prefix)) {
    v->task_flags = ompt_task_implicit;
    v->state = ompt_state_work_parallel;
  } else if (ran_as_worker && !(flags & KNIT_THREAD_MAIN)) {
    v->state = ompt_state_idle;
  } else {
    v->task_flags = ompt_task_initial;
    v->state = ompt_state_work_serial;
  }
  v->wait.enter_cfa = __atomic_load_n(&waiting.enter_cfa, __ATOMIC_ACQUIRE);
  if (v->wait.enter_cfa) {
    v->wait.state = waiting.state;
    v->wait.wait_id = waiting.wait_id;
  }
  v->openmp = __atomic_load_n(&standing_in, __ATOMIC_ACQUIRE) && t && t->omp_counted;
  v->runtime_module = __atomic_load_n(&runtime_module, __ATOMIC_RELAXED);
  v->libc_module = __atomic_load_n(&libc_module, __ATOMIC_RELAXED);
}

/* Publishes the body the thread runs: the prefix is stored last, and
 * cleared first, so that a sample in between sees either no body or the
 * whole of one. */
static void set_task(const void *prefix, uintptr_t exit_cfa)
{
  __atomic_store_n(&current.prefix, NULL, __ATOMIC_RELEASE);
  current.exit_cfa = exit_cfa;
  __atomic_store_n(&current.prefix, prefix, __ATOMIC_RELEASE);
}

/* A wait that counts as idleness: a barrier's, a taskwait's or a
 * taskgroup's, as OMPT's sync_region_wait reports them. */
static bool is_idle_wait(int state)
{
  return (state >= ompt_state_wait_barrier && state <= ompt_state_wait_barrier_teams) ||
         state == ompt_state_wait_taskwait || state == ompt_state_wait_taskgroup;
}

static bool is_mutex(int state)
{
  return state >= ompt_state_wait_mutex && state <= ompt_state_wait_ordered;
}

/* The published wait: its enter frame last, as for set_task. */
static void set_wait(knit_gomp_wait w)
{
  __atomic_store_n(&waiting.enter_cfa, 0, __ATOMIC_RELEASE);
  waiting.state = w.state;
  waiting.wait_id = w.wait_id;
  __atomic_store_n(&waiting.enter_cfa, w.enter_cfa, __ATOMIC_RELEASE);
}

knit_gomp_wait knit_gomp_wait_begin(knit_thread *t, int state, uint64_t wait_id,
                                    uintptr_t enter_cfa)
{
  knit_gomp_wait outer = waiting;
  /* Counted before the samples see the wait, as OMPT's callbacks come
   * before the runtime's state changes. */
  if (is_idle_wait(state))
    knit_blame_wait(t, true);
  else if (is_mutex(state))
    knit_blame_acquire(t, wait_id);
  set_wait((knit_gomp_wait){state, wait_id, enter_cfa});
  return outer;
}

void knit_gomp_wait_end(knit_thread *t, knit_gomp_wait outer, bool acquired)
{
  knit_gomp_wait mine = waiting;
  set_wait(outer);
  if (is_idle_wait(mine.state))
    knit_blame_wait(t, false);
  else if (is_mutex(mine.state) && acquired)
    knit_blame_acquired(t, mine.wait_id);
  else if (is_mutex(mine.state))
    knit_blame_acquire(t, 0); /* waits for nothing any more */
}

knit_gomp_saved knit_gomp_task_begin(knit_thread *t, const knit_call_path *path, uintptr_t exit_cfa)
{
  knit_gomp_saved saved = {current.prefix, current.exit_cfa, waiting};
  /* The wait the task interrupts (libgomp runs tasks in barriers, in
   * taskwait and taskgroup waits) is over while the task runs: the thread
   * works, and the task's samples are the task's. */
  if (saved.wait.enter_cfa) {
    set_wait((knit_gomp_wait){0, 0, 0});
    if (is_idle_wait(saved.wait.state))
      knit_blame_wait(t, false);
  }
  /* A worker between bodies (libgomp runs queued tasks at the end barrier
   * of a region, after the worker's own body) works too. */
  knit_blame_implicit_task(t, true);
  set_task(path, exit_cfa);
  return saved;
}

void knit_gomp_task_end(knit_thread *t, knit_gomp_saved saved)
{
  set_task(saved.prefix, saved.exit_cfa);
  knit_blame_implicit_task(t, false);
  if (saved.wait.enter_cfa) {
    if (is_idle_wait(saved.wait.state))
      knit_blame_wait(t, true);
    set_wait(saved.wait);
  }
}

/* Every thread of the team enters the body here: libgomp calls it in place
 * of the program's outlined function. noinline, so that its CFA is a frame
 * of its own that samples can find. */
__attribute__((noinline)) static void run_body(void *arg)
{
  region *r = arg;
  knit_thread *t = knit_thread_self();
  bool master = t && t == r->master;
  if (!master) {
    ran_as_worker = true;
    /* A worker's first body: from now on it counts, idle between bodies. */
    if (t && !t->omp_counted)
      knit_blame_thread_begin(t, false);
  }
  /* The encountering thread's fork is over. */
  if (master)
    knit_gomp_wait_end(t, *r->outer, true);
  gomp_task saved = current;
  knit_blame_implicit_task(t, true);
  set_task(r->prefix, (uintptr_t)__builtin_dwarf_cfa());
  r->fn(r->data);
  /* It now waits in libgomp's end barrier until the team is done, inside
   * the wrapper it called, which ends the wait. */
  if (master)
    *r->outer = knit_gomp_wait_begin(t, ompt_state_wait_barrier_implicit_parallel, 0, r->entry_cfa);
  set_task(saved.prefix, saved.exit_cfa);
  knit_blame_implicit_task(t, false);
  /* Keeps the calls above out of tail position. */
  __asm__ __volatile__("" ::: "memory");
}

/* The frame record of the task the thread runs, entered at the wrapper
 * whose CFA is entry_cfa, and its prefix word. */
static const void *task_here(uintptr_t entry_cfa, ompt_frame_t *here)
{
  *here = (ompt_frame_t){0};
  here->enter_frame.ptr = (void *)entry_cfa;
  here->enter_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
  if (!current.prefix)
    return NULL;
  here->exit_frame.ptr = (void *)current.exit_cfa;
  here->exit_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
  return current.prefix;
}

const knit_call_path *knit_gomp_path_here(uintptr_t entry_cfa, bool transient)
{
  ompt_frame_t here;
  const void *outer = task_here(entry_cfa, &here);
  const knit_call_path *prefix = knit_region_path_wait(outer);
  const knit_call_path *path = transient ? knit_capture_task_path(&here, prefix)
                                         : knit_capture_call_path(&here, prefix, NULL);
  /* Signals that came during the capture: a sample of the task's creation
   * (missed_samples.h). libgomp's paths are never tickets, so nothing
   * waits. */
  knit_take_missed(knit_thread_self());
  return path;
}

const void *knit_gomp_region_open(knit_thread *t, uintptr_t entry_cfa, const void *site)
{
  ompt_frame_t here;
  const void *outer = task_here(entry_cfa, &here);
  /* Captured now, before the fork, never deferred to run_body as OMPT
   * runtimes defer it to the implicit task (region_paths.h). libgomp
   * releases a team at its pool's dock, a barrier that also waits for
   * every worker to arrive there from the last region's end barrier: work
   * before the fork overlaps the workers' way to the dock, and work moved
   * after it (into run_body) only adds to the region's length. Measured:
   * 1.09 of libgomp's time captured here, 1.13 in run_body. */
  const void *path = knit_region_open(t, &here, (void *)outer, site, false);
  knit_take_missed(t);
  return path;
}

/* Whether to stand in for OMPT. Runtimes with OMPT (knit's mocks, LLVM's
 * libomp, which also speaks the GOMP ABI) start their tool lazily, at the
 * first OpenMP call: one cheap call first makes sure that, if the runtime
 * has OMPT, knit's tool is active before the question is asked. */
static bool interposing(void)
{
  static int runtime_started;
  if (!__atomic_load_n(&runtime_started, __ATOMIC_ACQUIRE)) {
    int (*max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (max_threads)
      max_threads();
    __atomic_store_n(&runtime_code, (void (*)(void))max_threads, __ATOMIC_RELAXED);
    __atomic_store_n(&runtime_started, 1, __ATOMIC_RELEASE);
  }
  /* OMPT first: with an OMPT runtime every region passes here, and
   * answers at the first test. */
  return !knit_ompt_runtime.active && knit_the_session.active && knit_thread_self();
}

/* The module of a function, from a pointer to it (the machine table turns
 * a descriptor into code where the ABI has them). */
static uint32_t module_id(void (*fn)(void))
{
  knit_loadmap_refresh(knit_self_address());
  const knit_module *m = knit_loadmap_find(knit_loadmap_current(), knit_native_code_of(fn));
  return m ? m->id : KNIT_MODULE_UNKNOWN;
}

knit_thread *knit_gomp_self(void)
{
  if (!interposing())
    return NULL;
  if (!__atomic_load_n(&standing_in, __ATOMIC_ACQUIRE)) {
    /* Threads that race here find the same modules. */
    __atomic_store_n(&runtime_module, module_id(__atomic_load_n(&runtime_code, __ATOMIC_RELAXED)),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&libc_module, module_id((void (*)(void))sched_yield), __ATOMIC_RELAXED);
    if (!__atomic_exchange_n(&standing_in, true, __ATOMIC_ACQ_REL))
      knit_log_line("gomp: no OMPT; blame from the GOMP wrappers");
  }
  knit_thread *t = knit_thread_self();
  /* A thread's first OpenMP call outside any team: libgomp gives it an
   * initial task of its own (the program's main thread, or a pthread of
   * the program's), so it counts as working from now on. Workers are
   * counted at their first body instead. */
  if (!t->omp_counted)
    knit_blame_thread_begin(t, true);
  return t;
}

static void *real_symbol(const char *name)
{
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    /* The runtime was not in the program's global scope: a module the
     * program dlopen'ed (RTLD_LOCAL) brought it in as its own dependency,
     * so RTLD_NEXT cannot see it, yet the module's GOMP calls bind to these
     * wrappers, which are global. Every GOMP-ABI runtime (GNU libgomp,
     * knit's mock, LLVM's libomp through its alias) is loaded under the
     * soname libgomp.so.1: ask for that object, without loading anything. */
    void *runtime = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (runtime) {
      p = dlsym(runtime, name);
      dlclose(runtime); /* only drops the reference NOLOAD added */
    }
  }
  if (!p) {
    /* Nothing sensible can go on: the program asked for an entry point the
     * runtime it runs on lacks, and would have failed to load without knit. */
    knit_log_line("gomp: the runtime lacks a GOMP entry point knit wraps");
    _exit(127);
  }
  return p;
}

void *knit_gomp_real(void **slot, const char *name)
{
  void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
  if (!p) {
    p = real_symbol(name);
    __atomic_store_n(slot, p, __ATOMIC_RELAXED);
  }
  return p;
}

/* Runs the real entry point with run_body standing in for fn. The entry's
 * own CFA marks where the program's frames end. */
#define WRAP_REGION(name, params, call_args)                                                       \
  KNIT_GOMP_EXPORT void name params                                                                \
  {                                                                                                \
    KNIT_GOMP_PASS(VOID, name, params, call_args)                                                  \
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();                                              \
    knit_gomp_wait outer = {0};                                                                    \
    region want = {fn, data, knit_gomp_region_open(t, cfa, __builtin_return_address(0)),           \
                   t,  cfa,  &outer};                                                              \
    region fallback;                                                                               \
    region *r = record_for(&want, &fallback);                                                      \
    fn = run_body;                                                                                 \
    data = r;                                                                                      \
    /* Until its body starts, the thread forks the team: the runtime's        \
     * overhead, as OMPT runtimes call it, neither work nor idleness. */                    \
    knit_trace_transition(t, KNIT_TRACE_PARALLEL_BEGIN);                                           \
    outer = knit_gomp_wait_begin(t, ompt_state_overhead, 0, cfa);                                  \
    record_level++;                                                                                \
    real call_args;                                                                                \
    record_level--;                                                                                \
    knit_gomp_wait_end(t, outer, true);                                                            \
    knit_trace_transition(t, KNIT_TRACE_PARALLEL_END);                                             \
  }

WRAP_REGION(GOMP_parallel, (void (*fn)(void *), void *data, unsigned nthreads, unsigned flags),
            (fn, data, nthreads, flags))

/* A host teams construct (OpenMP 5.0): libgomp runs the teams one after
 * another on the calling thread, each body called through run_body, so
 * that every team's samples sit under the construct's path and the
 * runtime's frames between are cut, as in a region. */
WRAP_REGION(GOMP_teams_reg,
            (void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
             unsigned flags),
            (fn, data, num_teams, thread_limit, flags))

WRAP_REGION(GOMP_parallel_sections,
            (void (*fn)(void *), void *data, unsigned nthreads, unsigned count, unsigned flags),
            (fn, data, nthreads, count, flags))

#define WRAP_LOOP(name)                                                                            \
  WRAP_REGION(name,                                                                                \
              (void (*fn)(void *), void *data, unsigned nthreads, long start, long end, long incr, \
               long chunk, unsigned flags),                                                        \
              (fn, data, nthreads, start, end, incr, chunk, flags))

WRAP_LOOP(GOMP_parallel_loop_static)
WRAP_LOOP(GOMP_parallel_loop_dynamic)
WRAP_LOOP(GOMP_parallel_loop_guided)
WRAP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
WRAP_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

#define WRAP_RUNTIME_LOOP(name)                                                                    \
  WRAP_REGION(name,                                                                                \
              (void (*fn)(void *), void *data, unsigned nthreads, long start, long end, long incr, \
               unsigned flags),                                                                    \
              (fn, data, nthreads, start, end, incr, flags))

WRAP_RUNTIME_LOOP(GOMP_parallel_loop_runtime)
WRAP_RUNTIME_LOOP(GOMP_parallel_loop_nonmonotonic_runtime)
WRAP_RUNTIME_LOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
