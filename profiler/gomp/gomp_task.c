/* Explicit tasks on GNU libgomp, which has no OMPT: the wrappers of
 * GOMP_task, GOMP_taskloop and GOMP_taskloop_ull capture the creating
 * task's call path, as task_create does under OMPT, and hand libgomp a
 * function of knit's and an argument block of knit's in place of the
 * program's. Whichever thread runs the task, and whenever (at once for an
 * undeferred task, in the creator's GOMP_task; later in a barrier, a
 * taskwait or a taskgroup's end, on any thread of the team), knit's
 * function finds the path in the block, publishes it as the thread's task
 * with its own frame as the task's exit frame (knit_gomp_task_begin), and
 * calls the program's function: samples are then attributed exactly as an
 * OMPT runtime's explicit tasks are (attribution.c).
 *
 * The path travels inside the argument block, which libgomp copies into
 * each task it defers and frees with it: no table, nothing to free, and
 * nothing for a sample's handler to look up. knit's block is a head
 * (task_head) followed by the program's own block, at an offset that keeps
 * the program's alignment:
 *
 *   - without a copy function (the program's block is plain bytes), the
 *     wrapper builds the whole block, head and a copy of the program's
 *     bytes, and libgomp copies it as it would have copied the program's
 *     (or, for an undeferred task, passes it to knit's function as is);
 *   - with one (firstprivate variables that need copying: C++ objects,
 *     variable-length arrays), knit's copy function writes the head into
 *     libgomp's block and calls the program's to construct its part in
 *     place, from the program's data: objects are constructed where they
 *     live, as without knit. A copy function is passed only where the
 *     program passed one, since libgomp treats a task with one differently
 *     under cancellation (its copy constructors have run: it is not
 *     discarded).
 *
 * libgomp itself reads and writes a few words at the start of a block: a
 * detachable task's event handle (word 0, GOMP_task), a taskloop task's
 * bounds (words 0 and 1, written into each task's copy) and the address of
 * a taskloop's reductions (word 2, read from the program's data). The
 * head's first three words stand for those: the wrapper copies word 2 from
 * the program's data, and knit's function copies words 0 and 1 into the
 * program's block before calling its function.
 *
 * A block knit cannot describe (an alignment that is not a power of two, a
 * negative size) and a path that cannot be had go straight through: the
 * task then runs unattributed, as before these wrappers, never otherwise.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "gomp/gomp_wrap.h"
#include "ompt/task_contexts.h"

/* The words of a block libgomp itself reads or writes (see above). */
#define LIBGOMP_WORDS 3

/* What a block's head says of the program's part. */
enum {
  TASK_EVENT = 1u,  /* word 0 is the detach event libgomp wrote: the program's too */
  TASK_BOUNDS = 2u, /* words 0 and 1 are a taskloop task's bounds: the program's too */
};

/* The head of every argument block knit hands libgomp. */
typedef struct task_head {
  uint64_t words[LIBGOMP_WORDS];
  void (*fn)(void *);         /* the program's task function */
  const knit_call_path *path; /* where the task was created */
  uint32_t offset;            /* of the program's block, from the head */
  uint32_t kind;              /* TASK_* */
} task_head;

/* The data knit passes when the program passed a copy function: the head
 * to write, and what to construct the program's part from. */
typedef struct task_source {
  task_head head;
  void *data;
  void (*cpyfn)(void *, void *);
} task_source;

/* GOMP_task's and GOMP_taskloop's flags (gcc's gomp-constants.h). */
#define GOMP_TASK_FLAG_DETACH (1u << 13)

/* Blocks up to this size are built on the wrapper's stack. */
#define STACK_BLOCK 512

/* Explicit tasks the thread is running, one inside another (a task run in
 * a taskwait of another): a task created while one runs is created inside
 * an explicit task, and gets a transient context (task_contexts.h). */
static __thread unsigned explicit_depth __attribute__((tls_model("initial-exec")));

/* Every explicit task libgomp runs for the program starts here, on the
 * thread that runs it. noinline: its CFA is the task's exit frame. */
__attribute__((noinline)) static void run_task(void *arg)
{
  const task_head *h = arg;
  void *block = (char *)arg + h->offset;
  if (h->kind & TASK_BOUNDS)
    memcpy(block, h->words, 2 * sizeof h->words[0]);
  else if (h->kind & TASK_EVENT)
    memcpy(block, h->words, sizeof(void *));
  void (*fn)(void *) = h->fn;
  const knit_call_path *path = h->path;
  knit_thread *t = knit_thread_self();
  knit_gomp_saved saved = knit_gomp_task_begin(t, path, (uintptr_t)__builtin_dwarf_cfa());
  explicit_depth++;
  fn(block);
  explicit_depth--;
  knit_gomp_task_end(t, saved);
  /* The task is done: its transient context goes back (a GOMP_task's
   * block reaches run_task once; a taskloop's path is never transient). */
  knit_task_context_release(path);
  /* Keeps the calls above out of tail position. */
  __asm__ __volatile__("" ::: "memory");
}

/* libgomp's copy of a block whose program part has a copy function: into
 * dst (libgomp's block, aligned as knit asked) from a task_source. */
static void copy_task(void *dst, void *src)
{
  task_source *s = src;
  /* libgomp wrote a detachable task's event into the data it was given,
   * before copying: the program's data, as without knit. */
  if (s->head.kind & TASK_EVENT)
    memcpy(s->data, s->head.words, sizeof(void *));
  memcpy(dst, &s->head, sizeof s->head);
  s->cpyfn((char *)dst + s->head.offset, s->data);
}

/* A block for task arguments too large for the stack, kept from one such
 * task to the next: a mapping of its own per task would cost two system
 * calls a task (base/arena.h says why not malloc). One for the process,
 * taken and given back by atomic exchange; a thread that finds none, or
 * one too small, maps its own. */
static _Atomic(void *) spare_block;

static void *take_block(size_t need)
{
  void *p = atomic_exchange(&spare_block, NULL);
  if (p && knit_pages_capacity(p) >= need)
    return p;
  knit_pages_free(p);
  return knit_pages_alloc(need);
}

static void give_block(void *p)
{
  if (p)
    knit_pages_free(atomic_exchange(&spare_block, p));
}

/* knit's block for one task construct, described in the wrapper's frame:
 * what is handed to libgomp in place of the program's fn, data, cpyfn,
 * arg_size and arg_align. */
typedef struct task_block {
  void (*fn)(void *);
  void *data;
  void (*cpyfn)(void *, void *);
  long size, align;
  task_source source; /* data, when the program has a copy function */
  void *heap;         /* a block too large for the stack, to give back */
} task_block;

/* Builds knit's block for a task created at path (the program's fn, data,
 * cpyfn, arg_size and arg_align; kind, TASK_* the construct may need) into
 * *b, on stack (STACK_BLOCK bytes) when it fits. False: the block is one
 * knit does not describe, and the call must go through unchanged. */
static bool build(task_block *b, char *stack, const knit_call_path *path, void (*fn)(void *),
                  void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                  uint32_t kind)
{
  if (!path || arg_size < 0 || arg_align <= 0 || (arg_align & (arg_align - 1)) ||
      arg_align > 4096 || arg_size > (1l << 40))
    return false;
  /* The words libgomp uses are the program's only where its block has
   * them. */
  if ((kind & TASK_BOUNDS) && arg_size < (long)(2 * sizeof(uint64_t)))
    kind &= ~TASK_BOUNDS;
  if ((kind & TASK_EVENT) && (!data || arg_size < (long)sizeof(void *)))
    kind &= ~TASK_EVENT;
  long align = arg_align > (long)_Alignof(task_head) ? arg_align : (long)_Alignof(task_head);
  long offset = ((long)sizeof(task_head) + arg_align - 1) & ~(arg_align - 1);
  task_head head = {{0}, fn, path, (uint32_t)offset, kind};
  /* A taskloop's reductions: libgomp reads their address from word 2 of
   * the data it is given. */
  if (data && arg_size >= (long)(LIBGOMP_WORDS * sizeof(uint64_t)))
    memcpy(&head.words[2], (char *)data + 2 * sizeof(uint64_t), sizeof head.words[2]);
  b->fn = run_task;
  b->size = offset + arg_size;
  b->align = align;
  b->heap = NULL;
  if (cpyfn) {
    b->source = (task_source){head, data, cpyfn};
    b->data = &b->source;
    b->cpyfn = copy_task;
    return true;
  }
  /* Without a copy function libgomp copies the block as bytes, or passes
   * it to run_task as it is (an undeferred task): it must be aligned as the
   * program's own. */
  char *mem = stack;
  size_t need = (size_t)b->size + (size_t)align - 1;
  if (need > STACK_BLOCK) {
    mem = b->heap = take_block(need);
    if (!mem)
      return false;
  }
  char *block = (char *)(((uintptr_t)mem + (uintptr_t)align - 1) & ~((uintptr_t)align - 1));
  memcpy(block, &head, sizeof head);
  if (arg_size > 0)
    memcpy(block + offset, data, (size_t)arg_size);
  b->data = block;
  b->cpyfn = NULL;
  return true;
}

KNIT_GOMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                long arg_size, long arg_align, bool if_clause, unsigned flags,
                                void **depend, int priority, void *detach)
{
  KNIT_GOMP_PASS(VOID, GOMP_task,
                 (void (*)(void *), void *, void (*)(void *, void *), long, long, bool, unsigned,
                  void **, int, void *),
                 (fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach))
  char stack[STACK_BLOCK] __attribute__((aligned(16)));
  task_block b;
  uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
  /* Creating the task is the runtime's overhead, as OMPT runtimes call
   * it (knit's capture included): <omp-overhead> under the creator. */
  knit_gomp_wait outer = knit_gomp_wait_begin(t, ompt_state_overhead, 0, cfa);
  const knit_call_path *path = knit_gomp_path_here(cfa, explicit_depth > 0);
  if (build(&b, stack, path, fn, data, cpyfn, arg_size, arg_align,
            (flags & GOMP_TASK_FLAG_DETACH) ? TASK_EVENT : 0)) {
    real(b.fn, b.data, b.cpyfn, b.size, b.align, if_clause, flags, depend, priority, detach);
    give_block(b.heap);
  } else {
    /* Runs unattributed: nothing will give its context back. */
    knit_task_context_release(path);
    real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
  }
  knit_gomp_wait_end(t, outer, true);
}

/* GOMP_taskloop and GOMP_taskloop_ull: the same but for the type of the
 * bounds, which libgomp writes into each task's block. The creator's wait
 * for the taskloop's tasks, in the taskgroup libgomp opens for them, is
 * the same overhead: libgomp calls its own taskgroup functions. */
#define WRAP_TASKLOOP(name, type)                                                                  \
  KNIT_GOMP_EXPORT void name(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),        \
                             long arg_size, long arg_align, unsigned flags,                        \
                             unsigned long num_tasks, int priority, type start, type end,          \
                             type step)                                                            \
  {                                                                                                \
    KNIT_GOMP_PASS(                                                                                \
        VOID, name,                                                                                \
        (void (*)(void *), void *, void (*)(void *, void *), long, long, unsigned, unsigned long,  \
         int, type, type, type),                                                                   \
        (fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step))      \
    _Static_assert(sizeof(type) == sizeof(uint64_t), "a taskloop bound is a word");                \
    char stack[STACK_BLOCK] __attribute__((aligned(16)));                                          \
    task_block b;                                                                                  \
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();                                              \
    knit_gomp_wait outer = knit_gomp_wait_begin(t, ompt_state_overhead, 0, cfa);                   \
    if (build(&b, stack, knit_gomp_path_here(cfa, false), fn, data, cpyfn, arg_size, arg_align,    \
              TASK_BOUNDS)) {                                                                      \
      real(b.fn, b.data, b.cpyfn, b.size, b.align, flags, num_tasks, priority, start, end, step);  \
      give_block(b.heap);                                                                          \
    } else {                                                                                       \
      real(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);    \
    }                                                                                              \
    knit_gomp_wait_end(t, outer, true);                                                            \
  }

WRAP_TASKLOOP(GOMP_taskloop, long)
WRAP_TASKLOOP(GOMP_taskloop_ull, unsigned long long)
