/*
 * GOMP parallel entry points: plain, combined with a loop, combined with
 * sections.  Each is a thin shell around mockrt_gomp_run_region so that
 * __builtin_dwarf_cfa() and __builtin_return_address(0) are its own.
 */
#include "gomp.h"

#include <stdlib.h>

__attribute__((noinline, cold)) void
mockrt_gomp_fork_observed(mockrt_team_t *team, mockrt_task_t *task, void (*fn)(void *), void *data,
                          unsigned nthreads, void *cfa, const void *ra, mockrt_team_init_fn init,
                          void *arg)
{
  mockrt_frame_enter(mockrt_self()->task, cfa);
  mockrt_fork_ex(team, task, fn, data, nthreads, ra, init, arg);
  mockrt_frame_exit(task, cfa);
  if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_WRONG))
    mockrt_fault_exit_frame(task, (char *)cfa - 65536);
  /* Two words into the program's frame that called the entry point. */
  if (mockrt_fault(MOCKRT_FAULT_EXIT_FRAME_NOT_CALLERS))
    mockrt_fault_exit_frame(task, (char *)cfa + 16);
}

/* The encountering task's enter frame stays as the fork set it until the end. */
__attribute__((noinline, cold)) void mockrt_gomp_join_observed(mockrt_team_t *team,
                                                               mockrt_task_t *task)
{
  mockrt_task_t *enc = team->encountering;
  mockrt_frame_unexit(task);
  mockrt_join(team, task);
  mockrt_frame_leave(enc);
}

typedef struct mockrt_gomp_loop_args {
  int sched;
  long start, end, incr, chunk;
} mockrt_gomp_loop_args_t;

static void mockrt_gomp_preset_loop(mockrt_team_t *team, void *arg)
{
  mockrt_gomp_loop_args_t *a = arg;
  mockrt_ws_preset(team, a->sched, a->start, a->end, a->incr, a->chunk);
}

MOCKRT_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                                 unsigned flags)
{
  (void)flags; /* proc_bind: the mock does not bind threads */
  mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(), __builtin_return_address(0),
                         NULL, NULL);
}

/* The combined forms start every thread inside slot 0's loop. */
#define MOCKRT_GOMP_PARALLEL_LOOP(name, kind)                                                      \
  MOCKRT_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,        \
                          long end, long incr, long chunk, unsigned flags)                         \
  {                                                                                                \
    mockrt_gomp_loop_args_t a = {kind, start, end, incr, chunk};                                   \
    (void)flags;                                                                                   \
    mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),                           \
                           __builtin_return_address(0), mockrt_gomp_preset_loop, &a);              \
  }

MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_static, MOCKRT_SCHED_STATIC)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_dynamic, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_guided, MOCKRT_SCHED_GUIDED)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, MOCKRT_SCHED_GUIDED)

/* schedule(runtime) takes its kind and chunk from OMP_SCHEDULE. */
#define MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(name)                                                    \
  MOCKRT_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,        \
                          long end, long incr, unsigned flags)                                     \
  {                                                                                                \
    mockrt_gomp_loop_args_t a = {mockrt_icv.run_sched, start, end, incr, mockrt_icv.run_chunk};    \
    (void)flags;                                                                                   \
    mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),                           \
                           __builtin_return_address(0), mockrt_gomp_preset_loop, &a);              \
  }

MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

static void mockrt_gomp_preset_sections(mockrt_team_t *team, void *arg)
{
  mockrt_gomp_preset_loop(team, arg);
  team->ws[0].wstype = ompt_work_sections;
}

/* Sections are handed out like a dynamic loop over 1..count, one at a time. */
MOCKRT_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                          unsigned count, unsigned flags)
{
  mockrt_gomp_loop_args_t a = {MOCKRT_SCHED_DYNAMIC, 1, (long)count + 1, 1, 1};
  (void)flags;
  mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(), __builtin_return_address(0),
                         mockrt_gomp_preset_sections, &a);
}

/*
 * The GOMP 1.0 ABI: the program calls fn(data) itself between
 * GOMP_parallel_start and GOMP_parallel_end, so the team and the master's
 * task outlive GOMP_parallel_start's frame (one allocation per region, a
 * stack of them per thread).  No runtime frame lies between the program
 * and the body: the exit frame (and the encountering task's enter frame)
 * name the program's frame, flagged as an application frame pointer, as
 * kmpc/fork.c does for serialized regions.
 */
typedef struct mockrt_gomp_old_region {
  mockrt_team_t team;
  mockrt_task_t task;
  struct mockrt_gomp_old_region *outer;
} mockrt_gomp_old_region_t;

static MOCKRT_TLS mockrt_gomp_old_region_t *mockrt_gomp_old_top;

MOCKRT_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  void *cfa = __builtin_dwarf_cfa();
  mockrt_gomp_old_region_t *r = malloc(sizeof *r);
  if (!r)
    abort();
  mockrt_frame_enter(enc, cfa);
  mockrt_fork_ex(&r->team, &r->task, fn, data, num_threads, __builtin_return_address(0), NULL,
                 NULL);
  mockrt_frame_enter_ex(enc, cfa, ompt_frame_application | ompt_frame_framepointer);
  mockrt_frame_exit_ex(&r->task, cfa, ompt_frame_application | ompt_frame_framepointer);
  r->outer = mockrt_gomp_old_top;
  mockrt_gomp_old_top = r;
}

MOCKRT_EXPORT void GOMP_parallel_end(void)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_gomp_old_region_t *r = mockrt_gomp_old_top;
  void *cfa = __builtin_dwarf_cfa();
  if (!r || self->task != &r->task)
    return;
  mockrt_gomp_old_top = r->outer;
  mockrt_task_t *enc = r->team.encountering;
  mockrt_frame_unexit(&r->task);
  mockrt_frame_enter(enc, cfa);
  mockrt_join(&r->team, &r->task);
  mockrt_frame_leave(enc);
  /* Unpublished by the join, and every worker has left: nothing reads it any more. */
  free(r);
}

/*
 * gcc open-codes static loops, master/masked, flush and reductions: the
 * runtime never sees them, so their callbacks are answered sometimes (work,
 * dispatch) or never (masked, reduction, flush).
 */
/* Enter frames are entry points' CFAs (core/mockrt.h). */
const int mockrt_entry_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
/* A detachable task's fulfilment as OpenMP 5.0 reports it (core/task.c). */
const bool mockrt_fulfill_statuses = false;
/* No offloading under the GNU ABI: the mock device speaks clang's __tgt_*
 * alone, so a gcc program's target constructs never reach it. */
#define MOCKRT_GOMP_NO_DEVICE                                                                      \
  (MOCKRT_CB_BIT(ompt_callback_target) | MOCKRT_CB_BIT(ompt_callback_target_data_op) |             \
   MOCKRT_CB_BIT(ompt_callback_target_submit) | MOCKRT_CB_BIT(ompt_callback_target_map) |          \
   MOCKRT_CB_BIT(ompt_callback_device_initialize) | MOCKRT_CB_BIT(ompt_callback_device_finalize) | \
   MOCKRT_CB_BIT(ompt_callback_device_load) | MOCKRT_CB_BIT(ompt_callback_device_unload) |         \
   MOCKRT_CB_BIT(ompt_callback_target_emi) | MOCKRT_CB_BIT(ompt_callback_target_data_op_emi) |     \
   MOCKRT_CB_BIT(ompt_callback_target_submit_emi) | MOCKRT_CB_BIT(ompt_callback_target_map_emi))
const uint64_t mockrt_abi_sometimes =
    MOCKRT_CB_BIT(ompt_callback_work) | MOCKRT_CB_BIT(ompt_callback_dispatch);
const uint64_t mockrt_abi_never = MOCKRT_CB_BIT(ompt_callback_masked) |
                                  MOCKRT_CB_BIT(ompt_callback_reduction) |
                                  MOCKRT_CB_BIT(ompt_callback_flush) | MOCKRT_GOMP_NO_DEVICE;

/* What ompt_start_tool is told about the runtime. */
const char *mockrt_runtime_version = "knit mockrt 0.1 (gomp personality, libgomp.so.1 ABI)";
