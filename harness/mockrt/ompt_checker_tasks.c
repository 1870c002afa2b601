/*
 * The OMPT checker's explicit-task promises: task_create, task_schedule,
 * dependences and task_dependence, and the inquiry answers from inside a
 * task's body (knit_ompt_checker_task_probe).
 *
 * Each explicit task gets a key (a tag bit and its index here) stored in
 * its task_data at task_create.  Each thread keeps the stack of explicit
 * tasks it runs, as the task_schedule events describe them: a switch or a
 * yield pushes the next task, a completion pops the prior one.  Promises:
 * - task_schedule_prior: the prior task of a task_schedule is the thread's
 *   current task (the top of its stack, or its innermost implicit task);
 * - task_scheduled_once / task_completed_once: every created task starts
 *   exactly once and completes exactly once by finalize;
 * - dependences_only_with_deps: dependences come only for tasks created
 *   with has_dependences, and task_dependence only between known tasks;
 * - task_info_explicit, task_info_parent, task_exit_frame_above_body,
 *   enter_frame_clear_in_task: from a task's body, get_task_info(0) is that
 *   task, with its exit frame set above the body's locals and no enter
 *   frame, and get_task_info(1) is the task that created it.
 * On runtimes other than the mock, the events of tasks that never had a
 * task_create, the resumed task named at a completion, the creator's enter
 * frame at task_create, task_info_parent, enter_frame_clear_in_task and the
 * probes of if(0) task bodies are not checked (libomp 14 differs there;
 * ompt_checker_report.c says so).
 */
#include <stdio.h>
#include <string.h>

#include "ompt_checker.h"
#include "ompt_checker_state.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_TASKS 65536
#define MAX_DEPTH 64
#define TASK_TAG (1ull << 62)

typedef struct task_rec {
  uint64_t parent;                /* the creator's task_data value */
  int flags;
  bool has_deps;
  int scheduled, completed;
} task_rec_t;

static task_rec_t tasks[MAX_TASKS];
static size_t n_tasks;
static struct {
  uint64_t stack[MAX_DEPTH];
  int depth;
} running[MAX_THREADS];

static task_rec_t *task_of(const ompt_data_t *td)
{
  if (!td || !(td->value & TASK_TAG))
    return NULL;
  uint64_t i = td->value & ~TASK_TAG;
  return i < n_tasks ? &tasks[i] : NULL;
}

/* The thread's current task as its events say: running explicit task, else implicit. */
static bool is_current_locked(const thread_rec_t *t, uint64_t value)
{
  int d = running[t->index].depth;
  if (d > 0)
    return d <= MAX_DEPTH && running[t->index].stack[d - 1] == value;
  int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  /* libomp 14 ends a worker's implicit task late: any open one may be current there. */
  for (int i = top; i >= 0; i--) {
    if (t->imp[i].value == value)
      return true;
    if (checker_strict)
      break;
  }
  return false;
}

static void on_task_create(ompt_data_t *enc_td, const ompt_frame_t *enc_frame,
                           ompt_data_t *new_td, int flags, int has_deps, const void *codeptr)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_task_create, "task_create");
  if (!(flags & ompt_task_explicit) || n_tasks == MAX_TASKS) {
    pthread_mutex_unlock(&checker_mu);
    return;
  }
  task_rec_t *r = &tasks[n_tasks];
  new_td->value = TASK_TAG | n_tasks++;
  checker_note_id_locked(checker_get_unique_id());
  r->parent = enc_td ? enc_td->value : 0;
  r->flags = flags;
  r->has_deps = has_deps != 0;
  if (!codeptr)
    checker_violate("task_create_codeptr", "task_create on thread #%d without a codeptr_ra",
                   t->index);
  if (checker_strict && (!enc_frame || !enc_frame->enter_frame.ptr))
    checker_violate("task_create_enter_frame", "task_create on thread #%d: the creating task's "
                   "enter frame is NULL", t->index);
  if (enc_td && !is_current_locked(t, enc_td->value))
    checker_violate("task_create_encountering", "task_create on thread #%d: the encountering "
                   "task (value 0x%llx) is not the thread's current task", t->index,
                   (unsigned long long)enc_td->value);
  pthread_mutex_unlock(&checker_mu);
}

static void push_locked(thread_rec_t *t, uint64_t value)
{
  int d = running[t->index].depth++;
  if (d < MAX_DEPTH)
    running[t->index].stack[d] = value;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_task_schedule, "task_schedule");
  uint64_t pv = prior ? prior->value : 0;
  if (status == ompt_task_complete || status == ompt_task_cancel) {
    task_rec_t *r = task_of(prior);
    if (running[t->index].depth == 0 || !is_current_locked(t, pv)) {
      checker_violate("task_schedule_prior", "task_schedule(complete) on thread #%d: prior "
                     "0x%llx is not the task the thread runs", t->index,
                     (unsigned long long)pv);
    } else {
      running[t->index].depth--;
    }
    if (r && ++r->completed > 1)
      checker_violate("task_completed_once", "task 0x%llx completed %d times",
                     (unsigned long long)pv, r->completed);
    if (checker_strict && next && !is_current_locked(t, next->value))
      checker_violate("task_schedule_next", "task_schedule(complete) on thread #%d resumes "
                     "0x%llx, not the task that was running before", t->index,
                     (unsigned long long)next->value);
  } else {
    if (!is_current_locked(t, pv))
      checker_violate("task_schedule_prior", "task_schedule(%d) on thread #%d: prior 0x%llx "
                     "is not the thread's current task", (int)status, t->index,
                     (unsigned long long)pv);
    task_rec_t *r = task_of(next);
    if (!r && checker_strict)
      checker_violate("task_scheduled_once", "task_schedule on thread #%d starts a task that "
                     "had no task_create", t->index);
    else if (r && ++r->scheduled > 1)
      checker_violate("task_scheduled_once", "task 0x%llx started %d times",
                     (unsigned long long)next->value, r->scheduled);
    push_locked(t, next ? next->value : 0);
  }
  pthread_mutex_unlock(&checker_mu);
}

static void on_dependences(ompt_data_t *td, const ompt_dependence_t *deps, int ndeps)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_dependences, "dependences");
  task_rec_t *r = task_of(td);
  if (!r || !r->has_deps || ndeps <= 0 || !deps)
    checker_violate("dependences_only_with_deps", "dependences (%d) on thread #%d for task "
                   "0x%llx, which was not created with dependences", ndeps, t->index,
                   (unsigned long long)(td ? td->value : 0));
  pthread_mutex_unlock(&checker_mu);
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_task_dependence, "task_dependence");
  task_rec_t *a = task_of(src), *b = task_of(sink);
  if (!a || !b || !a->has_deps || !b->has_deps)
    checker_violate("dependences_only_with_deps", "task_dependence on thread #%d between "
                   "tasks not both created with dependences", t->index);
  pthread_mutex_unlock(&checker_mu);
}

EXPORT void knit_ompt_checker_task_probe(const void *local)
{
  if (!checker_get_task_info)
    return;
  int flags = 0;
  ompt_data_t *td = NULL, *td1 = NULL;
  ompt_frame_t *frame = NULL;
  int have0 = checker_get_task_info(0, &flags, &td, &frame, NULL, NULL);
  int have1 = checker_get_task_info(1, NULL, &td1, NULL, NULL, NULL);

  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  int d = running[t->index].depth;
  task_rec_t *r = have0 ? task_of(td) : NULL;
  /* libomp 14 answers in an if(0) task's body with the encountering task, flagged undeferred. */
  if (!checker_strict && have0 && !r && (flags & ompt_task_undeferred)) {
    pthread_mutex_unlock(&checker_mu);
    return;
  }
  if (!have0 || !td || !frame || !(flags & ompt_task_explicit) || !r || d == 0 ||
      (d <= MAX_DEPTH && running[t->index].stack[d - 1] != td->value)) {
    checker_violate("task_info_explicit", "thread #%d in a task body: get_task_info(0) gave "
                   "task_data %p (value 0x%llx) flags 0x%x; the task it started last is "
                   "0x%llx", t->index, (void *)td, td ? (unsigned long long)td->value : 0ull,
                   flags, d > 0 && d <= MAX_DEPTH ? (unsigned long long)running[t->index].stack[d - 1] : 0ull);
  } else {
    /* libomp 14 answers level 1 with the task the thread ran before (its scheduling parent). */
    if (checker_strict && (!have1 || !td1 || td1->value != r->parent))
      checker_violate("task_info_parent", "thread #%d in a task body: get_task_info(1) gave "
                     "0x%llx, the task's creator is 0x%llx", t->index,
                     td1 ? (unsigned long long)td1->value : 0ull, (unsigned long long)r->parent);
    /*
     * An exit frame flagged application names the program's own frame that
     * calls the body (an if(0) task under __kmpc_*), into which the compiler
     * may have inlined the body: only its presence is checked then.
     */
    bool app = (frame->exit_frame_flags & ompt_frame_application) != 0;
    if (!frame->exit_frame.ptr ||
        (!app && (const char *)frame->exit_frame.ptr <= (const char *)local))
      checker_violate("task_exit_frame_above_body", "thread #%d: task exit frame %p is not "
                     "above the body's local at %p", t->index, frame->exit_frame.ptr, local);
    else if (!checker_frame_flags_valid(frame->exit_frame_flags))
      checker_violate("exit_frame_flags", "thread #%d: task exit frame %p has flags 0x%x",
                     t->index, frame->exit_frame.ptr, frame->exit_frame_flags);
    if (checker_strict && frame->enter_frame.ptr)
      checker_violate("enter_frame_clear_in_task", "thread #%d: enter frame %p set while a "
                     "task body runs", t->index, frame->enter_frame.ptr);
  }
  pthread_mutex_unlock(&checker_mu);
}

void checker_task_final_checks_locked(void)
{
  for (size_t i = 0; i < n_tasks; i++) {
    if (tasks[i].scheduled != 1)
      checker_violate("task_scheduled_once", "task 0x%llx started %d times by finalize",
                     (unsigned long long)(TASK_TAG | i), tasks[i].scheduled);
    if (tasks[i].completed != 1)
      checker_violate("task_completed_once", "task 0x%llx completed %d times by finalize",
                     (unsigned long long)(TASK_TAG | i), tasks[i].completed);
  }
}

#define REGISTER(which, cb) \
  (checker_set_answer[which] = checker_set_callback(which, (ompt_callback_t)(cb)))

void checker_register_task_callbacks(void)
{
  REGISTER(ompt_callback_task_create, on_task_create);
  REGISTER(ompt_callback_task_schedule, on_task_schedule);
  REGISTER(ompt_callback_dependences, on_dependences);
  REGISTER(ompt_callback_task_dependence, on_task_dependence);
}
