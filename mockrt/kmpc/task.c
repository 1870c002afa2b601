/*
 * Explicit tasks under the __kmpc_* ABI, as clang 14 emits them.
 *
 * clang allocates a task with __kmpc_omp_task_alloc (its kmp_task_t, the
 * privates after it, and the shareds block), fills it in and hands it to
 * __kmpc_omp_task or __kmpc_omp_task_with_deps.  An if(0) task is run by
 * the program itself between __kmpc_omp_task_begin_if0 and
 * __kmpc_omp_task_complete_if0 (after __kmpc_omp_wait_deps if it has
 * dependences).  A taskloop is one pattern task that __kmpc_taskloop copies
 * once per chunk, with the chunk's bounds written where the pattern's lb
 * and ub pointers point.
 *
 * The runtime frame that calls a routine is the personality's
 * (mockrt_kmpc_task_invoke): its CFA is the task's exit frame.
 */
#include "kmpc.h"
#include "../core/task.h"

#include <stdlib.h>
#include <string.h>

/* The head of clang's kmp_task_t; privates follow it. */
typedef int32_t (*mockrt_kmp_routine_t)(int32_t gtid, void *task);
typedef struct mockrt_kmp_task {
  void *shareds;
  mockrt_kmp_routine_t routine;
  int32_t part_id;
  union {
    int32_t priority;
    void *destructors;
  } data1, data2;
} mockrt_kmp_task_t;

/* kmp_tasking_flags_t: the bits clang sets in __kmpc_omp_task_alloc's flags. */
#define MOCKRT_KMP_TASK_TIED       0x1
#define MOCKRT_KMP_TASK_FINAL      0x2
#define MOCKRT_KMP_TASK_PRIORITY   0x20 /* data2.priority holds a priority */
#define MOCKRT_KMP_TASK_DETACHABLE 0x40 /* __kmpc_task_allow_completion_event follows */

/* kmp_depend_info: an address, a length and in/out/mutexinoutset bits. */
typedef struct mockrt_kmp_depend_info {
  intptr_t base_addr;
  size_t len;
  uint8_t flags;
} mockrt_kmp_depend_info_t;
#define MOCKRT_KMP_DEP_IN  0x1
#define MOCKRT_KMP_DEP_OUT 0x2
#define MOCKRT_KMP_DEP_MTX 0x4

#define MOCKRT_KMPC_INLINE_DEPS 16

static int mockrt_kmpc_dep_type(uint8_t f)
{
  if (f & MOCKRT_KMP_DEP_MTX)
    return ompt_dependence_type_mutexinoutset;
  if ((f & MOCKRT_KMP_DEP_IN) && (f & MOCKRT_KMP_DEP_OUT))
    return ompt_dependence_type_inout;
  if (f & MOCKRT_KMP_DEP_OUT)
    return ompt_dependence_type_out;
  if (f & MOCKRT_KMP_DEP_IN)
    return ompt_dependence_type_in;
  /* Kinds after 5.0 (inoutset) are ordered as inout: stronger, so legal. */
  return ompt_dependence_type_inout;
}

/* Both lists in one array: buf, or a malloc'd one the caller frees. */
static int mockrt_kmpc_decode_deps(int32_t n, const mockrt_kmp_depend_info_t *list, int32_t n2,
                                   const mockrt_kmp_depend_info_t *list2, mockrt_dep_t *buf,
                                   mockrt_dep_t **deps)
{
  int total = (n > 0 ? n : 0) + (n2 > 0 ? n2 : 0), k = 0;
  *deps = buf;
  if (total > MOCKRT_KMPC_INLINE_DEPS) {
    *deps = malloc(sizeof **deps * (size_t)total);
    if (!*deps)
      abort();
  }
  for (int32_t i = 0; i < n; i++, k++) {
    (*deps)[k].addr = (void *)list[i].base_addr;
    (*deps)[k].type = mockrt_kmpc_dep_type(list[i].flags);
  }
  for (int32_t i = 0; i < n2; i++, k++) {
    (*deps)[k].addr = (void *)list2[i].base_addr;
    (*deps)[k].type = mockrt_kmpc_dep_type(list2[i].flags);
  }
  return total;
}

static size_t mockrt_kmpc_round8(size_t n)
{
  return (n + 7) & ~(size_t)7;
}

/* A task whose data is a kmp_task_t of task_size bytes, then the shareds. */
static mockrt_xtask_t *mockrt_kmpc_task_new(int flags, size_t task_size, size_t shareds_size,
                                            mockrt_kmp_routine_t routine)
{
  size_t head = mockrt_kmpc_round8(task_size);
  mockrt_xtask_t *x = mockrt_task_new(head + shareds_size, flags);
  mockrt_kmp_task_t *kt = mockrt_task_data(x);
  kt->shareds = shareds_size ? (char *)kt + head : NULL;
  kt->routine = routine;
  x->invoke = mockrt_kmpc_task_invoke;
  x->fn = (void *)routine;
  x->arg = kt;
  return x;
}

MOCKRT_EXPORT void *__kmpc_omp_task_alloc(mockrt_ident_t *loc, int32_t gtid, int32_t flags,
                                          size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                          mockrt_kmp_routine_t routine)
{
  int oflags = 0;
  (void)loc;
  (void)gtid;
  if (!(flags & MOCKRT_KMP_TASK_TIED))
    oflags |= ompt_task_untied;
  if (flags & MOCKRT_KMP_TASK_FINAL)
    oflags |= ompt_task_final;
  mockrt_xtask_t *x = mockrt_kmpc_task_new(oflags, sizeof_kmp_task_t, sizeof_shareds, routine);
  /* clang stores the priority after the allocation: it is read at submission. */
  x->priority = (flags & MOCKRT_KMP_TASK_PRIORITY) ? -1 : 0;
  if (flags & MOCKRT_KMP_TASK_DETACHABLE)
    mockrt_task_make_detachable(x);
  return mockrt_task_data(x);
}

/*
 * The task clang 14 makes for a target construct with nowait (or depend),
 * in which it calls the offloading library's _nowait entry point: an
 * ordinary task, untied as OpenMP says a target task is and as libomp 14
 * makes it; the device number is the offloading library's business.
 */
MOCKRT_EXPORT void *__kmpc_omp_target_task_alloc(mockrt_ident_t *loc, int32_t gtid, int32_t flags,
                                                 size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                                 mockrt_kmp_routine_t routine, int64_t device_id)
{
  (void)device_id;
  return __kmpc_omp_task_alloc(loc, gtid, flags & ~MOCKRT_KMP_TASK_TIED, sizeof_kmp_task_t,
                               sizeof_shareds, routine);
}

/* A priority clause's value, once clang has stored it (-1 marks its presence). */
static void mockrt_kmpc_task_priority(mockrt_xtask_t *x)
{
  if (x->priority < 0)
    mockrt_task_set_priority(x, ((mockrt_kmp_task_t *)x->arg)->data2.priority);
}

/* The handle of a detach clause's event: the task itself (omp_fulfill_event, core/omp_api.c). */
MOCKRT_EXPORT void *__kmpc_task_allow_completion_event(mockrt_ident_t *loc, int32_t gtid,
                                                       void *task)
{
  mockrt_xtask_t *x = mockrt_task_of_data(task);
  (void)loc;
  (void)gtid;
  if (!x->detachable)
    mockrt_task_make_detachable(x);
  return x;
}

/*
 * clang splits an untied task at its scheduling points into parts and, to
 * go on with the next part, passes the running task to __kmpc_omp_task
 * again and returns: the invoke loop then calls the routine once more.
 * Running the next part at once, on the same thread, is a legal schedule.
 */
static bool mockrt_kmpc_requeue(mockrt_xtask_t *x)
{
  if (mockrt_self()->task != &x->task)
    return false;
  x->again = true;
  return true;
}

MOCKRT_EXPORT int32_t __kmpc_omp_task(mockrt_ident_t *loc, int32_t gtid, void *task)
{
  mockrt_xtask_t *x = mockrt_task_of_data(task);
  mockrt_task_t *enc = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  if (mockrt_kmpc_requeue(x))
    return 0;
  mockrt_kmpc_task_priority(x);
  mockrt_frame_enter(enc, MOCKRT_ENTRY_FRAME());
  mockrt_task_submit(x, NULL, 0, __builtin_return_address(0));
  mockrt_frame_leave(enc);
  return 0;
}

MOCKRT_EXPORT int32_t __kmpc_omp_task_with_deps(mockrt_ident_t *loc, int32_t gtid, void *task,
                                                int32_t ndeps,
                                                const mockrt_kmp_depend_info_t *dep_list,
                                                int32_t ndeps_noalias,
                                                const mockrt_kmp_depend_info_t *noalias_dep_list)
{
  mockrt_xtask_t *x = mockrt_task_of_data(task);
  mockrt_task_t *enc = mockrt_kmpc_task();
  mockrt_dep_t buf[MOCKRT_KMPC_INLINE_DEPS], *deps;
  (void)loc;
  (void)gtid;
  mockrt_kmpc_task_priority(x);
  mockrt_frame_enter(enc, MOCKRT_ENTRY_FRAME());
  int n = mockrt_kmpc_decode_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, buf, &deps);
  mockrt_task_submit(x, deps, n, __builtin_return_address(0));
  if (deps != buf)
    free(deps);
  mockrt_frame_leave(enc);
  return 0;
}

MOCKRT_EXPORT void __kmpc_omp_wait_deps(mockrt_ident_t *loc, int32_t gtid, int32_t ndeps,
                                        const mockrt_kmp_depend_info_t *dep_list,
                                        int32_t ndeps_noalias,
                                        const mockrt_kmp_depend_info_t *noalias_dep_list)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_dep_t buf[MOCKRT_KMPC_INLINE_DEPS], *deps;
  (void)loc;
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  int n = mockrt_kmpc_decode_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, buf, &deps);
  mockrt_task_wait_deps(deps, n, __builtin_return_address(0));
  if (deps != buf)
    free(deps);
  mockrt_frame_leave(t);
}

/*
 * The program calls the routine itself, so no runtime frame lies between
 * it and the body: as for a serialized region (fork.c), the encountering
 * task's enter frame and the task's exit frame name the program's frame
 * that calls the body, as a frame-pointer-like address of an application
 * frame (this function's CFA is that frame's stack pointer at the call).
 */
MOCKRT_EXPORT void __kmpc_omp_task_begin_if0(mockrt_ident_t *loc, int32_t gtid, void *task)
{
  mockrt_xtask_t *x = mockrt_task_of_data(task);
  mockrt_task_t *enc = mockrt_kmpc_task();
  void *cfa = __builtin_dwarf_cfa();
  (void)loc;
  (void)gtid;
  /* Both frames before the task_create, where libomp 14 has them. */
  mockrt_frame_exit_ex(&x->task, cfa, ompt_frame_application | ompt_frame_framepointer);
  mockrt_frame_enter_ex(enc, cfa, ompt_frame_application | ompt_frame_framepointer);
  mockrt_task_begin_inline(x, __builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_omp_task_complete_if0(mockrt_ident_t *loc, int32_t gtid, void *task)
{
  mockrt_xtask_t *x = mockrt_task_of_data(task);
  mockrt_task_t *enc = x->task.parent;
  (void)loc;
  (void)gtid;
  mockrt_frame_unexit(&x->task);
  mockrt_frame_enter(enc, MOCKRT_ENTRY_FRAME());
  mockrt_task_end_inline(x);
  mockrt_frame_leave(enc);
}

MOCKRT_EXPORT int32_t __kmpc_omp_taskwait(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_task_taskwait(__builtin_return_address(0));
  mockrt_frame_leave(t);
  return 0;
}

MOCKRT_EXPORT int32_t __kmpc_omp_taskyield(mockrt_ident_t *loc, int32_t gtid, int end_part)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  (void)end_part;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_task_yield();
  mockrt_frame_leave(t);
  return 0;
}

/* Neither end of a taskgroup sets an enter frame, as in libomp 14. */
MOCKRT_EXPORT void __kmpc_taskgroup(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_task_group_begin(__builtin_return_address(0));
}

MOCKRT_EXPORT void __kmpc_end_taskgroup(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_task_group_end(__builtin_return_address(0));
}

typedef void (*mockrt_kmp_task_dup_t)(void *dst, void *src, int32_t lastpriv);

/* A copy of the pattern task for one chunk; shareds inside the block move with it. */
static mockrt_xtask_t *mockrt_kmpc_chunk(mockrt_xtask_t *pattern, int flags,
                                         mockrt_kmp_task_dup_t dup, int32_t last)
{
  mockrt_kmp_task_t *src = pattern->arg;
  mockrt_xtask_t *x = mockrt_task_new(pattern->data_size, flags);
  mockrt_kmp_task_t *dst = mockrt_task_data(x);
  memcpy(dst, src, pattern->data_size);
  char *lo = (char *)src, *hi = lo + pattern->data_size;
  if ((char *)src->shareds >= lo && (char *)src->shareds < hi)
    dst->shareds = (char *)dst + ((char *)src->shareds - lo);
  x->invoke = mockrt_kmpc_task_invoke;
  x->fn = pattern->fn;
  x->arg = dst;
  x->priority = pattern->priority;
  mockrt_kmpc_task_priority(x);
  if (dup)
    dup(dst, src, last);
  return x;
}

/*
 * sched: 0 none, 1 grainsize, 2 num_tasks (grainsize holds the number).
 * ub is inclusive.  nogroup: clang 14 opens the taskgroup itself and
 * passes 1; otherwise the runtime waits for the chunks in a taskgroup.
 * As in libomp 14, the enter frame is set only while each chunk's task is
 * created.
 */
MOCKRT_EXPORT void __kmpc_taskloop(mockrt_ident_t *loc, int32_t gtid, void *task, int if_val,
                                   uint64_t *lb, uint64_t *ub, int64_t st, int nogroup, int sched,
                                   uint64_t grainsize, void *task_dup)
{
  mockrt_xtask_t *pattern = mockrt_task_of_data(task);
  mockrt_task_t *enc = mockrt_kmpc_task();
  const void *ra = __builtin_return_address(0);
  uint64_t lower = *lb, upper = *ub, tc, ntasks;
  size_t lb_off = (size_t)((char *)lb - (char *)task), ub_off = (size_t)((char *)ub - (char *)task);
  int flags = pattern->task.flags | (if_val ? 0 : ompt_task_undeferred);

  (void)loc;
  (void)gtid;
  if (st == 0)
    st = 1;
  if (st > 0)
    tc = (int64_t)upper < (int64_t)lower ? 0 : (upper - lower) / (uint64_t)st + 1;
  else
    tc = (int64_t)lower < (int64_t)upper ? 0 : (lower - upper) / (uint64_t)-st + 1;
  if (sched == 1)
    ntasks = grainsize ? tc / grainsize : tc;
  else if (sched == 2)
    ntasks = grainsize;
  else
    ntasks = enc->team->nthreads;
  if (ntasks > tc)
    ntasks = tc;
  if (ntasks == 0)
    ntasks = 1;
  if (!nogroup)
    mockrt_task_group_begin(ra);
  /* libomp 14 names its own code as the taskloop's begin and end and its
   * tasks' creation (the address it kept is used up by then). */
  const void *inside = (const void *)(uintptr_t)__kmpc_taskloop;
  mockrt_task_taskloop_event(enc, ompt_scope_begin, tc, inside);
  uint64_t base = tc / ntasks, rem = tc % ntasks, s = lower;
  void *entry_frame = MOCKRT_ENTRY_FRAME();
  for (uint64_t i = 0; tc > 0 && i < ntasks; i++) {
    uint64_t count = base + (i < rem);
    uint64_t e = s + (count - 1) * (uint64_t)st;
    mockrt_xtask_t *x =
        mockrt_kmpc_chunk(pattern, flags, (mockrt_kmp_task_dup_t)task_dup, i == ntasks - 1);
    *(uint64_t *)((char *)x->arg + lb_off) = s;
    *(uint64_t *)((char *)x->arg + ub_off) = e;
    mockrt_frame_enter(enc, entry_frame);
    mockrt_task_submit(x, NULL, 0, inside);
    mockrt_frame_leave(enc);
    s = e + (uint64_t)st;
  }
  mockrt_task_taskloop_event(enc, ompt_scope_end, tc, inside);
  if (!nogroup)
    mockrt_task_group_end(ra);
  /* The pattern never ran and no tool saw it. */
  mockrt_task_discard(pattern);
}
