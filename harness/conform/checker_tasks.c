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
 * Tasks scheduled without a task_create, the resumed task named at a
 * completion, the creator's enter frame at task_create and
 * enter_frame_clear_in_task are KNIT checks (conform/checks.def); on runtimes other
 * than the mock the probes of if(0) task bodies are left out (libomp 14
 * answers there with the encountering task).
 */
#include <stdio.h>
#include <string.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_TASKS 65536
#define MAX_DEPTH 64
#define TASK_TAG  (1ull << 62)

typedef struct task_rec {
  uint64_t parent;    /* the creator's task_data value */
  int creator_thread; /* the index of the thread that created it */
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

bool checker_task_creator_locked(uint64_t value, uint64_t *creator)
{
  ompt_data_t d = {.value = value};
  task_rec_t *r = task_of(&d);
  if (r)
    *creator = r->parent;
  return r != NULL;
}

int checker_current_task_creator_locked(const thread_rec_t *t)
{
  int d = running[t->index].depth;
  if (d <= 0 || d > MAX_DEPTH)
    return -1;
  ompt_data_t cur = {.value = running[t->index].stack[d - 1]};
  task_rec_t *r = task_of(&cur);
  return r ? r->creator_thread : -1;
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

static void on_task_create(ompt_data_t *enc_td, const ompt_frame_t *enc_frame, ompt_data_t *new_td,
                           int flags, int has_deps, const void *codeptr)
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
  r->creator_thread = t->index;
  r->flags = flags;
  r->has_deps = has_deps != 0;
  EXPECT(CHK_TASK_CREATE_CODEPTR, codeptr != NULL,
         "task_create on thread #%d without a "
         "codeptr_ra",
         t->index);
  EXPECT(CHK_TASK_CREATE_ENTER_FRAME, enc_frame && enc_frame->enter_frame.ptr,
         "task_create on "
         "thread #%d: the creating task's enter frame is NULL",
         t->index);
  if (enc_td)
    EXPECT(CHK_TASK_CREATE_ENCOUNTERING, is_current_locked(t, enc_td->value),
           "task_create on "
           "thread #%d: the encountering task (value 0x%llx) is not the thread's current task",
           t->index, (unsigned long long)enc_td->value);
  pthread_mutex_unlock(&checker_mu);
}

static void push_locked(thread_rec_t *t, uint64_t value)
{
  int d = running[t->index].depth++;
  if (d < MAX_DEPTH)
    running[t->index].stack[d] = value;
}

static void task_end_locked(thread_rec_t *t, ompt_data_t *prior, ompt_data_t *next)
{
  uint64_t pv = prior ? prior->value : 0;
  task_rec_t *r = task_of(prior);
  bool current = running[t->index].depth > 0 && is_current_locked(t, pv);
  EXPECT(CHK_TASK_SCHEDULE_PRIOR, current,
         "task_schedule(complete) on thread #%d: prior "
         "0x%llx is not the task the thread runs",
         t->index, (unsigned long long)pv);
  if (current)
    running[t->index].depth--;
  if (r && ++r->completed > 1)
    checker_violate(CHK_TASK_COMPLETED_ONCE, "task 0x%llx completed %d times",
                    (unsigned long long)pv, r->completed);
  if (next)
    EXPECT(CHK_TASK_SCHEDULE_NEXT, is_current_locked(t, next->value),
           "task_schedule(complete) "
           "on thread #%d resumes 0x%llx, not the task that was running before",
           t->index, (unsigned long long)next->value);
}

static void task_start_locked(thread_rec_t *t, ompt_data_t *prior, ompt_task_status_t status,
                              ompt_data_t *next)
{
  uint64_t pv = prior ? prior->value : 0;
  EXPECT(CHK_TASK_SCHEDULE_PRIOR, is_current_locked(t, pv),
         "task_schedule(%d) on thread #%d: "
         "prior 0x%llx is not the thread's current task",
         (int)status, t->index, (unsigned long long)pv);
  task_rec_t *r = task_of(next);
  EXPECT(CHK_TASK_CREATE_BEFORE_SCHEDULE, r != NULL,
         "task_schedule on thread #%d starts a "
         "task that had no task_create",
         t->index);
  if (r && ++r->scheduled > 1)
    checker_violate(CHK_TASK_SCHEDULED_ONCE, "task 0x%llx started %d times",
                    (unsigned long long)next->value, r->scheduled);
  push_locked(t, next ? next->value : 0);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_task_schedule, "task_schedule");
  if (status == ompt_task_complete || status == ompt_task_cancel)
    task_end_locked(t, prior, next);
  else
    task_start_locked(t, prior, status, next);
  pthread_mutex_unlock(&checker_mu);
}

static void on_dependences(ompt_data_t *td, const ompt_dependence_t *deps, int ndeps)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_dependences, "dependences");
  task_rec_t *r = task_of(td);
  EXPECT(CHK_DEPENDENCES_WITH_DEPS, r && r->has_deps && ndeps > 0 && deps,
         "dependences (%d) "
         "on thread #%d for task 0x%llx, which was not created with dependences",
         ndeps, t->index, (unsigned long long)(td ? td->value : 0));
  pthread_mutex_unlock(&checker_mu);
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_task_dependence, "task_dependence");
  task_rec_t *a = task_of(src), *b = task_of(sink);
  EXPECT(CHK_DEPENDENCES_WITH_DEPS, a && b && a->has_deps && b->has_deps,
         "task_dependence on "
         "thread #%d between tasks not both created with dependences",
         t->index);
  pthread_mutex_unlock(&checker_mu);
}

/* From a task's body: level 0 is the task, with its frames; level 1 its parent. */
static void task_frames_locked(thread_rec_t *t, const ompt_frame_t *frame, const void *local)
{
  /*
   * An exit frame flagged application names the program's own frame that
   * calls the body (an if(0) task under __kmpc_*), into which the compiler
   * may have inlined the body: only its presence is checked then.
   */
  bool app = (frame->exit_frame_flags & ompt_frame_application) != 0;
  bool above =
      frame->exit_frame.ptr && (app || (const char *)frame->exit_frame.ptr > (const char *)local);
  EXPECT(CHK_TASK_EXIT_FRAME_ABOVE_BODY, above,
         "thread #%d: task exit frame %p is not above "
         "the body's local at %p",
         t->index, frame->exit_frame.ptr, local);
  if (above)
    EXPECT(CHK_EXIT_FRAME_FLAGS, checker_frame_flags_valid(frame->exit_frame_flags),
           "thread #%d: task exit frame %p has flags 0x%x", t->index, frame->exit_frame.ptr,
           frame->exit_frame_flags);
  EXPECT(CHK_ENTER_FRAME_CLEAR_IN_TASK, !frame->enter_frame.ptr,
         "thread #%d: enter frame %p "
         "set while a task body runs",
         t->index, frame->enter_frame.ptr);
}

EXPORT void knit_ompt_checker_task_probe(const void *local)
{
  if (!checker_get_task_info)
    return;
  int flags = 0;
  ompt_data_t *td = NULL;
  ompt_frame_t *frame = NULL;
  int have0 = checker_get_task_info(0, &flags, &td, &frame, NULL, NULL);
  ancestry_t a;
  checker_ask_ancestry(&a);

  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  int d = running[t->index].depth;
  task_rec_t *r = have0 ? task_of(td) : NULL;
  /* libomp 14 answers in an if(0) task's body with the encountering task, flagged undeferred. */
  if (!checker_strict && have0 && !r && (flags & ompt_task_undeferred)) {
    pthread_mutex_unlock(&checker_mu);
    return;
  }
  bool is_task = have0 && td && frame && (flags & ompt_task_explicit) && r && d > 0 &&
                 (d > MAX_DEPTH || running[t->index].stack[d - 1] == td->value);
  EXPECT(CHK_TASK_INFO_EXPLICIT, is_task,
         "thread #%d in a task body: get_task_info(0) gave "
         "task_data %p (value 0x%llx) flags 0x%x; the task it started last is 0x%llx",
         t->index, (void *)td, td ? (unsigned long long)td->value : 0ull, flags,
         d > 0 && d <= MAX_DEPTH ? (unsigned long long)running[t->index].stack[d - 1] : 0ull);
  if (is_task) {
    bool parent = a.have_task[1] && a.task[1] == r->parent;
    EXPECT(CHK_TASK_INFO_PARENT, parent,
           "thread #%d in a task body: get_task_info(1) gave "
           "0x%llx, the task's creator is 0x%llx",
           t->index, (unsigned long long)a.task[1], (unsigned long long)r->parent);
    task_frames_locked(t, frame, local);
    checker_check_ancestry_locked(t, &a, td->value, true, parent);
  }
  pthread_mutex_unlock(&checker_mu);
}

void checker_task_final_checks_locked(void)
{
  for (size_t i = 0; i < n_tasks; i++) {
    EXPECT(CHK_TASK_SCHEDULED_ONCE, tasks[i].scheduled == 1,
           "task 0x%llx started %d times by "
           "finalize",
           (unsigned long long)(TASK_TAG | i), tasks[i].scheduled);
    EXPECT(CHK_TASK_COMPLETED_ONCE, tasks[i].completed == 1,
           "task 0x%llx completed %d times "
           "by finalize",
           (unsigned long long)(TASK_TAG | i), tasks[i].completed);
  }
}

void checker_register_task_callbacks(void)
{
  REGISTER(ompt_callback_task_create, on_task_create);
  REGISTER(ompt_callback_task_schedule, on_task_schedule);
  REGISTER(ompt_callback_dependences, on_dependences);
  REGISTER(ompt_callback_task_dependence, on_task_dependence);
}

/* From a task's body: block 0 of the task's memory holds its firstprivate variable. */
EXPORT void knit_ompt_checker_task_memory(const void *firstprivate, unsigned long size)
{
  if (!checker_get_task_memory)
    return; /* no tool session, or the runtime has no such entry point */
  void *addr = NULL;
  size_t len = 0;
  int more = checker_get_task_memory(&addr, &len, 0);
  const char *lo = addr, *fp = firstprivate;
  bool holds = lo && fp >= lo && fp + size <= lo + len;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  EXPECT(CHK_TASK_MEMORY, holds,
         "thread #%d in a task body: ompt_get_task_memory(block 0) answered %d with %zu bytes at "
         "%p; the task's firstprivate is %lu bytes at %p",
         t->index, more, len, addr, size, firstprivate);
  pthread_mutex_unlock(&checker_mu);
}
