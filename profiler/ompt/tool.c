/* knit's OMPT tool: discovery, initialization and the callbacks. */
#include <string.h>

#include "core/session.h"
#include "core/thread.h"
#include "core/trace.h"
#include "ompt/blame.h"
#include "ompt/blame_release.h"
#include "ompt/device.h"
#include "ompt/missed_samples.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"
#include "ompt/task_contexts.h"
#include "unwind/loadmap.h"

/* Not yet initialized: no runtime module (0 would be the program). */
knit_ompt knit_ompt_runtime = {.runtime_module = KNIT_MODULE_UNKNOWN,
                               .target_module = KNIT_MODULE_UNKNOWN};

bool knit_ompt_active(void)
{
  return knit_ompt_runtime.active;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  (void)thread_data;
  /* A runtime helper (the old Intel monitor, say) never runs user code:
   * neither is it one of the threads idleness is counted over. */
  if (type == ompt_thread_other || type == ompt_thread_unknown) {
    knit_thread_attach(KNIT_THREAD_RUNTIME);
    return;
  }
  knit_blame_thread_begin(knit_thread_attach(KNIT_THREAD_OPENMP), type == ompt_thread_initial);
}

static void on_thread_end(ompt_data_t *thread_data)
{
  (void)thread_data;
  knit_thread *t = knit_thread_self();
  knit_blame_thread_end(t);
  /* Its last deferred samples, resolved or under <partial>. */
  knit_deferred_flush_here(t, true);
}

/* The implicit task of a region is a task of its own, never the task that
 * encountered the region. LLVM's libomp 14 breaks this for a region gcc's
 * code opens (GOMP_parallel) inside a team of a host teams construct: it
 * forms no team for it, and reports as its implicit task the team's own
 * task, under the data of the team's region, and so answers every inquiry
 * while the body runs (the team's task at level 0, its region's data, an
 * exit frame at GOMP_parallel). The region's data knit filled at
 * parallel_begin is never seen again. The team's region then holds the
 * word of the region begun, for as long as its implicit task runs: its
 * team is this thread alone, whose samples and callbacks are all that
 * read it. While the runtime forks and joins that region (the team's task
 * without an exit frame, inside GOMP_parallel) the team's task is in its
 * own region still, whose word its samples go by (knit_region_unlent). */
static void lend_region(knit_thread *t, ompt_data_t *parallel_data, ompt_data_t *task_data)
{
  knit_region_state *r = knit_region_state_of(t);
  if (!r)
    return;
  const ompt_data_t *begun_by = r->begun_by;
  r->begun_by = NULL;
  /* The same task data at another level is no sign: libomp 14 swaps a
   * serialized region's task into the encountering task's place (clang's
   * regions in a team), with a copy of the region's word in its data. */
  if (!begun_by || task_data != begun_by || !parallel_data || parallel_data->ptr == r->begun_word ||
      r->lent)
    return;
  /* The handler reads lent_word once it finds lent set
   * (knit_region_unlent). */
  r->lent_word = parallel_data->ptr;
  r->lent_to = task_data;
  __atomic_store_n(&r->lent, parallel_data, __ATOMIC_RELEASE);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  parallel_data->ptr = r->begun_word;
}

static void give_back_region(knit_thread *t, const ompt_data_t *task_data)
{
  knit_region_state *r = t ? t->regions : NULL;
  if (!r || !r->lent || task_data != r->lent_to)
    return;
  r->lent->ptr = r->lent_word;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(&r->lent, NULL, __ATOMIC_RELEASE);
  r->lent_to = NULL;
}

/* Idleness for blame (blame.h): a worker is in its pool between implicit
 * tasks, and idle while it waits at a barrier, taskwait or taskgroup. The
 * initial task is never the pool's. */
static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
  (void)actual_parallelism;
  (void)index;
  if (flags & ompt_task_initial) {
    /* An initial task of a host teams league (the program's own initial
     * task has no region knit opened): the league's path, captured at its
     * parallel_begin, is the task's, so that what the team runs, on
     * whichever thread, sits under the teams construct. */
    if (endpoint == ompt_scope_begin && task_data && parallel_data && parallel_data->ptr)
      task_data->ptr = parallel_data->ptr;
    return;
  }
  knit_thread *t = knit_thread_self();
  if (endpoint == ompt_scope_begin) {
    lend_region(t, parallel_data, task_data);
    /* The encountering thread's own task: its workers are on their way,
     * and the region's path is captured now (region_paths.h). */
    knit_region_task_begins(t);
    knit_take_missed(t);
    /* The implicit task's prefix is its region's path, which the region's
     * data holds: its own data says so (KNIT_PREFIX_OF_REGION). */
    if (task_data)
      task_data->ptr = KNIT_PREFIX_OF_REGION;
  } else {
    give_back_region(t, task_data);
    knit_region_task_ends(t);
  }
  knit_blame_implicit_task(t, endpoint == ompt_scope_begin);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
  (void)kind;
  (void)parallel_data;
  (void)task_data;
  (void)codeptr_ra;
  knit_thread *t = knit_thread_self();
  /* Samples kept while the region's path was captured are resolved before
   * the barrier, which the master that captures it cannot have left. */
  if (endpoint == ompt_scope_begin)
    knit_deferred_flush_here(t, false);
  knit_blame_wait(t, endpoint == ompt_scope_begin);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
  (void)kind;
  (void)hint;
  (void)impl;
  (void)codeptr_ra;
  knit_blame_acquire(knit_thread_self(), wait_id);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
  (void)kind;
  (void)codeptr_ra;
  knit_blame_acquired(knit_thread_self(), wait_id);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
  (void)kind;
  knit_blame_release(wait_id, codeptr_ra);
}

/* A capture's frame record with the addresses that name no live frame of
 * this stack dropped (frame_range.h): the capture then cuts the runtime's
 * innermost frames by their module instead (call_paths.c). */
static void keep_live_frames(ompt_frame_t *f)
{
  const void *here = __builtin_frame_address(0);
  if (!knit_ompt_frame_is_live(f->enter_frame.ptr, here))
    f->enter_frame.ptr = NULL;
  if (!knit_ompt_frame_is_live(f->exit_frame.ptr, here))
    f->exit_frame.ptr = NULL;
}

/* Which task began a region, and the word its data got (lend_region). */
static void began(knit_thread *t, const ompt_data_t *encountering_task_data, void *word)
{
  knit_region_state *r = knit_region_state_of(t);
  if (!r)
    return;
  r->begun_by = encountering_task_data;
  r->begun_word = word;
}

/* The encountering thread records where the region begins, so every worker's
 * samples can be put under it. */
static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
  (void)requested_parallelism;
  /* The encountering task: its frame record (with the enter frame the
   * runtime set for this call) and its own prefix, which its data holds
   * (on_task_create; none for an initial task). Both come with the call:
   * asking the runtime (ompt_get_task_info) cost libomp about 220
   * instructions a region. An implicit task's prefix is its region's: for
   * a nested region the runtime is asked after all. */
  ompt_frame_t here = {0};
  const void *outer = NULL; /* a path, or a ticket for one (region_paths.h) */
  knit_thread *t = knit_thread_self();
  /* A league's initial task that opens its team's region (libomp runs each
   * team's body in a region of its own): the task has no frames of its own
   * (no exit frame; the runtime's are below), and its data holds the
   * league's path (on_implicit_task), which is the region's. (The runtime
   * cannot be asked whether the task is initial: libomp 14 answers with
   * the team's flags there.) Only a league's initial task and explicit
   * tasks hold a path; an explicit task without an exit frame has no
   * frames of its own either, and its path is where it was created. */
  if (encountering_task_data && encountering_task_frame &&
      !encountering_task_frame->exit_frame.ptr && encountering_task_data->ptr &&
      ((uintptr_t)encountering_task_data->ptr & 15) == 0) {
    parallel_data->ptr = encountering_task_data->ptr;
    began(t, encountering_task_data, parallel_data->ptr);
    knit_take_missed(t);
    return;
  }
  if (encountering_task_data && encountering_task_frame &&
      encountering_task_data->ptr != KNIT_PREFIX_OF_REGION) {
    outer = encountering_task_data->ptr;
    here = *encountering_task_frame;
  } else {
    int task_flags = 0, thread_num = 0;
    ompt_data_t *task_data = NULL, *outer_region = NULL;
    ompt_frame_t *tf = NULL;
    if (knit_ompt_runtime.get_task_info(0, &task_flags, &task_data, &tf, &outer_region,
                                        &thread_num) == 2) {
      outer = knit_task_prefix_word(task_flags, task_data, outer_region, tf);
      if (tf)
        here = *tf;
    }
    if (encountering_task_frame) {
      here.enter_frame = encountering_task_frame->enter_frame;
      here.enter_frame_flags = encountering_task_frame->enter_frame_flags;
    }
  }
  keep_live_frames(&here);
  /* Captured now, or at this thread's implicit task, after the workers are
   * released (region_paths.h). A host teams league has no implicit task
   * (its members run initial tasks, on_implicit_task): captured now. */
  bool deferrable = knit_ompt_runtime.implicit_tasks && !(flags & ompt_parallel_league);
  parallel_data->ptr = knit_region_open(t, &here, (void *)outer, codeptr_ra, deferrable);
  began(t, encountering_task_data, parallel_data->ptr);
  knit_take_missed(t);
  knit_trace_transition(t, KNIT_TRACE_PARALLEL_BEGIN);
}

/* Registered with -t only: the region's end is a trace event, nothing
 * else of knit needs it. */
static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
  (void)parallel_data;
  (void)encountering_task_data;
  (void)flags;
  (void)codeptr_ra;
  knit_trace_transition(knit_thread_self(), KNIT_TRACE_PARALLEL_END);
}

/* An explicit task is created: the encountering task records where (its
 * own frames down to the runtime's entry, under its own prefix), as a region
 * does at parallel_begin. One unwind per task: cheap next to a task, and
 * nothing at all for programs without tasks. */
static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
  /* encountering_task_data: libomp may pass a copy, which holds the same
   * word but is not the task's own data (not comparable by address). */
  (void)has_dependences;
  (void)codeptr_ra;
  if (!(flags & ompt_task_explicit) || !new_task_data)
    return;
  /* Created inside an explicit task (whose data holds the context knit
   * made for it, a path: never an implicit task's mark, a ticket or NULL):
   * the call brings all the capture needs, and asking the runtime
   * (ompt_get_task_info, about 220 instructions on libomp) would cost a
   * recursive task program more than the capture itself. */
  const void *word = encountering_task_data ? encountering_task_data->ptr : NULL;
  if (word && ((uintptr_t)word & 15) == 0 && encountering_task_frame &&
      encountering_task_frame->exit_frame.ptr) {
    ompt_frame_t own = *encountering_task_frame;
    keep_live_frames(&own);
    new_task_data->ptr = (void *)knit_capture_task_path(&own, word);
    knit_take_missed(knit_thread_self());
    return;
  }
  /* The encountering task: the current one, unless the runtime has made
   * the new task current already (libomp does for an undeferred task). */
  int task_flags = 0, thread_num = 0;
  ompt_data_t *task_data = NULL, *region = NULL;
  ompt_frame_t *tf = NULL, here = {0};
  const knit_call_path *outer = NULL;
  ompt_data_t *new_task_region = NULL;
  for (int level = 0; level < 2; level++) {
    if (knit_ompt_runtime.get_task_info(level, &task_flags, &task_data, &tf, &region,
                                        &thread_num) != 2)
      break;
    if (task_data == new_task_data) {
      new_task_region = region;
      continue;
    }
    /* An explicit task belongs to the team of the implicit task that
     * creates it. libomp 14 answers level 1 of a worker's undeferred task
     * (gcc's if(0), through its GOMP layer) with another team's
     * parallel data; the new task's own answer names the right one. */
    if (new_task_region && (task_flags & ompt_task_implicit))
      region = new_task_region;
    outer = knit_task_prefix(task_flags, task_data, region, tf);
    if (tf)
      here = *tf;
    break;
  }
  if (encountering_task_frame && encountering_task_frame->enter_frame.ptr) {
    here.enter_frame = encountering_task_frame->enter_frame;
    here.enter_frame_flags = encountering_task_frame->enter_frame_flags;
  }
  keep_live_frames(&here);
  /* Created inside an explicit task: a transient context, which the task
   * gives back when it is done (on_task_schedule). A recursive task
   * program makes a new one per task, nearly none of them ever sampled
   * (task_contexts.h). Created by an implicit or initial task: interned
   * and remembered, since a loop that creates tasks makes the same one
   * again and again. */
  bool transient = (task_flags & ompt_task_explicit) || knit_path_is_transient(outer);
  new_task_data->ptr = (void *)(transient ? knit_capture_task_path(&here, outer)
                                          : knit_capture_call_path(&here, outer, codeptr_ra));
  /* Signals that came during the capture: a sample of the creation. */
  knit_take_missed(knit_thread_self());
}

/* A task is done: its transient context (on_task_create) is given back,
 * with its ancestors that nothing else holds. A detached task is done when
 * its event is fulfilled, which the runtime reports as a late fulfill. */
static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
  /* Whether a task's body ends here, or one begins: a body ends with the
   * task complete, cancelled or detached, on the thread that ran it, which
   * resumes another task. A detached task's fulfilment (complete with no
   * task to resume, OpenMP 5.0; late_fulfill, 5.1) may come on any thread
   * and ends no body. */
  ompt_task_status_t s = prior_task_status;
  bool ends = s == ompt_task_complete || s == ompt_task_cancel || s == ompt_task_early_fulfill ||
              s == ompt_task_detach;
  bool fulfils = s == ompt_task_late_fulfill || (s == ompt_task_complete && !next_task_data);
  if (!fulfils)
    knit_blame_task_runs(knit_thread_self(), !ends);
  /* Done: nothing of the task runs any more, nor will. */
  bool done = (ends && s != ompt_task_detach) || fulfils;
  if (!done || !prior_task_data)
    return;
  const knit_call_path *p = prior_task_data->ptr;
  if (knit_path_is_transient(p)) {
    /* Cleared first: a second report of the same end finds nothing. */
    prior_task_data->ptr = NULL;
    knit_task_context_release(p);
  }
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
  (void)initial_device_num;
  (void)tool_data;
  knit_ompt *o = &knit_ompt_runtime;
  o->get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  o->get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  o->get_state = (ompt_get_state_t)lookup("ompt_get_state");
  o->get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  o->get_target_info = (ompt_get_target_info_t)lookup("ompt_get_target_info");
  /* The runtime is the module that answers OMPT's inquiries: found once
   * here rather than in every sample's walk. */
  if (o->get_task_info) {
    knit_loadmap_refresh(knit_self_address());
    const knit_module *m =
        knit_loadmap_find(knit_loadmap_current(), (uint64_t)(uintptr_t)o->get_task_info);
    if (m)
      o->runtime_module = m->id;
  }
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!o->get_task_info || !o->get_state || !set_callback) {
    knit_log_line("ompt: the runtime lacks get_task_info, get_state or set_callback; "
                  "attribution falls back to raw stacks");
    return 0;
  }
  set_callback(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  if (set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) !=
      ompt_set_always) {
    knit_log_line("ompt: parallel_begin is not always dispatched; worker stacks may be unstitched");
  }
  if (knit_trace_enabled())
    set_callback(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  /* Optional: without it, explicit tasks' samples lack their creation path. */
  set_callback(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  /* Without it, tasks' transient contexts are never given back: memory then
   * grows with the tasks made, as if every context were interned. */
  if (set_callback(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule) ==
      ompt_set_never)
    knit_log_line("ompt: no task_schedule; tasks' creation contexts are kept to the end");
  /* Blame (blame.h). Without the first three, idleness is not blamed;
   * without mutex_released, waits stay with the waiters. */
  set_callback(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
  o->implicit_tasks = set_callback(ompt_callback_implicit_task,
                                   (ompt_callback_t)on_implicit_task) == ompt_set_always;
  bool idleness =
      o->implicit_tasks && set_callback(ompt_callback_sync_region_wait,
                                        (ompt_callback_t)on_sync_region_wait) == ompt_set_always;
  if (!idleness)
    knit_log_line("ompt: implicit_task or sync_region_wait is not always dispatched; "
                  "OMP_IDLE blame may be wrong");
  set_callback(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
  set_callback(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
  if (set_callback(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released) ==
      ompt_set_never)
    knit_log_line("ompt: no mutex_released; OMP_MUTEX waits are not blamed on their holders");
  /* Target devices (device.h): their work, under the host's call paths. */
  knit_device_register(set_callback);
  /* The initial thread was attached at load time; it is an OpenMP thread too
   * (its thread_begin may have come before the callback was set). */
  knit_blame_thread_begin(knit_thread_attach(KNIT_THREAD_OPENMP), true);
  o->active = true;
  knit_log_line("ompt: tool initialized");
  return 1;
}

static void finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
}

static ompt_start_tool_result_t tool_result = {initialize, finalize, {0}};

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  (void)omp_version;
  if (!knit_the_session.active)
    return NULL;
  char line[512];
  size_t n = strlen(runtime_version ? runtime_version : "");
  memcpy(line, "ompt: runtime ", 14);
  if (n > sizeof line - 15)
    n = sizeof line - 15;
  memcpy(line + 14, runtime_version ? runtime_version : "", n);
  line[14 + n] = '\0';
  knit_log_line(line);
  /* The runtime is the module that calls this, known now rather than at
   * initialize, which comes at the end of the runtime's own initialization
   * (libomp's takes tens of ms under QEMU): samples taken meanwhile, in
   * the program's first OpenMP call, are the runtime's work, and are
   * placed as such (ompt/attribution.c) once its module is known. */
  knit_loadmap_refresh(knit_self_address());
  const knit_module *m = knit_loadmap_find(
      knit_loadmap_current(),
      (uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)));
  if (m && !m->is_self)
    knit_ompt_runtime.runtime_module = m->id;
  return &tool_result;
}
