/*
 * GOMP explicit-task entry points: task, taskwait, taskgroup, taskyield and
 * taskloop, as gcc 12 calls them.  Each sets the encountering task's enter
 * frame to its own CFA before it can call a tool or run a task, and clears
 * it before returning to the program.  A task's body is called by
 * mockrt_gomp_task_invoke, whose CFA is the task's exit frame.
 */
#include "gomp.h"
#include "../core/task.h"

#include <stdlib.h>
#include <string.h>

/* gcc's flags argument (gomp-constants.h). */
#define MOCKRT_GOMP_TASK_UNTIED    (1u << 0)
#define MOCKRT_GOMP_TASK_FINAL     (1u << 1)
#define MOCKRT_GOMP_TASK_MERGEABLE (1u << 2)
#define MOCKRT_GOMP_TASK_DEPEND    (1u << 3)
#define MOCKRT_GOMP_TASK_PRIORITY  (1u << 4)
#define MOCKRT_GOMP_TASK_UP        (1u << 8)
#define MOCKRT_GOMP_TASK_GRAINSIZE (1u << 9)
#define MOCKRT_GOMP_TASK_IF        (1u << 10)
#define MOCKRT_GOMP_TASK_NOGROUP   (1u << 11)
#define MOCKRT_GOMP_TASK_DETACH    (1u << 13)

/* Kinds in a depobj ({address, kind}), the only place gcc names them. */
enum {
  MOCKRT_GOMP_DEP_IN = 1,
  MOCKRT_GOMP_DEP_OUT = 2,
  MOCKRT_GOMP_DEP_INOUT = 3,
  MOCKRT_GOMP_DEP_MUTEXINOUTSET = 4
};

/* Dependences small enough to decode on the stack. */
#define MOCKRT_GOMP_INLINE_DEPS 16

static MOCKRT_NOINLINE void mockrt_gomp_task_invoke(mockrt_xtask_t *x)
{
  mockrt_frame_exit(&x->task, __builtin_dwarf_cfa());
  mockrt_task_invoked(x);
  ((void (*)(void *))x->fn)(x->arg);
  mockrt_frame_unexit(&x->task);
}

/* Without a tool there is no exit frame to keep. */
static void mockrt_gomp_task_invoke_plain(mockrt_xtask_t *x)
{
  mockrt_task_invoked(x);
  ((void (*)(void *))x->fn)(x->arg);
}

static int mockrt_gomp_depobj_type(uintptr_t kind)
{
  switch (kind) {
  case MOCKRT_GOMP_DEP_IN: return ompt_dependence_type_in;
  case MOCKRT_GOMP_DEP_OUT: return ompt_dependence_type_out;
  case MOCKRT_GOMP_DEP_MUTEXINOUTSET: return ompt_dependence_type_mutexinoutset;
  default: return ompt_dependence_type_inout;
  }
}

/*
 * gcc's depend array.  Old form: [n, n_out, addresses: out/inout first,
 * then in].  New form (first word 0, used when mutexinoutset or depobj
 * appear): [0, n, n_out, n_mutexinoutset, n_in, addresses in that order,
 * then depobjs, each a pointer to {address, kind}].  gcc does not tell out
 * from inout; both are reported as inout.  Returns the count; *deps is buf
 * or a malloc'd array the caller frees.
 */
static int mockrt_gomp_decode_deps(void **depend, mockrt_dep_t *buf, mockrt_dep_t **deps)
{
  size_t n, nout, nmtx = 0, nin, base;
  if ((uintptr_t)depend[0] != 0) {
    n = (uintptr_t)depend[0];
    nout = (uintptr_t)depend[1];
    nin = n - nout;
    base = 2;
  } else {
    n = (uintptr_t)depend[1];
    nout = (uintptr_t)depend[2];
    nmtx = (uintptr_t)depend[3];
    nin = (uintptr_t)depend[4];
    base = 5;
  }
  *deps = buf;
  if (n > MOCKRT_GOMP_INLINE_DEPS) {
    *deps = malloc(sizeof **deps * n);
    if (!*deps)
      abort();
  }
  for (size_t i = 0; i < n; i++) {
    void *p = depend[base + i];
    mockrt_dep_t *d = &(*deps)[i];
    if (i < nout) {
      d->addr = p;
      d->type = ompt_dependence_type_inout;
    } else if (i < nout + nmtx) {
      d->addr = p;
      d->type = ompt_dependence_type_mutexinoutset;
    } else if (i < nout + nmtx + nin) {
      d->addr = p;
      d->type = ompt_dependence_type_in;
    } else {
      d->addr = ((void **)p)[0];
      d->type = mockrt_gomp_depobj_type((uintptr_t)((void **)p)[1]);
    }
  }
  return (int)n;
}

/* A task whose data is a copy of the program's (cpyfn or memcpy), aligned as asked. */
static mockrt_xtask_t *mockrt_gomp_task_new(void (*fn)(void *), void *data,
                                            void (*cpyfn)(void *, void *), long arg_size,
                                            long arg_align, int flags)
{
  size_t align = arg_align > 0 ? (size_t)arg_align : 1;
  size_t size = arg_size > 0 ? (size_t)arg_size : 0;
  mockrt_xtask_t *x = mockrt_task_new(size + (align > 64 ? align : 0), flags);
  uintptr_t arg = (uintptr_t)mockrt_task_data(x);
  arg = (arg + align - 1) & ~(uintptr_t)(align - 1);
  if (cpyfn)
    cpyfn((void *)arg, data);
  else if (size)
    memcpy((void *)arg, data, size);
  x->invoke = MOCKRT_OMPT_ON ? mockrt_gomp_task_invoke : mockrt_gomp_task_invoke_plain;
  x->fn = (void *)fn;
  x->arg = (void *)arg;
  return x;
}

static int mockrt_gomp_task_flags(unsigned flags)
{
  int f = 0;
  if (flags & MOCKRT_GOMP_TASK_UNTIED)
    f |= ompt_task_untied;
  if (flags & MOCKRT_GOMP_TASK_FINAL)
    f |= ompt_task_final;
  if (flags & MOCKRT_GOMP_TASK_MERGEABLE)
    f |= ompt_task_mergeable;
  return f;
}

/*
 * GOMP_task's body, compiled twice (tool a constant): with a tool, out of
 * line, with the entry point's cfa and return address passed in.
 *
 * priority (with its flag) is a scheduling hint (core/task.c).  detach
 * points to the program's event handle: as libgomp does, the handle (here
 * the task) is stored there and in the first word of the task's copy of
 * the data, where gcc puts the event of the detach clause.
 */
static inline __attribute__((always_inline)) void
mockrt_gomp_task_body(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach, void *cfa, const void *ra, const bool tool)
{
  mockrt_task_t *enc = mockrt_self_tls.task; /* GOMP_task has attached the thread */
  mockrt_dep_t buf[MOCKRT_GOMP_INLINE_DEPS], *deps = buf;
  int ndeps = 0;
  int oflags = mockrt_gomp_task_flags(flags);

  if (tool)
    mockrt_frame_enter(enc, cfa);
  if (!if_clause)
    oflags |= ompt_task_undeferred;
  mockrt_xtask_t *x = mockrt_gomp_task_new(fn, data, cpyfn, arg_size, arg_align, oflags);
  if (flags & MOCKRT_GOMP_TASK_PRIORITY)
    mockrt_task_set_priority(x, priority);
  if ((flags & MOCKRT_GOMP_TASK_DETACH) && detach) {
    mockrt_task_make_detachable(x);
    *(void **)detach = x;
    if (arg_size >= (long)sizeof(void *))
      *(void **)x->arg = x;
  }
  if ((flags & MOCKRT_GOMP_TASK_DEPEND) && depend)
    ndeps = mockrt_gomp_decode_deps(depend, buf, &deps);
  if (tool)
    mockrt_task_submit(x, deps, ndeps, ra);
  else
    mockrt_task_submit_plain(x, deps, ndeps, ra);
  if (deps != buf)
    free(deps);
  if (tool)
    mockrt_frame_leave(enc);
}

__attribute__((noinline, cold)) static void
mockrt_gomp_task_observed(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long arg_size, long arg_align, bool if_clause, unsigned flags,
                          void **depend, int priority, void *detach, void *cfa, const void *ra)
{
  mockrt_gomp_task_body(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                        detach, cfa, ra, true);
}

MOCKRT_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                             long arg_size, long arg_align, bool if_clause, unsigned flags,
                             void **depend, int priority, void *detach)
{
  /* Attached, and any tool found, before the test. */
  if (!mockrt_plain_entry() && ((void)mockrt_self(), MOCKRT_OMPT_ON))
    mockrt_gomp_task_observed(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                              priority, detach, __builtin_dwarf_cfa(), __builtin_return_address(0));
  else
    mockrt_gomp_task_body(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                          detach, NULL, __builtin_return_address(0), false);
}

MOCKRT_EXPORT void GOMP_taskwait(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_task_taskwait(__builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_taskwait_depend(void **depend)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_dep_t buf[MOCKRT_GOMP_INLINE_DEPS], *deps = buf;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  int ndeps = mockrt_gomp_decode_deps(depend, buf, &deps);
  mockrt_task_wait_deps(deps, ndeps, __builtin_return_address(0));
  if (deps != buf)
    free(deps);
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_taskyield(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_task_yield();
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_taskgroup_start(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_task_group_begin(__builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void GOMP_taskgroup_end(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_task_group_end(__builtin_return_address(0));
  mockrt_frame_leave(t);
}

/* How many tasks a taskloop of n iterations makes (grainsize or num_tasks). */
static unsigned long long mockrt_gomp_taskloop_ntasks(unsigned flags, unsigned long num_tasks,
                                                      unsigned long long n)
{
  unsigned long long ntasks;
  if (flags & MOCKRT_GOMP_TASK_GRAINSIZE) {
    ntasks = num_tasks ? n / num_tasks : n;
  } else {
    ntasks = num_tasks ? num_tasks : (unsigned long long)mockrt_cur_task()->team->nthreads;
  }
  if (ntasks > n)
    ntasks = n;
  return ntasks ? ntasks : 1;
}

/*
 * The body of both taskloop entry points: the iterations are split as
 * evenly as possible (with grainsize g every task gets g to 2g - 1 of
 * them), and each task's copy of the data starts with its own [start, end)
 * in the loop's type, which is where gcc's outlined function reads them.
 */
#define MOCKRT_GOMP_TASKLOOP_BODY(T)                                                               \
  mockrt_task_t *enc = mockrt_cur_task();                                                          \
  const void *ra = __builtin_return_address(0);                                                    \
  int oflags = mockrt_gomp_task_flags(flags);                                                      \
  unsigned long long n, ntasks, base, rem;                                                         \
  mockrt_frame_enter(enc, __builtin_dwarf_cfa());                                                  \
  if (!(flags & MOCKRT_GOMP_TASK_IF))                                                              \
    oflags |= ompt_task_undeferred;                                                                \
  if (up)                                                                                          \
    n = start < end ? ((unsigned long long)(end - start) + (unsigned long long)step - 1) /         \
                          (unsigned long long)step                                                 \
                    : 0;                                                                           \
  else                                                                                             \
    n = start > end ? ((unsigned long long)(start - end) - (unsigned long long)step - 1) /         \
                          (0ull - (unsigned long long)step)                                        \
                    : 0;                                                                           \
  if (n == 0) {                                                                                    \
    mockrt_frame_leave(enc);                                                                       \
    return;                                                                                        \
  }                                                                                                \
  ntasks = mockrt_gomp_taskloop_ntasks(flags, num_tasks, n);                                       \
  base = n / ntasks;                                                                               \
  rem = n % ntasks;                                                                                \
  if (!(flags & MOCKRT_GOMP_TASK_NOGROUP))                                                         \
    mockrt_task_group_begin(ra);                                                                   \
  mockrt_task_taskloop_event(enc, ompt_scope_begin, n, ra);                                        \
  T s = start;                                                                                     \
  for (unsigned long long i = 0; i < ntasks; i++) {                                                \
    T e = s + (T)(base + (i < rem)) * step;                                                        \
    mockrt_xtask_t *x = mockrt_gomp_task_new(fn, data, cpyfn, arg_size, arg_align, oflags);        \
    if (flags & MOCKRT_GOMP_TASK_PRIORITY)                                                         \
      mockrt_task_set_priority(x, priority);                                                       \
    ((T *)x->arg)[0] = s;                                                                          \
    ((T *)x->arg)[1] = e;                                                                          \
    mockrt_task_submit(x, NULL, 0, ra);                                                            \
    s = e;                                                                                         \
  }                                                                                                \
  mockrt_task_taskloop_event(enc, ompt_scope_end, n, ra);                                          \
  if (!(flags & MOCKRT_GOMP_TASK_NOGROUP))                                                         \
    mockrt_task_group_end(ra);                                                                     \
  mockrt_frame_leave(enc);

MOCKRT_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                 long arg_size, long arg_align, unsigned flags,
                                 unsigned long num_tasks, int priority, long start, long end,
                                 long step)
{
  bool up = step > 0;
  MOCKRT_GOMP_TASKLOOP_BODY(long)
}

MOCKRT_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                     long arg_size, long arg_align, unsigned flags,
                                     unsigned long num_tasks, int priority,
                                     unsigned long long start, unsigned long long end,
                                     unsigned long long step)
{
  bool up = (flags & MOCKRT_GOMP_TASK_UP) != 0;
  MOCKRT_GOMP_TASKLOOP_BODY(unsigned long long)
}
