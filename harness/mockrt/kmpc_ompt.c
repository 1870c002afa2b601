/*
 * An OMPT tool and a clang-built OpenMP program in one executable, for the
 * __kmpc_* runtimes: the mock Intel personality and LLVM's libomp.  The
 * tool records events and checks them; the program asks the inquiry
 * functions from inside regions, barriers and lock waits.
 *
 * What only the mock promises (it says "mockrt" in its runtime version):
 * the shepherd thread (thread_begin with ompt_thread_other, exactly one,
 * never in a task or a team), CFA-flagged frames, and an exit frame that is
 * the frame pointer of the trampoline, the frame right above the outlined
 * body; the shepherd begins before the program's first construct.
 * STRICT checks hold for the mock only, where LLVM libomp 14 is known to
 * differ: it reports frame flags 0 at parallel_begin, sets a wait state only
 * after the mutex_acquire and sync_region_wait callbacks, passes no codeptr
 * to some mutex_released and serialized parallel_end events, ends a
 * worker's implicit task only at its next barrier, and finalizes the tool
 * after the program's destructors.  Everything else is checked on both
 * runtimes, which proves the checks.
 *
 * Usage: kmpc_ompt            (a tool must be found and initialized)
 *        kmpc_ompt --disabled (OMP_TOOL=disabled: initialize must not run)
 * Exit status 0 means pass; on the mock, a destructor fails the run if finalize
 * never came.
 */
#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NT 4

static int expect_disabled;
static int initialized, finalized;
static int is_mock;

static ompt_set_callback_t set_callback;
static ompt_get_state_t get_state;
static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_thread_data_t get_thread_data;
static ompt_get_unique_id_t get_unique_id;

static int n_thread_begin_initial, n_thread_begin_worker, n_thread_begin_other, n_thread_end;
static int n_parallel_begin, n_parallel_end;
static int n_implicit_begin, n_implicit_end;
static int n_barrier_waits, n_explicit_barrier_waits;
static int n_mutex_acquire, n_mutex_acquired, n_mutex_released, n_lock_waits_checked;
static int n_other_thread_end;

/* The thread's type as its thread_begin said; the shepherd must never see a task. */
static __thread int my_thread_type;
static __thread ompt_data_t *my_thread_data;

#define STRICT(cond)                                                                               \
  do {                                                                                             \
    if (is_mock)                                                                                   \
      CHECK(cond);                                                                                 \
  } while (0)

#define NOT_ON_SHEPHERD() CHECK(my_thread_type != ompt_thread_other)

/* The mock's runtime frames are named by their CFA, but for the frame of
 * the trampoline that calls an outlined body, which is named by its frame
 * pointer, as libomp's __kmp_invoke_microtask names its own. */
/* Runtime frames as libomp 14 writes them: the entry point's or the
 * trampoline's frame address (its enter frame at a fork keeps flags 0
 * there, a departure the mocks do not copy). */
static int frame_flags_ok(int flags)
{
  return flags == (ompt_frame_runtime | ompt_frame_framepointer);
}

static int exit_frame_flags_ok(int flags)
{
  return flags == (ompt_frame_runtime | ompt_frame_framepointer);
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
  CHECK(data->value == 0);
  data->value = get_unique_id();
  my_thread_data = data;
  my_thread_type = type;
  CHECK(get_thread_data() == data);
  if (type == ompt_thread_initial) {
    __atomic_add_fetch(&n_thread_begin_initial, 1, __ATOMIC_RELAXED);
  } else if (type == ompt_thread_worker) {
    __atomic_add_fetch(&n_thread_begin_worker, 1, __ATOMIC_RELAXED);
  } else if (type == ompt_thread_other) {
    /* A helper thread has no task and is in no team, from its first event. */
    CHECK(get_task_info(0, NULL, NULL, NULL, NULL, NULL) == 0);
    CHECK(get_parallel_info(0, NULL, NULL) == 0);
    __atomic_add_fetch(&n_thread_begin_other, 1, __ATOMIC_RELAXED);
  } else {
    CHECK(!"unexpected thread type");
  }
}

static void on_thread_end(ompt_data_t *data)
{
  CHECK(data == my_thread_data && data->value != 0);
  if (my_thread_type == ompt_thread_other) {
    CHECK(get_task_info(0, NULL, NULL, NULL, NULL, NULL) == 0);
    __atomic_add_fetch(&n_other_thread_end, 1, __ATOMIC_RELAXED);
  }
  __atomic_add_fetch(&n_thread_end, 1, __ATOMIC_RELAXED);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *codeptr)
{
  NOT_ON_SHEPHERD();
  CHECK(task != NULL && frame != NULL && par != NULL && codeptr != NULL);
  CHECK(par->value == 0);
  /* The encountering task is inside __kmpc_fork_call: its enter frame is set. */
  CHECK(frame->enter_frame.ptr != NULL);
  STRICT(frame_flags_ok(frame->enter_frame_flags));
  CHECK(requested >= 1);
  CHECK(flags & ompt_parallel_team);
  /* The shepherd exists from the runtime's start: announced before any
   * construct's event, not somewhere among them. */
  STRICT(__atomic_load_n(&n_thread_begin_other, __ATOMIC_RELAXED) == 1);
  par->value = get_unique_id();
  __atomic_add_fetch(&n_parallel_begin, 1, __ATOMIC_RELAXED);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *codeptr)
{
  NOT_ON_SHEPHERD();
  CHECK(par->value != 0 && task != NULL);
  /* A region the program serialized (if(0)) ends with no code address, as
   * on libomp 14: __kmpc_end_serialized_parallel passes none. */
  STRICT(codeptr != NULL || (flags & ompt_parallel_invoker_program));
  CHECK(flags & ompt_parallel_team);
  par->value = 0;
  __atomic_add_fetch(&n_parallel_end, 1, __ATOMIC_RELAXED);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned team_size, unsigned index, int flags)
{
  NOT_ON_SHEPHERD();
  if (flags & ompt_task_initial)
    return;
  CHECK(flags & ompt_task_implicit);
  if (ep == ompt_scope_begin) {
    CHECK(index < team_size);
    CHECK(par != NULL && par->value != 0);
    task->value = par->value * 1000 + index;
    __atomic_add_fetch(&n_implicit_begin, 1, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&n_implicit_end, 1, __ATOMIC_RELAXED);
  }
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                                ompt_data_t *task, const void *codeptr)
{
  (void)par;
  (void)task;
  (void)codeptr;
  NOT_ON_SHEPHERD();
  int state = get_state(NULL);
  /* The wait state is in place from after the begin events (libomp 14's
   * order) until after the end events. */
  if (ep == ompt_scope_end) {
    if (kind == ompt_sync_region_barrier_explicit)
      STRICT(state == ompt_state_wait_barrier_explicit);
    else if (kind == ompt_sync_region_barrier_implicit ||
             kind == ompt_sync_region_barrier_implicit_workshare ||
             kind == ompt_sync_region_barrier_implicit_parallel)
      STRICT(state == ompt_state_wait_barrier_implicit ||
             state == ompt_state_wait_barrier_implicit_workshare ||
             state == ompt_state_wait_barrier_implicit_parallel ||
             state == ompt_state_wait_barrier);
    return;
  }
  if (kind == ompt_sync_region_barrier_explicit)
    __atomic_add_fetch(&n_explicit_barrier_waits, 1, __ATOMIC_RELAXED);
  /* A barrier the program called is inside a runtime call; a join barrier,
   * after the body returned, has no enter frame (libomp 14). */
  ompt_frame_t *f = NULL;
  if (kind == ompt_sync_region_barrier_explicit &&
      get_task_info(0, NULL, NULL, &f, NULL, NULL) == 2 && is_mock)
    CHECK(f && f->enter_frame.ptr != NULL);
  __atomic_add_fetch(&n_barrier_waits, 1, __ATOMIC_RELAXED);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id,
                             const void *codeptr)
{
  (void)hint;
  (void)impl;
  NOT_ON_SHEPHERD();
  CHECK(codeptr != NULL && id != 0);
  ompt_wait_id_t wid = 0;
  int state = get_state(&wid);
  if (kind == ompt_mutex_lock) {
    STRICT(state == ompt_state_wait_lock);
    STRICT(wid == id);
    __atomic_add_fetch(&n_lock_waits_checked, 1, __ATOMIC_RELAXED);
  } else if (kind == ompt_mutex_critical) {
    STRICT(state == ompt_state_wait_critical && wid == id);
  }
  __atomic_add_fetch(&n_mutex_acquire, 1, __ATOMIC_RELAXED);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void *codeptr)
{
  (void)kind;
  NOT_ON_SHEPHERD();
  CHECK(id != 0 && codeptr != NULL);
  __atomic_add_fetch(&n_mutex_acquired, 1, __ATOMIC_RELAXED);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void *codeptr)
{
  NOT_ON_SHEPHERD();
  CHECK(id != 0);
  /* A critical section's release names its call on the initial thread
   * only (libomp 14 reads the address kept for thread 0). */
  STRICT(codeptr != NULL || kind == ompt_mutex_critical);
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
  CHECK(set_callback && get_state && get_task_info && get_parallel_info && get_thread_data &&
        get_unique_id);
  if (failures)
    return 0;

#define REG(ev, fn) set_callback(ev, (ompt_callback_t)(fn))
  CHECK(REG(ompt_callback_thread_begin, on_thread_begin) == ompt_set_always);
  CHECK(REG(ompt_callback_thread_end, on_thread_end) == ompt_set_always);
  CHECK(REG(ompt_callback_parallel_begin, on_parallel_begin) == ompt_set_always);
  CHECK(REG(ompt_callback_parallel_end, on_parallel_end) == ompt_set_always);
  CHECK(REG(ompt_callback_implicit_task, on_implicit_task) == ompt_set_always);
  CHECK(REG(ompt_callback_sync_region_wait, on_sync_region_wait) != ompt_set_error);
  CHECK(REG(ompt_callback_mutex_acquire, on_mutex_acquire) != ompt_set_error);
  CHECK(REG(ompt_callback_mutex_acquired, on_mutex_acquired) != ompt_set_error);
  CHECK(REG(ompt_callback_mutex_released, on_mutex_released) != ompt_set_error);
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
  CHECK(tool_data->value == 42);
  finalized = 1;
  CHECK(n_thread_begin_initial == 1);
  CHECK(n_thread_begin_worker == NT - 1);
  CHECK(n_parallel_begin == n_parallel_end && n_parallel_begin > 0);
  STRICT(n_implicit_begin == n_implicit_end);
  CHECK(n_barrier_waits > 0 && n_explicit_barrier_waits > 0);
  CHECK(n_mutex_acquire == n_mutex_acquired && n_mutex_acquired == n_mutex_released);
  CHECK(n_lock_waits_checked > 0);
  if (is_mock) {
    /* One shepherd, announced once and ended before the tool is finalized. */
    CHECK(n_thread_begin_other == 1);
    CHECK(n_other_thread_end == 1);
    CHECK(n_thread_end == NT + 1);
  } else {
    CHECK(n_thread_begin_other == 0);
  }
  if (failures) {
    fprintf(stderr, "kmpc_ompt: %d failure(s)\n", failures);
    _exit(1);
  }
  printf("kmpc_ompt: tool checks passed (%d regions, %s)\n", n_parallel_begin,
         is_mock ? "mock" : "real runtime");
}

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  CHECK(omp_version >= 201611);
  CHECK(runtime_version != NULL);
  is_mock = runtime_version && strstr(runtime_version, "mockrt") != NULL;
  return &result;
}

__attribute__((destructor)) static void check_finalized(void)
{
  if (!expect_disabled && is_mock && !finalized) {
    fprintf(stderr, "kmpc_ompt: finalize was never called\n");
    _exit(3);
  }
}

/* ---- the program ---- */

/*
 * Called from the outlined body itself with that body's CFA and the
 * address of one of its locals.  The exit frame names the runtime frame
 * that called the body: above both.  On the mock it is the trampoline's
 * frame pointer (its stack pointer on POWER, where the back chain is), at
 * or above the body's CFA by at most the trampoline's frame, which holds
 * no stack arguments for these small regions (at most 128 bytes: ppc64le's
 * frame has a 64-byte parameter save area).
 */
static __attribute__((noinline)) void check_body(void *body_cfa, void *local, int expected_team)
{
  int flags = 0, tnum = -1, size = 0;
  ompt_frame_t *f0 = NULL, *f1 = NULL;
  ompt_data_t *p0 = NULL, *p1 = NULL, *pp = NULL;

  CHECK(my_thread_type == ompt_thread_initial || my_thread_type == ompt_thread_worker);
  CHECK(get_state(NULL) == ompt_state_work_parallel);
  CHECK(get_task_info(0, &flags, NULL, &f0, &p0, &tnum) == 2);
  CHECK(flags & ompt_task_implicit);
  CHECK(tnum == omp_get_thread_num());
  CHECK(f0->exit_frame.ptr != NULL && (char *)f0->exit_frame.ptr > (char *)local);
  CHECK((char *)f0->exit_frame.ptr >= (char *)body_cfa);
  STRICT(exit_frame_flags_ok(f0->exit_frame_flags));
  CHECK(f0->enter_frame.ptr == NULL);
  if (is_mock)
    CHECK((char *)f0->exit_frame.ptr >= (char *)body_cfa &&
          (char *)f0->exit_frame.ptr - (char *)body_cfa <= 128);
  /* Level 1 is the initial task, inside __kmpc_fork_call while the region runs. */
  CHECK(get_task_info(1, &flags, NULL, &f1, &p1, NULL) == 2);
  CHECK(flags & ompt_task_initial);
  CHECK(f1->exit_frame.ptr == NULL);
  CHECK(f1->enter_frame.ptr != NULL);
  /* On the master, runtime frames lie between the two: fork call, run, trampoline. */
  if (omp_get_thread_num() == 0)
    CHECK((char *)f1->enter_frame.ptr > (char *)f0->exit_frame.ptr);
  CHECK(get_task_info(2, NULL, NULL, NULL, NULL, NULL) == 0);
  CHECK(get_parallel_info(0, &pp, &size) == 2);
  CHECK(pp == p0 && pp->value != 0 && size == expected_team);
  CHECK(get_parallel_info(1, &pp, &size) == 2 && pp == p1 && size == 1);
  CHECK(get_thread_data() != NULL && get_thread_data()->value != 0);
}

/* A serialized region: the program calls the body, no runtime frame between. */
static __attribute__((noinline)) void check_serialized(void *body_cfa, void *local)
{
  int flags = 0, size = 0;
  ompt_frame_t *f0 = NULL, *f1 = NULL;
  CHECK(get_task_info(0, &flags, NULL, &f0, NULL, NULL) == 2);
  CHECK(flags & ompt_task_implicit);
  CHECK(get_parallel_info(0, NULL, &size) == 2 && size == 1);
  CHECK(get_task_info(1, &flags, NULL, &f1, NULL, NULL) == 2);
  CHECK(flags & ompt_task_initial);
  if (is_mock) {
    /* The exit frame names the program's frame that called the body. */
    CHECK(f0->exit_frame.ptr != NULL && (char *)f0->exit_frame.ptr > (char *)local);
    CHECK((char *)f0->exit_frame.ptr >= (char *)body_cfa);
    CHECK(f0->exit_frame_flags == (ompt_frame_application | ompt_frame_framepointer));
    CHECK(f1->enter_frame.ptr == f0->exit_frame.ptr);
  }
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
  CHECK(get_parallel_info(0, NULL, &size) == 2 && size == 1);

  /* One counter per kind of exclusion: a lock and a critical do not exclude each other. */
  omp_lock_t lock;
  long locked = 0, critical = 0, looped = 0;
  omp_init_lock(&lock);
  for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(NT)
    {
      int local = 0;
      check_body(__builtin_dwarf_cfa(), &local, NT);
#pragma omp barrier
      omp_set_lock(&lock);
      locked++;
      omp_unset_lock(&lock);
#pragma omp critical
      critical++;
#pragma omp for schedule(dynamic)
      for (int i = 0; i < 100; i++)
        __atomic_add_fetch(&looped, 1, __ATOMIC_RELAXED);
      __atomic_add_fetch(&local, 1, __ATOMIC_RELAXED);
    }
  }
  omp_destroy_lock(&lock);
  CHECK(locked == 20 * NT && critical == 20 * NT && looped == 20 * 100);
  CHECK(n_parallel_begin == 20 && n_parallel_end == 20);
  CHECK(n_implicit_begin == 20 * NT && n_implicit_end <= n_implicit_begin);
  STRICT(n_implicit_end == 20 * NT);
  CHECK(n_thread_begin_worker == NT - 1);

  /* if(0): a team of one, the body called by the program itself. */
  int serial_runs = 0;
#pragma omp parallel if (0)
  {
    int local = 0;
    check_serialized(__builtin_dwarf_cfa(), &local);
    serial_runs += 1 + local;
  }
  CHECK(serial_runs == 1);

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
          (char *)a->exit_frame.ptr < (char *)b->enter_frame.ptr &&
          (char *)b->enter_frame.ptr < (char *)b->exit_frame.ptr)
        __atomic_add_fetch(&nested_ok, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(nested_ok == 2);
  CHECK(get_state(NULL) == ompt_state_work_serial);
  return failures ? 1 : 0;
}
