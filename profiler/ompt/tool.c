/* knit's OMPT tool: discovery, initialization and the callbacks. */
#include <string.h>

#include "core/session.h"
#include "core/thread.h"
#include "ompt/ompt_state.h"

knit_ompt knit_ompt_runtime;

bool knit_ompt_active(void) { return knit_ompt_runtime.active; }

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  (void)thread_data;
  uint32_t flags = KNIT_THREAD_OPENMP;
  /* A runtime helper (the old Intel monitor, say) never runs user code. */
  if (type == ompt_thread_other || type == ompt_thread_unknown)
    flags = KNIT_THREAD_RUNTIME;
  knit_thread_attach(flags);
}

/* The encountering thread records where the region begins, so every worker's
 * samples can be put under it. */
static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
  (void)encountering_task_data;
  (void)requested_parallelism;
  (void)flags;
  (void)codeptr_ra;
  /* The encountering task: its frame record (with the enter frame the
   * runtime set for this call) and its own prefix. */
  int task_flags = 0, thread_num = 0;
  ompt_data_t *task_data = NULL, *outer_region = NULL;
  ompt_frame_t *tf = NULL, here = {0};
  const knit_call_path *outer = NULL;
  if (knit_ompt_runtime.get_task_info(0, &task_flags, &task_data, &tf, &outer_region,
                                      &thread_num) == 2) {
    outer = knit_task_prefix(task_flags, task_data, outer_region);
    if (tf)
      here = *tf;
  }
  if (encountering_task_frame) {
    here.enter_frame = encountering_task_frame->enter_frame;
    here.enter_frame_flags = encountering_task_frame->enter_frame_flags;
  }
  parallel_data->ptr = (void *)knit_capture_call_path(&here, outer);
}

/* An explicit task is created: the encountering task records where (its
 * own frames down to the runtime's entry, under its own prefix), as a region
 * does at parallel_begin. One unwind per task: cheap next to a task, and
 * nothing at all for programs without tasks. */
static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
  (void)encountering_task_data;
  (void)has_dependences;
  (void)codeptr_ra;
  if (!(flags & ompt_task_explicit) || !new_task_data)
    return;
  int task_flags = 0, thread_num = 0;
  ompt_data_t *task_data = NULL, *region = NULL;
  ompt_frame_t *tf = NULL, here = {0};
  const knit_call_path *outer = NULL;
  if (knit_ompt_runtime.get_task_info(0, &task_flags, &task_data, &tf, &region, &thread_num) ==
      2) {
    outer = knit_task_prefix(task_flags, task_data, region);
    if (tf)
      here = *tf;
  }
  if (encountering_task_frame && encountering_task_frame->enter_frame.ptr) {
    here.enter_frame = encountering_task_frame->enter_frame;
    here.enter_frame_flags = encountering_task_frame->enter_frame_flags;
  }
  new_task_data->ptr = (void *)knit_capture_call_path(&here, outer);
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
  (void)initial_device_num;
  (void)tool_data;
  knit_ompt *o = &knit_ompt_runtime;
  o->get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  o->get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  o->get_state = (ompt_get_state_t)lookup("ompt_get_state");
  o->get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
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
  /* Optional: without it, explicit tasks' samples lack their creation path. */
  set_callback(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  /* The initial thread was attached at load time; it is an OpenMP thread too
   * (its thread_begin may have come before the callback was set). */
  knit_thread_attach(KNIT_THREAD_OPENMP);
  o->active = true;
  knit_log_line("ompt: tool initialized");
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

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
  return &tool_result;
}
