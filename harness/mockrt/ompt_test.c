/*
 * An OMPT tool and an OpenMP program in one executable, run on the mock GNU
 * runtime.  The tool records events and checks them, and the program asks
 * the inquiry functions from inside regions, barriers and lock waits.
 *
 * Usage: ompt_test            (a tool must be found and initialized)
 *        ompt_test --disabled (OMP_TOOL=disabled: initialize must not run)
 * Exit status 0 means pass; a destructor fails the run if finalize never came.
 */
#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NT 4

static int expect_disabled;
static int initialized, finalized;

static ompt_set_callback_t set_callback;
static ompt_get_state_t get_state;
static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_thread_data_t get_thread_data;
static ompt_get_unique_id_t get_unique_id;
static ompt_enumerate_states_t enumerate_states;
static ompt_get_num_procs_t get_num_procs;

/* Event counts. */
static int n_thread_begin_initial, n_thread_begin_worker, n_thread_end;
static int n_parallel_begin, n_parallel_end;
static int n_implicit_begin, n_implicit_end, n_initial_task_begin;
static int n_barrier_waits, n_mutex_acquire, n_mutex_acquired, n_mutex_released;
static int n_lock_waits_checked;

static __thread ompt_data_t *my_thread_data;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
  CHECK(data->value == 0);
  data->value = get_unique_id();
  my_thread_data = data;
  CHECK(get_thread_data() == data);
  if (type == ompt_thread_initial)
    __atomic_add_fetch(&n_thread_begin_initial, 1, __ATOMIC_RELAXED);
  else if (type == ompt_thread_worker)
    __atomic_add_fetch(&n_thread_begin_worker, 1, __ATOMIC_RELAXED);
  else
    CHECK(!"unexpected thread type");
}

static void on_thread_end(ompt_data_t *data)
{
  CHECK(data == my_thread_data && data->value != 0);
  __atomic_add_fetch(&n_thread_end, 1, __ATOMIC_RELAXED);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *codeptr)
{
  CHECK(task != NULL && frame != NULL && par != NULL && codeptr != NULL);
  CHECK(par->value == 0);
  CHECK(get_num_procs() >= 1);
  /* The encountering task is inside GOMP_parallel: its enter frame is set. */
  CHECK(frame->enter_frame.ptr != NULL);
  CHECK(frame->enter_frame_flags == (ompt_frame_runtime | ompt_frame_cfa));
  CHECK(requested >= 1);
  CHECK(flags == (int)(ompt_parallel_invoker_program | ompt_parallel_team));
  par->value = get_unique_id();
  __atomic_add_fetch(&n_parallel_begin, 1, __ATOMIC_RELAXED);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *codeptr)
{
  CHECK(par->value != 0 && task != NULL && codeptr != NULL);
  CHECK(flags == (int)(ompt_parallel_invoker_program | ompt_parallel_team));
  par->value = 0; /* a later region at the same address must start from 0 */
  __atomic_add_fetch(&n_parallel_end, 1, __ATOMIC_RELAXED);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned team_size, unsigned index, int flags)
{
  if (flags & ompt_task_initial) {
    if (ep == ompt_scope_begin)
      __atomic_add_fetch(&n_initial_task_begin, 1, __ATOMIC_RELAXED);
    return;
  }
  CHECK(flags & ompt_task_implicit);
  if (ep == ompt_scope_begin) {
    CHECK(index < team_size);
    CHECK(par != NULL && par->value != 0);
    CHECK(task->value == 0);
    task->value = par->value * 1000 + index;
    /* The new task is already the current one when its begin event comes. */
    ompt_data_t *td = NULL;
    int tnum = -1;
    CHECK(get_task_info(0, NULL, &td, NULL, NULL, &tnum) == 2);
    CHECK(td == task && tnum == (int)index);
    __atomic_add_fetch(&n_implicit_begin, 1, __ATOMIC_RELAXED);
  } else {
    /* As libomp 14: the end names no region (the team may be gone), and
     * only the primary thread's gives the team's size. */
    CHECK(par == NULL);
    CHECK(index == 0 ? team_size >= 1 : team_size == 0);
    CHECK(task->value % 1000 == index && task->value >= 1000);
    __atomic_add_fetch(&n_implicit_end, 1, __ATOMIC_RELAXED);
  }
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                                ompt_data_t *task, const void *codeptr)
{
  (void)par;
  (void)task;
  (void)codeptr;
  ompt_wait_id_t id = 0;
  int state = get_state(&id);
  /* The wait state and its id are in place from after the begin events
   * until after the end events (libomp 14's order). */
  if (ep == ompt_scope_end) {
    if (kind == ompt_sync_region_barrier_explicit)
      CHECK(state == ompt_state_wait_barrier_explicit);
    else
      CHECK(state == ompt_state_wait_barrier_implicit);
    CHECK(id != 0);
    return;
  }
  /* A barrier the program called is inside a runtime call; a join barrier,
   * after the body returned, has no enter frame (libomp 14). */
  ompt_frame_t *f = NULL;
  CHECK(get_task_info(0, NULL, NULL, &f, NULL, NULL) == 2);
  if (kind == ompt_sync_region_barrier_explicit)
    CHECK(f && f->enter_frame.ptr != NULL);
  __atomic_add_fetch(&n_barrier_waits, 1, __ATOMIC_RELAXED);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id,
                             const void *codeptr)
{
  (void)hint;
  (void)impl;
  CHECK(codeptr != NULL && id != 0);
  ompt_wait_id_t wid = 0;
  int state = get_state(&wid);
  if (kind == ompt_mutex_lock) {
    CHECK(state == ompt_state_wait_lock);
    CHECK(wid == id);
    __atomic_add_fetch(&n_lock_waits_checked, 1, __ATOMIC_RELAXED);
  } else if (kind == ompt_mutex_critical) {
    CHECK(state == ompt_state_wait_critical && wid == id);
  }
  __atomic_add_fetch(&n_mutex_acquire, 1, __ATOMIC_RELAXED);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void *codeptr)
{
  (void)kind;
  CHECK(id != 0 && codeptr != NULL);
  __atomic_add_fetch(&n_mutex_acquired, 1, __ATOMIC_RELAXED);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void *codeptr)
{
  (void)kind;
  CHECK(id != 0 && codeptr != NULL);
  __atomic_add_fetch(&n_mutex_released, 1, __ATOMIC_RELAXED);
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
  CHECK(device == 0);
  tool_data->value = 42;
  initialized = 1;
  set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_state = (ompt_get_state_t)lookup("ompt_get_state");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  get_unique_id = (ompt_get_unique_id_t)lookup("ompt_get_unique_id");
  enumerate_states = (ompt_enumerate_states_t)lookup("ompt_enumerate_states");
  get_num_procs = (ompt_get_num_procs_t)lookup("ompt_get_num_procs");
  CHECK(set_callback && get_state && get_task_info && get_parallel_info && get_thread_data &&
        get_unique_id && enumerate_states && get_num_procs);
  CHECK(lookup("ompt_get_callback") != NULL && lookup("ompt_finalize_tool") != NULL);
  CHECK(lookup("no_such_entry_point") == NULL);
  if (failures)
    return 0;

#define REG(ev, fn) set_callback(ev, (ompt_callback_t)(fn))
  CHECK(REG(ompt_callback_thread_begin, on_thread_begin) == ompt_set_always);
  CHECK(REG(ompt_callback_thread_end, on_thread_end) == ompt_set_always);
  CHECK(REG(ompt_callback_parallel_begin, on_parallel_begin) == ompt_set_always);
  CHECK(REG(ompt_callback_parallel_end, on_parallel_end) == ompt_set_always);
  CHECK(REG(ompt_callback_implicit_task, on_implicit_task) == ompt_set_always);
  CHECK(REG(ompt_callback_sync_region_wait, on_sync_region_wait) == ompt_set_always);
  CHECK(REG(ompt_callback_mutex_acquire, on_mutex_acquire) == ompt_set_always);
  CHECK(REG(ompt_callback_mutex_acquired, on_mutex_acquired) == ompt_set_always);
  CHECK(REG(ompt_callback_mutex_released, on_mutex_released) == ompt_set_always);
  /* Events this runtime never produces say so. */
  CHECK(REG(ompt_callback_target, on_mutex_released) == ompt_set_never);
  CHECK(REG(ompt_callback_device_initialize, on_mutex_released) == ompt_set_never);
  CHECK(set_callback((ompt_callbacks_t)9999, NULL) == ompt_set_error);

  /* The state enumeration starts at undefined and includes work_serial. */
  int st = ompt_state_undefined, seen_serial = 0, n = 0;
  const char *name;
  while (enumerate_states(st, &st, &name) && n++ < 100)
    seen_serial |= st == ompt_state_work_serial && strcmp(name, "ompt_state_work_serial") == 0;
  CHECK(seen_serial);
  /* As libomp 14: the processors are counted after initialize returns. */
  CHECK(get_num_procs() == 0);
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
  CHECK(tool_data->value == 42);
  finalized = 1;
  CHECK(n_thread_begin_initial == 1);
  CHECK(n_thread_begin_worker == NT - 1);
  CHECK(n_thread_end == NT); /* workers at exit, then the initial thread */
  CHECK(n_initial_task_begin == 1);
  CHECK(n_parallel_begin == n_parallel_end && n_parallel_begin > 0);
  CHECK(n_implicit_begin == n_implicit_end);
  CHECK(n_barrier_waits > 0);
  CHECK(n_mutex_acquire == n_mutex_acquired && n_mutex_acquired == n_mutex_released);
  CHECK(n_lock_waits_checked > 0);
  if (failures) {
    fprintf(stderr, "ompt_test: %d failure(s)\n", failures);
    _exit(1);
  }
  printf("ompt_test: tool checks passed (%d regions)\n", n_parallel_begin);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  CHECK(omp_version >= 201611);
  CHECK(runtime_version != NULL);
  return &result;
}

/* Runs after the runtime's atexit handler: finalize must have come by now. */
__attribute__((destructor)) static void check_finalized(void)
{
  if (!expect_disabled && !finalized) {
    fprintf(stderr, "ompt_test: finalize was never called\n");
    _exit(3);
  }
}

/* ---- the program ---- */

static void check_body(int expected_team)
{
  int local = 0;
  int flags = 0, tnum = -1, size = 0;
  ompt_frame_t *f0 = NULL, *f1 = NULL;
  ompt_data_t *p0 = NULL, *p1 = NULL, *pp = NULL;

  CHECK(get_state(NULL) == ompt_state_work_parallel);
  CHECK(get_task_info(0, &flags, NULL, &f0, &p0, &tnum) == 2);
  CHECK(flags & ompt_task_implicit);
  CHECK(tnum == omp_get_thread_num());
  /* The exit frame is in the runtime frame that called us: above our locals. */
  CHECK(f0->exit_frame.ptr != NULL && (char *)f0->exit_frame.ptr > (char *)&local);
  CHECK(f0->exit_frame_flags == (ompt_frame_runtime | ompt_frame_cfa));
  CHECK(f0->enter_frame.ptr == NULL);
  /* Level 1 is the initial task, inside GOMP_parallel while the region runs. */
  CHECK(get_task_info(1, &flags, NULL, &f1, &p1, NULL) == 2);
  CHECK(flags & ompt_task_initial);
  CHECK(f1->exit_frame.ptr == NULL);
  CHECK(f1->enter_frame.ptr != NULL);
  /* On the master both are GOMP_parallel's CFA: one runtime frame between them. */
  if (omp_get_thread_num() == 0)
    CHECK(f1->enter_frame.ptr == f0->exit_frame.ptr);
  CHECK(get_task_info(2, NULL, NULL, NULL, NULL, NULL) == 0);
  CHECK(get_parallel_info(0, &pp, &size) == 2);
  CHECK(pp == p0 && pp->value != 0 && size == expected_team);
  CHECK(get_parallel_info(1, &pp, &size) == 2 && pp == p1 && size == 1);
  CHECK(get_thread_data() != NULL && get_thread_data()->value != 0);
  local++;
}

int main(int argc, char **argv)
{
  expect_disabled = argc > 1 && strcmp(argv[1], "--disabled") == 0;
  omp_set_num_threads(NT);
  if (expect_disabled) {
    int n = 0;
#pragma omp parallel num_threads(NT)
    __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
    CHECK(n == NT);
    CHECK(!initialized);
    return failures ? 1 : 0;
  }
  CHECK(initialized);
  if (!initialized)
    return 1;

  /* Outside any region: the initial task, serial state. */
  int flags = 0, size = 0;
  ompt_frame_t *f = NULL;
  CHECK(get_state(NULL) == ompt_state_work_serial);
  CHECK(get_task_info(0, &flags, NULL, &f, NULL, NULL) == 2);
  CHECK(flags & ompt_task_initial && f->exit_frame.ptr == NULL && f->enter_frame.ptr == NULL);
  CHECK(get_task_info(1, NULL, NULL, NULL, NULL, NULL) == 0);
  CHECK(get_parallel_info(0, NULL, &size) == 2 && size == 1);
  CHECK(get_unique_id() != get_unique_id());

  /* One counter per kind of exclusion: a lock and a critical section do
   * not exclude each other, nor either of them an atomic add. */
  omp_lock_t lock;
  long under_lock = 0, under_critical = 0, atomically = 0;
  omp_init_lock(&lock);
  for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(NT)
    {
      check_body(NT);
#pragma omp barrier
      omp_set_lock(&lock);
      under_lock++;
      omp_unset_lock(&lock);
#pragma omp critical
      under_critical++;
#pragma omp for schedule(dynamic)
      for (int i = 0; i < 100; i++)
        __atomic_add_fetch(&atomically, 1, __ATOMIC_RELAXED);
    }
  }
  omp_destroy_lock(&lock);
  CHECK(under_lock == 20 * NT && under_critical == 20 * NT && atomically == 20 * 100);
  CHECK(n_parallel_begin == 20 && n_parallel_end == 20);
  CHECK(n_implicit_begin == 20 * NT && n_implicit_end == 20 * NT);
  CHECK(n_thread_begin_worker == NT - 1);

  /* A nested region runs on a team of one, with levels and frames intact. */
  int nested_ok = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      ompt_frame_t *a = NULL, *b = NULL, *c = NULL;
      int fl = 0, n2 = 0;
      if (get_task_info(0, &fl, NULL, &a, NULL, NULL) == 2 && (fl & ompt_task_implicit) &&
          get_task_info(1, &fl, NULL, &b, NULL, NULL) == 2 && (fl & ompt_task_implicit) &&
          get_task_info(2, &fl, NULL, &c, NULL, NULL) == 2 && (fl & ompt_task_initial) &&
          get_parallel_info(0, NULL, &n2) == 2 && n2 == omp_get_num_threads() &&
          a->exit_frame.ptr && b->enter_frame.ptr && b->exit_frame.ptr && c->enter_frame.ptr &&
          a->exit_frame.ptr == b->enter_frame.ptr &&
          (char *)b->enter_frame.ptr < (char *)b->exit_frame.ptr)
        __atomic_add_fetch(&nested_ok, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(nested_ok == 2);
  CHECK(get_state(NULL) == ompt_state_work_serial);
  return failures ? 1 : 0;
}
