/* The OMPT checker's start and end: discovery (ompt_start_tool),
 * initialize, and at finalize the checks that need the whole run, then the
 * report (PASS, or each violated promise with its evidence). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompt_checker_state.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- start, finalize, report ---- */

/* Callbacks the test programs exercise for certain: 'always' must bring events. */
static const ompt_callbacks_t exercised[] = {
  ompt_callback_thread_begin,    ompt_callback_parallel_begin,   ompt_callback_parallel_end,
  ompt_callback_implicit_task,   ompt_callback_sync_region,      ompt_callback_sync_region_wait,
  ompt_callback_mutex_acquire,   ompt_callback_mutex_acquired,   ompt_callback_mutex_released,
  ompt_callback_lock_init,       ompt_callback_lock_destroy,     ompt_callback_work,
  ompt_callback_masked,
};

static int compare_ids(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void final_checks_locked(void)
{
  if (checker_n_initialize != 1)
    checker_violate("initialize_once", "initialize was called %d times", checker_n_initialize);
  if (checker_n_finalize != 1)
    checker_violate("finalize_once", "finalize was called %d times", checker_n_finalize);
  for (int i = 0; i < checker_n_threads; i++) {
    thread_rec_t *t = &checker_threads[i];
    if (t->npar > 0)
      checker_violate("parallel_begin_end_paired", "thread #%d: %d parallel regions never "
                     "ended (region %llu first)", t->index, t->npar,
                     (unsigned long long)t->par[0].key);
    /* libomp 14 gives a cancelled dynamic loop no work end on the cancelling thread. */
    if (t->nwork > 0 && checker_strict)
      checker_violate("work_begin_end_paired", "thread #%d: %d worksharing constructs never "
                     "ended (type %d first)", t->index, t->nwork, t->work[0]);
    if (t->nmasked > 0)
      checker_violate("masked_paired", "thread #%d: %d masked regions never ended", t->index,
                     t->nmasked);
    /* libomp 14 may end a worker's last implicit task after finalize. */
    if (t->nimp > 0 && checker_strict)
      checker_violate("implicit_task_paired", "thread #%d: %d implicit tasks never ended "
                     "(task_data %p first)", t->index, t->nimp, (void *)t->imp[0].td);
  }
  for (uint64_t k = 0; k < checker_n_regions && k < MAX_REGIONS; k++) {
    region_rec_t *r = &checker_regions[k];
    if (r->begins != r->actual)
      checker_violate("implicit_task_count", "region %llu: %u implicit tasks began in a team "
                     "of %u", (unsigned long long)k + 1, r->begins, r->actual);
  }
  checker_task_final_checks_locked();
  qsort(checker_ids, checker_n_ids, sizeof checker_ids[0], compare_ids);
  for (size_t i = 1; i < checker_n_ids; i++) {
    if (checker_ids[i] == checker_ids[i - 1]) {
      checker_violate("unique_ids", "ompt_get_unique_id returned %llu more than once (of %zu "
                     "ids)", (unsigned long long)checker_ids[i], checker_n_ids);
      break;
    }
  }
  for (size_t i = 0; i < sizeof exercised / sizeof exercised[0]; i++) {
    ompt_callbacks_t c = exercised[i];
    if (checker_set_answer[c] == ompt_set_always && checker_events[c] == 0)
      checker_violate("set_callback_always", "set_callback answered always for callback %d, "
                     "which the program exercises, and no event came", (int)c);
  }
}

static void report_and_exit_locked(void)
{
  final_checks_locked();
  if (!checker_strict)
    fprintf(stderr, "ompt_checker: runtime '%s' is not the mock: not checked on this "
            "runtime (LLVM libomp 14 deviations): enter_frame_flags at parallel_begin, "
            "enter_frame_in_barrier for implicit barriers, barrier_wait_state, lock_wait_state, "
            "the address (not the value) in parallel_data_same and implicit_task_paired, "
            "implicit_task_nested, implicit_task_paired at finalize, finalize_called before "
            "destructors, work_begin_end_paired at finalize (cancelled loops); for explicit tasks: task_create_enter_frame, the resumed task in "
            "task_schedule_next, tasks scheduled without task_create, "
            "task_info_parent (libomp answers the scheduling parent), enter_frame_clear_in_task, "
            "get_task_info in if(0) task bodies\n", checker_runtime_version);
  for (int i = 0; i < checker_n_violations; i++)
    fprintf(stderr, "ompt_checker: VIOLATED %s (%d times): %s\n", checker_violations[i].promise,
            checker_violations[i].count, checker_violations[i].evidence);
  if (checker_n_violations == 0) {
    fprintf(stderr, "ompt_checker: PASS (%d threads, %llu regions, %zu ids)\n", checker_n_threads,
            (unsigned long long)checker_n_regions, checker_n_ids);
    return;
  }
  /* finalize may run inside exit (atexit or a destructor): leave at once. */
  fflush(NULL);
  _exit(1);
}

static void tool_finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
  pthread_mutex_lock(&checker_mu);
  checker_n_finalize++;
  bool first = checker_n_finalize == 1;
  if (first)
    report_and_exit_locked();
  else
    checker_violate("finalize_once", "finalize was called %d times", checker_n_finalize);
  pthread_mutex_unlock(&checker_mu);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device,
                           ompt_data_t *tool_data)
{
  (void)initial_device;
  (void)tool_data;
  pthread_mutex_lock(&checker_mu);
  checker_n_initialize++;
  bool again = checker_n_initialize > 1;
  pthread_mutex_unlock(&checker_mu);
  if (again)
    return 1;                     /* counted; registering twice would change nothing */
  checker_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  checker_get_state = (ompt_get_state_t)lookup("ompt_get_state");
  checker_get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  checker_get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  checker_get_unique_id = (ompt_get_unique_id_t)lookup("ompt_get_unique_id");
  if (!checker_set_callback || !checker_get_state || !checker_get_task_info || !checker_get_parallel_info || !checker_get_unique_id) {
    fprintf(stderr, "ompt_checker: VIOLATED entry_points: the runtime lacks a mandatory "
            "entry point\n");
    _exit(1);
  }
  checker_register_callbacks();
  return 1;
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *version)
{
  static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
  (void)omp_version;
  snprintf(checker_runtime_version, sizeof checker_runtime_version, "%s", version ? version : "?");
  checker_strict = version && strstr(version, "mockrt") != NULL;
  return &result;
}

/*
 * On the mock, finalize comes from an atexit handler, before any library
 * destructor; a destructor that finds no finalize has caught a missing one.
 * libomp 14 finalizes after destructors, so there it cannot be checked here.
 */
__attribute__((destructor)) static void check_finalize_called(void)
{
  pthread_mutex_lock(&checker_mu);
  bool missing = checker_strict && checker_n_initialize > 0 && checker_n_finalize == 0;
  pthread_mutex_unlock(&checker_mu);
  if (missing) {
    fprintf(stderr, "ompt_checker: VIOLATED finalize_called: the runtime never called the "
            "tool's finalize\n");
    fflush(NULL);
    _exit(1);
  }
}
