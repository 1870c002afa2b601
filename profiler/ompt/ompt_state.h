/* What knit's OMPT tool keeps from the runtime: the inquiry entry points it
 * looked up at initialization. All of them are async-signal-safe by the
 * OpenMP specification, which is why the handler may call them. */
#ifndef KNIT_OMPT_STATE_H
#define KNIT_OMPT_STATE_H

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "ompt/attribution.h"
#include "ompt/frame_range.h"

typedef struct knit_ompt {
  bool active;
  ompt_get_task_info_t get_task_info;
  ompt_get_parallel_info_t get_parallel_info;
  ompt_get_state_t get_state;
  ompt_get_thread_data_t get_thread_data;
  /* The target id of the construct the calling thread is in, which the
   * _emi target callbacks do not pass (ompt/device.c); NULL if absent. */
  ompt_get_target_info_t get_target_info;
  /* The load map id of the runtime (the module that answers OMPT's
   * inquiries), found once at initialization: ids stay with their module,
   * and a runtime is never unloaded under its tool. KNIT_MODULE_UNKNOWN
   * when the map did not hold it then. */
  uint32_t runtime_module;
  /* The offloading library's (the module whose lookup a device's
   * initialization passes), or KNIT_MODULE_UNKNOWN: a host thread waits for
   * its device in its frames. */
  uint32_t target_module;
  /* implicit_task is always dispatched: a region's path can wait for the
   * encountering thread's implicit task (ompt/region_paths.h). */
  bool implicit_tasks;
} knit_ompt;

extern knit_ompt knit_ompt_runtime;

/* The call path under which a task's own frames go: the path captured when
 * its parallel region began (implicit tasks, and the initial tasks of a
 * host teams league that have an exit frame, tf), or when it was created
 * (explicit tasks), or NULL (the program's initial task). Waits for a
 * region's path still being captured (ompt/region_paths.h): not for signal
 * handlers. */
const knit_call_path *knit_task_prefix(int flags, ompt_data_t *task_data,
                                       ompt_data_t *parallel_data, const ompt_frame_t *tf);

/* What an implicit task's own data holds: "my region's prefix, which my
 * parallel data holds". Neither a path (aligned) nor a ticket (odd). The
 * worker does not copy the word itself: the master wrote it in this very
 * region, on a cache line the worker would otherwise never read, and the
 * copy made every worker of every region wait for that line. The one
 * reader, a region opened inside the task, asks the runtime instead. */
#define KNIT_PREFIX_OF_REGION ((void *)(uintptr_t)2)

/* The same as the word the task's data holds: a path, or a ticket for one
 * (ompt/region_paths.h). */
const void *knit_task_prefix_word(int flags, ompt_data_t *task_data, ompt_data_t *parallel_data,
                                  const ompt_frame_t *tf);

/* Captures the application-level call path of the calling thread at a
 * runtime entry (the start of a parallel region): the frames of the
 * encountering task that lie between `here`'s enter frame (the runtime
 * entry function) and its exit frame, under `outer`, the prefix of the
 * encountering task itself (NULL for the initial task). Interned, so a
 * region opened from the same path again costs no memory. site: the
 * construct's call site (codeptr_ra), or NULL: remembered captures are
 * filed by it (capture_cache.h). Not for signal handlers. */
const knit_call_path *knit_capture_call_path(const ompt_frame_t *here, const knit_call_path *outer,
                                             const void *site);

/* knit_capture_call_path for an explicit task created inside an explicit
 * task: the path as a transient context (task_contexts.h), which the new
 * task holds until knit_task_context_release; outer may be transient too.
 * Never remembered. Not for signal handlers. */
const knit_call_path *knit_capture_task_path(const ompt_frame_t *here, const knit_call_path *outer);

/* Logs how captures were answered, over every thread: walked, remembered
 * (the capture cache), and in check mode (KNIT_CHECK_CAPTURES) how many
 * remembered paths were checked against a walk and how many differed.
 * Async-signal-safe (the crash path finishes the session). */
void knit_capture_log(void);

#endif /* KNIT_OMPT_STATE_H */
