/*
 * The OMPT checker's probe from an outlined body (checker.h): the inquiry
 * functions' answers compared with what the program knows there.  Level 0
 * must be the implicit task whose begin this thread saw, with the thread
 * number and team size OpenMP gave the body, an exit frame that is the
 * frame of the runtime function that called the body (checker_caller.c
 * finds it), no enter frame and state work_parallel; level 1 (the
 * encountering task) must be waiting in the runtime, so it has an enter
 * frame; every level further out is what the events said
 * (checker_ancestors.c).
 */
#include <stdio.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

static const char *frame_kind(int flags)
{
  return flags & ompt_frame_cfa ? "CFA" : "frame pointer";
}

static void check_exit_frame_locked(const ompt_frame_t *frame, const char *local,
                                    const body_caller_t *caller, int thread_num)
{
  const char *exit = frame->exit_frame.ptr;
  int flags = frame->exit_frame_flags;
  /* Stacks grow down on every ISA knit supports: the body is below its exit frame. */
  EXPECT(CHK_EXIT_FRAME_ABOVE_BODY, exit && exit > local,
         "thread %d: exit frame %p is not "
         "above the body's local at %p",
         thread_num, (const void *)exit, (const void *)local);
  if (!exit)
    return;
  bool valid = checker_frame_flags_valid(flags);
  EXPECT(CHK_EXIT_FRAME_FLAGS, valid, "thread %d: exit frame %p has flags 0x%x", thread_num,
         (const void *)exit, flags);
  if (!valid)
    return;
  if (!caller->found) {
    checker_violate(CHK_EXIT_FRAME_IS_CALLERS, "thread %d: the body returns into %s, but %s",
                    thread_num, caller->name, caller->why);
    return;
  }
  /* An application frame is the program's own: its body is called by the program. */
  bool app = (flags & ompt_frame_application) != 0;
  const void *want = flags & ompt_frame_cfa ? caller->cfa : caller->fp;
  EXPECT(CHK_EXIT_FRAME_IS_CALLERS, exit == want && caller->in_runtime != app,
         "thread %d: "
         "exit frame %p, flags 0x%x (a %s); the body returns into %s%s, whose CFA is %p and "
         "frame pointer %p",
         thread_num, (const void *)exit, flags, frame_kind(flags), caller->name,
         caller->in_runtime ? "" : ", outside the runtime", caller->cfa, caller->fp);
  checker_note(CHK_EXIT_FRAME_IS_CALLERS, "the body's caller: %s; the exit frame is its %s",
               caller->name, frame_kind(flags));
}

EXPORT void knit_ompt_checker_probe(const void *local, const void *ra, int thread_num,
                                    int team_size)
{
  if (!checker_get_task_info)
    return; /* no tool session: nothing to compare */
  int flags = 0, tn = -1, size = -1;
  ompt_data_t *td = NULL, *pd = NULL, *pd2 = NULL, *td1 = NULL;
  ompt_frame_t *frame = NULL, *frame1 = NULL;
  int have0 = checker_get_task_info(0, &flags, &td, &frame, &pd, &tn);
  int have1 = checker_get_task_info(1, NULL, &td1, &frame1, NULL, NULL);
  int havep = checker_get_parallel_info(0, &pd2, &size);
  int state = checker_get_state(NULL);
  ancestry_t a;
  checker_ask_ancestry(&a);
  body_caller_t caller;
  checker_find_body_caller(ra, &caller);

  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  EXPECT(CHK_STATE_IN_BODY, state == ompt_state_work_parallel,
         "thread %d in an outlined body: "
         "state 0x%x, not work_parallel",
         thread_num, state);
  bool answered = have0 && frame && td;
  EXPECT(CHK_TASK_INFO_LEVEL0, answered,
         "thread %d in an outlined body: get_task_info(0) "
         "answered nothing",
         thread_num);
  if (answered) {
    EXPECT(CHK_TASK_INFO_LEVEL0,
           (flags & ompt_task_implicit) && top >= 0 && t->imp[top].value == td->value,
           "thread %d in an outlined body: get_task_info(0) gave task_data %p flags 0x%x, its "
           "implicit_task began with %p",
           thread_num, (void *)td, flags, top >= 0 ? (void *)t->imp[top].td : NULL);
    EXPECT(CHK_TASK_INFO_THREAD_NUM, tn == thread_num,
           "get_task_info(0) says thread_num %d, "
           "omp_get_thread_num() %d",
           tn, thread_num);
    check_exit_frame_locked(frame, local, &caller, thread_num);
    EXPECT(CHK_ENTER_FRAME_CLEAR_IN_BODY, !frame->enter_frame.ptr,
           "thread %d: enter frame %p "
           "set while the body runs",
           thread_num, frame->enter_frame.ptr);
  }
  EXPECT(CHK_ENTER_FRAME_AT_FORK, have1 && frame1 && frame1->enter_frame.ptr,
         "thread %d in an "
         "outlined body: the encountering task (level 1) has no enter frame",
         thread_num);
  EXPECT(CHK_PARALLEL_INFO_LEVEL0, havep && size == team_size && pd2 == pd,
         "thread %d: "
         "get_parallel_info(0) says team size %d parallel_data %p; omp_get_num_threads() %d, "
         "get_task_info %p",
         thread_num, size, (void *)pd2, team_size, (void *)pd);
  if (answered)
    checker_check_ancestry_locked(t, &a, td->value, false, true);
  if (top >= 0)
    EXPECT(CHK_TEAM_SIZE_CONSISTENT, t->imp[top].size == (unsigned)team_size,
           "thread %d: "
           "implicit_task said team size %u, omp_get_num_threads() %d",
           thread_num, t->imp[top].size, team_size);
  pthread_mutex_unlock(&checker_mu);
}
