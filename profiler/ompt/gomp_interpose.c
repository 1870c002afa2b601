/* Parallel regions on GNU libgomp, without OMPT: see gomp_interpose.h. */
#define _GNU_SOURCE
#include "ompt/gomp_interpose.h"

#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>

#include "core/session.h"
#include "core/thread.h"
#include "ompt/ompt_state.h"

/* What a thread knows of the region body it is running. Written only by the
 * thread itself, outside its handler, and read by its handler. */
typedef struct gomp_task {
  const knit_call_path *prefix; /* the region's call path, NULL outside */
  uintptr_t exit_cfa;           /* CFA of run_body: where the body begins */
} gomp_task;

static __thread gomp_task current __attribute__((tls_model("initial-exec")));
static __thread bool ran_as_worker __attribute__((tls_model("initial-exec")));
static __thread bool is_encountering __attribute__((tls_model("initial-exec")));

typedef struct region {
  void (*fn)(void *);
  void *data;
  const knit_call_path *prefix;
} region;

bool knit_gomp_current_task(ompt_frame_t *frame, const knit_call_path **prefix)
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

bool knit_gomp_is_worker(void) { return ran_as_worker; }

/* Every thread of the team enters the body here: libgomp calls it in place
 * of the program's outlined function. noinline, so that its CFA is a frame
 * of its own that samples can find. */
__attribute__((noinline)) static void run_body(void *arg)
{
  const region *r = arg;
  gomp_task saved = current;
  if (!is_encountering)
    ran_as_worker = true;
  gomp_task mine = {r->prefix, (uintptr_t)__builtin_dwarf_cfa()};
  /* One store of the prefix last: a sample between the two stores sees
   * either no region or the whole of it. */
  current.exit_cfa = mine.exit_cfa;
  __atomic_store_n(&current.prefix, mine.prefix, __ATOMIC_RELEASE);
  r->fn(r->data);
  __atomic_store_n(&current.prefix, NULL, __ATOMIC_RELEASE);
  current = saved;
  /* Keeps the call above out of tail position. */
  __asm__ __volatile__("" ::: "memory");
}

/* Captures the path where the region begins: the frames of the calling
 * task above the GOMP entry (the wrapper, whose CFA is given), under the
 * calling task's own prefix when the region is nested. */
static const knit_call_path *region_path(uintptr_t entry_cfa)
{
  ompt_frame_t here = {0};
  here.enter_frame.ptr = (void *)entry_cfa;
  here.enter_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
  const knit_call_path *outer = NULL;
  if (current.prefix) {
    here.exit_frame.ptr = (void *)current.exit_cfa;
    here.exit_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
    outer = current.prefix;
  }
  return knit_capture_call_path(&here, outer);
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
    __atomic_store_n(&runtime_started, 1, __ATOMIC_RELEASE);
  }
  /* OMPT first: with an OMPT runtime every region passes here, and
   * answers at the first test. */
  return !knit_ompt_runtime.active && knit_the_session.active && knit_thread_self();
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

/* Runs the real entry point with run_body standing in for fn. The entry's
 * own CFA marks where the program's frames end. */
#define WRAP_REGION(name, params, call_args)                                   \
  __attribute__((visibility("default"))) void name params                     \
  {                                                                            \
    typedef void(*real_fn) params;                                             \
    static real_fn real;                                                       \
    if (!real)                                                                 \
      real = (real_fn)real_symbol(#name);                                      \
    if (!interposing()) {                                                      \
      real call_args;                                                          \
      return;                                                                  \
    }                                                                          \
    region r = {fn, data, region_path((uintptr_t)__builtin_dwarf_cfa())};     \
    bool was_encountering = is_encountering;                                   \
    is_encountering = true;                                                    \
    fn = run_body;                                                             \
    data = &r;                                                                 \
    real call_args;                                                            \
    is_encountering = was_encountering;                                        \
    __asm__ __volatile__("" ::: "memory");                                     \
  }

WRAP_REGION(GOMP_parallel, (void (*fn)(void *), void *data, unsigned nthreads, unsigned flags),
            (fn, data, nthreads, flags))

WRAP_REGION(GOMP_parallel_sections,
            (void (*fn)(void *), void *data, unsigned nthreads, unsigned count, unsigned flags),
            (fn, data, nthreads, count, flags))

#define WRAP_LOOP(name)                                                         \
  WRAP_REGION(name,                                                            \
              (void (*fn)(void *), void *data, unsigned nthreads, long start, long end, \
               long incr, long chunk, unsigned flags),                         \
              (fn, data, nthreads, start, end, incr, chunk, flags))

WRAP_LOOP(GOMP_parallel_loop_static)
WRAP_LOOP(GOMP_parallel_loop_dynamic)
WRAP_LOOP(GOMP_parallel_loop_guided)
WRAP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
WRAP_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

#define WRAP_RUNTIME_LOOP(name)                                                 \
  WRAP_REGION(name,                                                            \
              (void (*fn)(void *), void *data, unsigned nthreads, long start, long end, \
               long incr, unsigned flags),                                     \
              (fn, data, nthreads, start, end, incr, flags))

WRAP_RUNTIME_LOOP(GOMP_parallel_loop_runtime)
WRAP_RUNTIME_LOOP(GOMP_parallel_loop_nonmonotonic_runtime)
WRAP_RUNTIME_LOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
