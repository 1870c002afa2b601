/*
 * GOMP parallel entry points: plain, combined with a loop, combined with
 * sections.  Each is a thin shell around mockrt_gomp_run_region so that
 * __builtin_dwarf_cfa() and __builtin_return_address(0) are its own.
 */
#include "gomp.h"

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
  mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),
                         __builtin_return_address(0), NULL, NULL);
}

/* The combined forms start every thread inside slot 0's loop. */
#define MOCKRT_GOMP_PARALLEL_LOOP(name, kind)                                                   \
  MOCKRT_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,   \
                          long end, long incr, long chunk, unsigned flags)                     \
  {                                                                                           \
    mockrt_gomp_loop_args_t a = { kind, start, end, incr, chunk };                            \
    (void)flags;                                                                              \
    mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),                      \
                           __builtin_return_address(0), mockrt_gomp_preset_loop, &a);         \
  }

MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_dynamic, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, MOCKRT_SCHED_DYNAMIC)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_guided, MOCKRT_SCHED_GUIDED)
MOCKRT_GOMP_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, MOCKRT_SCHED_GUIDED)

/* schedule(runtime) takes its kind and chunk from OMP_SCHEDULE. */
#define MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(name)                                                \
  MOCKRT_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,   \
                          long end, long incr, unsigned flags)                                 \
  {                                                                                           \
    mockrt_gomp_loop_args_t a = { mockrt_icv.run_sched, start, end, incr,                     \
                                  mockrt_icv.run_chunk };                                     \
    (void)flags;                                                                              \
    mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),                      \
                           __builtin_return_address(0), mockrt_gomp_preset_loop, &a);         \
  }

MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
MOCKRT_GOMP_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* Sections are handed out like a dynamic loop over 1..count, one at a time. */
MOCKRT_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                          unsigned count, unsigned flags)
{
  mockrt_gomp_loop_args_t a = { MOCKRT_SCHED_DYNAMIC, 1, (long)count + 1, 1, 1 };
  (void)flags;
  mockrt_gomp_run_region(fn, data, num_threads, __builtin_dwarf_cfa(),
                         __builtin_return_address(0), mockrt_gomp_preset_loop, &a);
}

/* What ompt_start_tool is told about the runtime. */
const char *mockrt_runtime_version = "knit mockrt 0.1 (gomp personality, libgomp.so.1 ABI)";
