/* Barriers, task waits, locks, critical sections and atomics on GNU libgomp, which has
 * no OMPT: wrappers of the runtime's entry points announce the waits,
 * acquisitions and releases blame needs (blame.h), as OMPT's callbacks
 * would. Under a runtime with OMPT (knit's mocks, LLVM's libomp, which
 * exports the same names) they pass straight through; its own callbacks
 * report the same events.
 *
 * Wait ids are the mutexes' addresses: an omp lock's, a named critical
 * section's variable (libgomp keeps the mutex in it or behind it), and for
 * libgomp's one lock of unnamed critical sections and its one lock of the
 * atomics it does not open-code, addresses of knit's own.
 */
#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "ompt/blame.h"
#include "ompt/blame_release.h"
#include "gomp/gomp_wrap.h"

static const char unnamed_critical;
static const char atomic_lock;

#define ADDRESS(p) ((uint64_t)(uintptr_t)(p))

/* An entry point that may wait (a barrier, wait id 0, or a mutex's
 * acquisition), returning ret. */
#define WRAP_WAIT(ret, name, params, args, state, id)                                              \
  KNIT_GOMP_EXPORT KNIT_GOMP_RESULT_##ret name params                                              \
  {                                                                                                \
    KNIT_GOMP_PASS(ret, name, params, args)                                                        \
    knit_gomp_wait outer = knit_gomp_wait_begin(t, state, id, (uintptr_t)__builtin_dwarf_cfa());   \
    KNIT_GOMP_KEEP_##ret real args;                                                                \
    knit_gomp_wait_end(t, outer, true);                                                            \
    KNIT_GOMP_GIVE_##ret;                                                                          \
  }

/* A mutex's release: the waits filed under the holding go to the program's
 * call, which this wrapper returns to. */
#define WRAP_RELEASE(name, params, args, id)                                                       \
  KNIT_GOMP_EXPORT void name params                                                                \
  {                                                                                                \
    KNIT_GOMP_PASS(VOID, name, params, args)                                                       \
    (void)t;                                                                                       \
    real args;                                                                                     \
    knit_blame_release(id, __builtin_return_address(0));                                           \
  }

/* Explicit barriers, and the implicit ones that end worksharing loops and
 * sections (gcc calls GOMP_barrier for those of static loops). */
WRAP_WAIT(VOID, GOMP_barrier, (void), (), ompt_state_wait_barrier_explicit, 0)
WRAP_WAIT(BOOL, GOMP_barrier_cancel, (void), (), ompt_state_wait_barrier_explicit, 0)
WRAP_WAIT(VOID, GOMP_loop_end, (void), (), ompt_state_wait_barrier_implicit_workshare, 0)
WRAP_WAIT(BOOL, GOMP_loop_end_cancel, (void), (), ompt_state_wait_barrier_implicit_workshare, 0)
WRAP_WAIT(VOID, GOMP_sections_end, (void), (), ompt_state_wait_barrier_implicit_workshare, 0)
WRAP_WAIT(BOOL, GOMP_sections_end_cancel, (void), (), ompt_state_wait_barrier_implicit_workshare, 0)

/* Waits for explicit tasks: for the calling task's children, and for a
 * taskgroup's tasks at its end. libgomp runs queued tasks while the thread
 * waits there; knit's task function (gomp_task.c) takes the wait off the
 * thread while one runs. (GOMP_taskloop's own taskgroup is libgomp's
 * internal call, not these.) */
WRAP_WAIT(VOID, GOMP_taskwait, (void), (), ompt_state_wait_taskwait, 0)
WRAP_WAIT(VOID, GOMP_taskgroup_end, (void), (), ompt_state_wait_taskgroup, 0)

WRAP_WAIT(VOID, omp_set_lock, (void *lock), (lock), ompt_state_wait_lock, ADDRESS(lock))
WRAP_RELEASE(omp_unset_lock, (void *lock), (lock), ADDRESS(lock))
WRAP_WAIT(VOID, GOMP_critical_start, (void), (), ompt_state_wait_critical,
          ADDRESS(&unnamed_critical))
WRAP_RELEASE(GOMP_critical_end, (void), (), ADDRESS(&unnamed_critical))
WRAP_WAIT(VOID, GOMP_critical_name_start, (void **pptr), (pptr), ompt_state_wait_critical,
          ADDRESS(pptr))
WRAP_RELEASE(GOMP_critical_name_end, (void **pptr), (pptr), ADDRESS(pptr))
WRAP_WAIT(VOID, GOMP_atomic_start, (void), (), ompt_state_wait_atomic, ADDRESS(&atomic_lock))
WRAP_RELEASE(GOMP_atomic_end, (void), (), ADDRESS(&atomic_lock))

/* omp_test_lock never waits: only a success begins a holding. */
KNIT_GOMP_EXPORT int omp_test_lock(void *lock)
{
  KNIT_GOMP_PASS(INT, omp_test_lock, (void *lock), (lock))
  int got = real(lock);
  if (got)
    knit_blame_acquired(t, ADDRESS(lock));
  return got;
}

/* Nested locks: the calling thread's own holdings, so that only the first
 * acquisition begins a holding and only the last release ends it (OMPT
 * reports the others as nest_lock events, which blame ignores). A lock
 * beyond this many held at once by one thread stays out of blame: waits
 * for it are counted as unclaimed. */
#define NEST_HOLDINGS 8

typedef struct nest_holding {
  const void *lock; /* NULL: free */
  int depth;
} nest_holding;

static __thread nest_holding nest_held[NEST_HOLDINGS] __attribute__((tls_model("initial-exec")));

static nest_holding *nest_find(const void *lock)
{
  for (int i = 0; i < NEST_HOLDINGS; i++) {
    if (nest_held[i].lock == lock)
      return &nest_held[i];
  }
  return NULL;
}

KNIT_GOMP_EXPORT void omp_set_nest_lock(void *lock)
{
  KNIT_GOMP_PASS(VOID, omp_set_nest_lock, (void *lock), (lock))
  nest_holding *h = nest_find(lock);
  if (h) {
    /* The calling thread holds it already: no wait, no new holding. */
    real(lock);
    h->depth++;
    return;
  }
  h = nest_find(NULL);
  knit_gomp_wait outer = knit_gomp_wait_begin(t, ompt_state_wait_lock, ADDRESS(lock),
                                              (uintptr_t)__builtin_dwarf_cfa());
  real(lock);
  knit_gomp_wait_end(t, outer, h != NULL);
  if (h)
    *h = (nest_holding){lock, 1};
}

KNIT_GOMP_EXPORT int omp_test_nest_lock(void *lock)
{
  KNIT_GOMP_PASS(INT, omp_test_nest_lock, (void *lock), (lock))
  int depth = real(lock); /* the nesting count now, 0 when not acquired */
  nest_holding *h = nest_find(lock);
  if (h) {
    h->depth = depth;
  } else if (depth == 1 && (h = nest_find(NULL))) {
    *h = (nest_holding){lock, 1};
    knit_blame_acquired(t, ADDRESS(lock));
  }
  return depth;
}

KNIT_GOMP_EXPORT void omp_unset_nest_lock(void *lock)
{
  KNIT_GOMP_PASS(VOID, omp_unset_nest_lock, (void *lock), (lock))
  nest_holding *h = nest_find(lock);
  real(lock);
  if (h && --h->depth == 0) {
    h->lock = NULL;
    knit_blame_release(ADDRESS(lock), __builtin_return_address(0));
  }
}
