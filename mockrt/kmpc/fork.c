/*
 * Parallel regions under the __kmpc_* ABI: __kmpc_fork_call and its helpers,
 * serialized regions (if(0)) and the thread-number queries.
 *
 * The master's stack during a region is
 *   user -> __kmpc_fork_call -> mockrt_kmpc_run_region -> trampoline -> outlined
 * as in LLVM's runtime (__kmpc_fork_call -> __kmp_fork_call -> ... ->
 * __kmp_invoke_microtask).  The encountering task's enter frame is the frame
 * address of __kmpc_fork_call (the runtime entry, ompt_frame_framepointer);
 * the implicit task's exit frame is the trampoline's frame pointer, which it
 * stores itself, so every frame between the two is runtime and a tool can
 * cut them all.
 */
#include "kmpc.h"
#include "../core/fault.h"

#include <stdarg.h>
#include <stdlib.h>

/*
 * clang calls the runtime for every construct with an OMPT event.  The
 * dispatch callback (OpenMP 5.0's chunks and sections) is answered never
 * and never sent, as libomp 14 does: it has no dispatch events.
 */
const uint64_t mockrt_abi_sometimes = 0;
const uint64_t mockrt_abi_never = MOCKRT_CB_BIT(ompt_callback_dispatch);
const bool mockrt_fulfill_statuses = true;
/* Enter frames as libomp 14 writes them (core/mockrt.h). */
const int mockrt_entry_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;

/* num_threads() clause of the next region this thread opens (0: none). */
static MOCKRT_TLS int mockrt_kmpc_pushed_threads;


static void mockrt_kmpc_set_micro(mockrt_team_t *team, void *arg)
{
  team->micro = arg;
}

/*
 * The runtime frame between the entry point and the trampoline.  It is
 * never inlined: it stands for LLVM's __kmp_fork_call, and its team and
 * task live in its frame until every worker has left them.
 */
static MOCKRT_NOINLINE void mockrt_kmpc_run_region(mockrt_kmpc_micro_t fn, int argc, void **argv,
                                                   void *entry_frame, const void *ra)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  mockrt_team_t team;
  mockrt_task_t task;
  mockrt_microtask_t micro = {mockrt_invoke_microtask, (void (*)(void))fn, argc, argv};
  unsigned requested = (unsigned)mockrt_kmpc_pushed_threads;

  mockrt_kmpc_pushed_threads = 0;
  mockrt_frame_enter(enc, entry_frame);
  self->fork_by_runtime = true;
  mockrt_fork_ex(&team, &task, NULL, NULL, requested, ra, mockrt_kmpc_set_micro, &micro);
  /* The body may keep these pointers for the whole region. */
  int32_t gtid = self->gtid, btid = 0;
  mockrt_frame_exit_flags(&task);
  /* The trampoline stores the right exit frame; a fault has it stored aside. */
  void **exit_slot = &task.frame.exit_frame.ptr;
  if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_WRONG))
    exit_slot = mockrt_fault_exit_frame(&task, (char *)entry_frame - 65536);
  /* The entry point's own frame: a runtime frame, above the body, but not its caller's. */
  if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_NOT_CALLERS))
    exit_slot = mockrt_fault_exit_frame(&task, entry_frame);
  mockrt_invoke_microtask(micro.fn, &gtid, &btid, argc, argv, exit_slot);
  mockrt_frame_unexit(&task);
  /* In the join barrier everything inward of the entry point is runtime. */
  mockrt_join(&team, &task);
  mockrt_frame_leave(enc);
}

void **mockrt_kmpc_args_take(void **inline_args, int32_t *argc, va_list ap)
{
  void **argv = inline_args;
  if (*argc < 0)
    *argc = 0;
  if (*argc > MOCKRT_KMPC_INLINE_ARGS) {
    argv = malloc(sizeof *argv * (size_t)*argc);
    if (!argv)
      abort();
  }
  for (int i = 0; i < *argc; i++)
    argv[i] = va_arg(ap, void *);
  return argv;
}

void mockrt_kmpc_args_release(void **argv, void **inline_args)
{
  if (argv != inline_args)
    free(argv);
}

MOCKRT_EXPORT void __kmpc_fork_call(mockrt_ident_t *loc, int32_t argc, mockrt_kmpc_micro_t fn, ...)
{
  void *inline_args[MOCKRT_KMPC_INLINE_ARGS];
  va_list ap;

  (void)loc;
  va_start(ap, fn);
  void **argv = mockrt_kmpc_args_take(inline_args, &argc, ap);
  va_end(ap);
  mockrt_kmpc_run_region(fn, argc, argv, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
  mockrt_kmpc_args_release(argv, inline_args);
}

MOCKRT_EXPORT void __kmpc_push_num_threads(mockrt_ident_t *loc, int32_t gtid, int32_t n)
{
  (void)loc;
  (void)gtid;
  mockrt_self();
  mockrt_kmpc_pushed_threads = n > 0 ? n : 0;
}

/* proc_bind(): the mock does not bind threads. */
MOCKRT_EXPORT void __kmpc_push_proc_bind(mockrt_ident_t *loc, int32_t gtid, int32_t bind)
{
  (void)loc;
  (void)gtid;
  (void)bind;
}

MOCKRT_EXPORT int32_t __kmpc_global_thread_num(mockrt_ident_t *loc)
{
  (void)loc;
  return mockrt_self()->gtid;
}

MOCKRT_EXPORT int32_t __kmpc_global_num_threads(mockrt_ident_t *loc)
{
  (void)loc;
  mockrt_self();
  return mockrt_icv.thread_limit;
}

MOCKRT_EXPORT int32_t __kmpc_bound_thread_num(mockrt_ident_t *loc)
{
  (void)loc;
  mockrt_task_t *t = mockrt_kmpc_task();
  return t ? t->thread_num : 0;
}

MOCKRT_EXPORT int32_t __kmpc_bound_num_threads(mockrt_ident_t *loc)
{
  (void)loc;
  mockrt_task_t *t = mockrt_kmpc_task();
  return t ? (int32_t)t->team->nthreads : 1;
}

MOCKRT_EXPORT int32_t __kmpc_in_parallel(mockrt_ident_t *loc)
{
  (void)loc;
  mockrt_task_t *t = mockrt_kmpc_task();
  return t && t->team->active_level > 0;
}

/* __kmpc_begin/__kmpc_end bracket a program built with -fopenmp-... startup calls. */
MOCKRT_EXPORT void __kmpc_begin(mockrt_ident_t *loc, int32_t flags)
{
  (void)loc;
  (void)flags;
  mockrt_self();
}

MOCKRT_EXPORT void __kmpc_end(mockrt_ident_t *loc)
{
  (void)loc;
}

/*
 * A serialized region (if(0), or a region clang decides to run alone): the
 * program calls the outlined function itself, between these two calls, so
 * the team and the task must outlive __kmpc_serialized_parallel's frame.
 */
typedef struct mockrt_kmpc_serial {
  mockrt_task_t task;
  mockrt_team_t team;
  struct mockrt_kmpc_serial *outer; /* the serialized region this one is nested in */
} mockrt_kmpc_serial_t;

/* The innermost serialized region of this thread. */
static MOCKRT_TLS mockrt_kmpc_serial_t *mockrt_kmpc_serial_top;

/*
 * No runtime frame lies between the program and the body, so the implicit
 * task's exit frame (and the encountering task's enter frame) name the
 * program's own frame that calls the body.  Its stack pointer at the call
 * is this function's CFA; flagged as a frame-pointer-like address of an
 * application frame, it names the caller: the body's CFA is at or below it
 * and the caller's is above it.  With ompt_frame_cfa it would name the body
 * itself, and a tool would cut the body away.
 */
MOCKRT_EXPORT void __kmpc_serialized_parallel(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  void *cfa = __builtin_dwarf_cfa();
  mockrt_kmpc_serial_t *s = malloc(sizeof *s);

  (void)loc;
  (void)gtid;
  if (!s)
    abort();
  self->fork_inline = true;
  mockrt_frame_enter(enc, MOCKRT_ENTRY_FRAME());
  mockrt_fork_ex(&s->team, &s->task, NULL, NULL, 1, __builtin_return_address(0), NULL, NULL);
  mockrt_frame_enter_ex(enc, cfa, ompt_frame_application | ompt_frame_framepointer);
  mockrt_frame_exit_ex(&s->task, cfa, ompt_frame_application | ompt_frame_framepointer);
  s->outer = mockrt_kmpc_serial_top;
  mockrt_kmpc_serial_top = s;
}

MOCKRT_EXPORT void __kmpc_end_serialized_parallel(mockrt_ident_t *loc, int32_t gtid)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_kmpc_serial_t *s = mockrt_kmpc_serial_top;

  (void)loc;
  (void)gtid;
  /* An unmatched end (the program's bug) must not free what it does not own. */
  if (!s || self->task != &s->task)
    return;
  mockrt_kmpc_serial_top = s->outer;
  mockrt_task_t *enc = s->team.encountering;
  mockrt_frame_unexit(&s->task);
  mockrt_frame_enter(enc, MOCKRT_ENTRY_FRAME());
  mockrt_join(&s->team, &s->task);
  mockrt_frame_leave(enc);
  /* Unpublished by the join: no signal handler can reach it any more. */
  free(s);
}
