/* The OMPT checker's start and end: discovery (ompt_start_tool),
 * initialize, and at finalize the checks that need the whole run, then the
 * verdicts (checker_results.c): PASS, or each failed check with its
 * evidence and exit status 1. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

/* omp_version is the implementation's _OPENMP, a yyyymm date: OpenMP 3.1
 * (201107) at least, and a month that exists.  libomp 14 gives 201611
 * (4.5) with OMPT 5.0, which the specification allows. */
static bool plausible_omp_version(unsigned v)
{
  return v >= 201107u && v <= 209912u && v % 100 >= 1 && v % 100 <= 12;
}

static void report_and_exit_locked(void)
{
  EXPECT(CHK_INITIALIZE_ONCE, checker_n_initialize == 1, "initialize was called %d times",
         checker_n_initialize);
  EXPECT(CHK_FINALIZE_ONCE, checker_n_finalize == 1, "finalize was called %d times",
         checker_n_finalize);
  checker_held(CHK_FINALIZE_CALLED);
  checker_ends_before_finalize_locked();
  checker_thread_final_checks_locked();
  checker_task_final_checks_locked();
  checker_sync_final_checks_locked();
  checker_target_final_checks_locked();
  int failures = checker_write_results_locked();
  if (failures == 0) {
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
  if (checker_n_finalize == 1)
    report_and_exit_locked();
  else
    checker_violate(CHK_FINALIZE_ONCE, "finalize was called %d times", checker_n_finalize);
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
    return 1; /* counted; registering twice would change nothing */
  checker_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  checker_get_state = (ompt_get_state_t)lookup("ompt_get_state");
  checker_get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  checker_get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  checker_get_unique_id = (ompt_get_unique_id_t)lookup("ompt_get_unique_id");
  checker_get_task_memory = (ompt_get_task_memory_t)lookup("ompt_get_task_memory");
  checker_get_target_info = (ompt_get_target_info_t)lookup("ompt_get_target_info");
  if (!checker_set_callback || !checker_get_state || !checker_get_task_info ||
      !checker_get_parallel_info || !checker_get_unique_id) {
    pthread_mutex_lock(&checker_mu);
    checker_violate(CHK_ENTRY_POINTS,
                    "lookup found set_callback %p get_state %p get_task_info "
                    "%p get_parallel_info %p get_unique_id %p",
                    (void *)checker_set_callback, (void *)checker_get_state,
                    (void *)checker_get_task_info, (void *)checker_get_parallel_info,
                    (void *)checker_get_unique_id);
    checker_write_results_locked();
    pthread_mutex_unlock(&checker_mu);
    fflush(NULL);
    _exit(1);
  }
  checker_held(CHK_ENTRY_POINTS);
  /* The inquiry functions live in the runtime: their module is the runtime's. */
  checker_note_runtime_module((const void *)checker_get_state);
  checker_sample_install();
  checker_register_thread_callbacks();
  checker_register_sync_callbacks();
  checker_register_work_callbacks();
  checker_register_task_callbacks();
  checker_register_other_callbacks();
  checker_register_target_callbacks();
  return 1;
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  pthread_mutex_lock(&checker_mu);
  checker_started = true;
  checker_omp_version = omp_version;
  snprintf(checker_runtime_version, sizeof checker_runtime_version, "%s", version ? version : "?");
  checker_strict = version && strstr(version, "mockrt") != NULL;
  EXPECT(CHK_START_TOOL_VERSION, plausible_omp_version(omp_version) && version && *version,
         "ompt_start_tool(%u, \"%s\")", omp_version, version ? version : "(null)");
  pthread_mutex_unlock(&checker_mu);
  return &result;
}

/*
 * On the mock, finalize comes from an atexit handler, before any library
 * destructor; a destructor that finds no finalize has caught a missing one.
 * libomp 14 finalizes after destructors, so there it is left to finalize
 * (and to `knit conform`, which finds no verdicts if it never comes).  A
 * runtime that never called ompt_start_tool has no OMPT: the verdicts say so.
 */
__attribute__((destructor)) static void check_finalize_called(void)
{
  pthread_mutex_lock(&checker_mu);
  if (!checker_started) {
    checker_write_results_locked();
    fprintf(stderr, "ompt_checker: NO OMPT: the runtime never called ompt_start_tool\n");
  } else if (checker_strict && checker_n_initialize > 0 && checker_n_finalize == 0) {
    checker_violate(CHK_FINALIZE_CALLED, "the runtime never called the tool's finalize");
    checker_thread_final_checks_locked();
    checker_task_final_checks_locked();
    checker_sync_final_checks_locked();
    checker_target_final_checks_locked();
    checker_write_results_locked();
    fflush(NULL);
    _exit(1);
  }
  pthread_mutex_unlock(&checker_mu);
}
