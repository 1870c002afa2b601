/*
 * The OMPT checker's synchronization: sync regions and their waits (they
 * pair up per thread, a wait inside its region), barriers (the enter frame
 * and the state while a task waits) and mutexes (wait ids, the state at
 * mutex_acquire, and which acquire a thread still waits for, which the
 * sampled wait states of checker_await.c key on).  libomp 14 clears the
 * enter frame in implicit barriers and sets a wait state only after the
 * callback; both are KNIT checks of their own (conform/checks.def), so its report
 * says so without failing the SPEC ones.
 */
#include <stdio.h>

#include "checker_state.h"

bool checker_is_barrier_kind(int kind)
{
  return kind == ompt_sync_region_barrier || kind == ompt_sync_region_barrier_implicit ||
         kind == ompt_sync_region_barrier_explicit ||
         kind == ompt_sync_region_barrier_implementation ||
         kind == ompt_sync_region_barrier_implicit_workshare ||
         kind == ompt_sync_region_barrier_implicit_parallel ||
         kind == ompt_sync_region_barrier_teams;
}

static const char *const sync_names[] = {
    [ompt_sync_region_barrier] = "barrier",
    [ompt_sync_region_barrier_implicit] = "barrier_implicit",
    [ompt_sync_region_barrier_explicit] = "barrier_explicit",
    [ompt_sync_region_barrier_implementation] = "barrier_implementation",
    [ompt_sync_region_taskwait] = "taskwait",
    [ompt_sync_region_taskgroup] = "taskgroup",
    [ompt_sync_region_reduction] = "reduction",
    [ompt_sync_region_barrier_implicit_workshare] = "barrier_implicit_workshare",
    [ompt_sync_region_barrier_implicit_parallel] = "barrier_implicit_parallel",
    [ompt_sync_region_barrier_teams] = "barrier_teams",
};

static const char *sync_name(int kind)
{
  return kind > 0 && kind < (int)(sizeof sync_names / sizeof sync_names[0]) && sync_names[kind]
             ? sync_names[kind]
             : "?";
}

/* What is innermost on the thread's stack of sync regions and waits, for evidence. */
static void describe_top(const thread_rec_t *t, char *buf, size_t len)
{
  int top = (t->nsync < MAX_OPEN ? t->nsync : MAX_OPEN) - 1;
  if (top < 0)
    snprintf(buf, len, "nothing is open");
  else
    snprintf(buf, len, "the innermost open is a %s %s", sync_name(t->sync[top].kind),
             t->sync[top].wait ? "wait" : "region");
}

static void push_sync_locked(thread_rec_t *t, int kind, bool wait)
{
  if (t->nsync < MAX_OPEN) {
    t->sync[t->nsync].kind = kind;
    t->sync[t->nsync].wait = wait;
  }
  t->nsync++;
}

/* Closes the innermost entry if it is what the end names; else reports
 * against check and closes the nearest match, so one lost event is
 * reported once. */
static void pop_sync_locked(thread_rec_t *t, check_id check, int kind, bool wait, const char *what)
{
  int top = (t->nsync < MAX_OPEN ? t->nsync : MAX_OPEN) - 1;
  bool innermost = top >= 0 && t->sync[top].kind == kind && t->sync[top].wait == wait;
  if (!innermost) {
    char open[96];
    describe_top(t, open, sizeof open);
    checker_violate(check, "%s end (%s) on thread #%d: %s", what, sync_name(kind), t->index, open);
  } else {
    checker_held(check);
  }
  for (int i = top; i >= 0; i--) {
    if (t->sync[i].kind == kind && t->sync[i].wait == wait) {
      t->nsync = i;
      return;
    }
  }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr)
{
  (void)parallel_data, (void)task_data, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_sync_region, "sync_region");
  if (endpoint == ompt_scope_begin)
    push_sync_locked(t, (int)kind, false);
  else
    pop_sync_locked(t, CHK_SYNC_REGION_PAIRED, (int)kind, false, "sync_region");
  pthread_mutex_unlock(&checker_mu);
}

/* A wait begins inside an open region of its kind (with no wait of its own yet). */
static void wait_begin_locked(thread_rec_t *t, int kind)
{
  int top = (t->nsync < MAX_OPEN ? t->nsync : MAX_OPEN) - 1;
  bool inside = top >= 0 && t->sync[top].kind == kind && !t->sync[top].wait;
  char open[96];
  describe_top(t, open, sizeof open);
  EXPECT(CHK_SYNC_WAIT_NESTED, inside, "sync_region_wait begin (%s) on thread #%d: %s",
         sync_name(kind), t->index, open);
  push_sync_locked(t, kind, true);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr)
{
  (void)parallel_data, (void)task_data, (void)codeptr;
  /* Ask before taking the mutex: the answers are about this moment. */
  ompt_frame_t *frame = NULL;
  ompt_wait_id_t wait_id = 0;
  int have = checker_get_task_info(0, NULL, NULL, &frame, NULL, NULL);
  int state = checker_get_state(&wait_id);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_sync_region_wait, "sync_region_wait");
  if (endpoint == ompt_scope_begin)
    wait_begin_locked(t, (int)kind);
  else
    pop_sync_locked(t, CHK_SYNC_WAIT_NESTED, (int)kind, true, "sync_region_wait");
  /* An implicit barrier is not asked for an enter frame: at a join the
   * body has returned, and no frame of the task's own is left to cut at
   * (libomp 14 sets none there). */
  if (endpoint == ompt_scope_begin && kind == ompt_sync_region_barrier_explicit)
    EXPECT(CHK_ENTER_FRAME_IN_BARRIER, have && frame && frame->enter_frame.ptr,
           "barrier wait (kind %d) on thread #%d: the task's enter frame is NULL", (int)kind,
           t->index);
  /* At the begin the runtime may not have entered its wait state yet
   * (libomp 14 has not); at the end it has not left it. */
  if (endpoint == ompt_scope_end && checker_is_barrier_kind((int)kind))
    EXPECT(CHK_BARRIER_WAIT_STATE,
           state >= ompt_state_wait_barrier && state <= ompt_state_wait_barrier_teams,
           "barrier wait (kind %d) on thread #%d: state 0x%x at its end, not a wait_barrier "
           "state",
           (int)kind, t->index, state);
  pthread_mutex_unlock(&checker_mu);
}

static bool lock_kind(ompt_mutex_t kind)
{
  return kind == ompt_mutex_lock || kind == ompt_mutex_test_lock;
}

static void check_lock_id_locked(thread_rec_t *t, const char *what, ompt_mutex_t kind,
                                 ompt_wait_id_t wait_id)
{
  if (lock_kind(kind))
    EXPECT(CHK_LOCK_WAIT_ID, checker_is_lock(wait_id),
           "%s on thread #%d: wait id 0x%llx is "
           "not the address of any lock the program has",
           what, t->index, (unsigned long long)wait_id);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)hint, (void)impl, (void)codeptr;
  ompt_wait_id_t state_id = 0;
  int state = checker_get_state(&state_id);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_mutex_acquire, "mutex_acquire");
  check_lock_id_locked(t, "mutex_acquire", kind, wait_id);
  /* A failed test comes with no acquired: only a blocking acquire waits. */
  t->acq_pending = kind != ompt_mutex_test_lock && kind != ompt_mutex_test_nest_lock;
  t->acq_kind = (int)kind;
  t->acq_id = wait_id;
  /* A thread waiting for its ordered turn names the same wait id in its state. */
  if (kind == ompt_mutex_ordered)
    EXPECT(CHK_ORDERED_WAIT_ID, state == ompt_state_wait_ordered && state_id == wait_id,
           "mutex_acquire (ordered) on thread #%d: state 0x%x wait id 0x%llx, expected "
           "wait_ordered on 0x%llx",
           t->index, state, (unsigned long long)state_id, (unsigned long long)wait_id);
  if (kind == ompt_mutex_lock)
    EXPECT(CHK_LOCK_WAIT_STATE, state == ompt_state_wait_lock && state_id == wait_id,
           "mutex_acquire on thread #%d: state 0x%x wait id 0x%llx, expected wait_lock on "
           "0x%llx",
           t->index, state, (unsigned long long)state_id, (unsigned long long)wait_id);
  if (kind == ompt_mutex_atomic)
    EXPECT(CHK_ATOMIC_WAIT_STATE, state == ompt_state_wait_atomic && state_id == wait_id,
           "mutex_acquire (atomic) on thread #%d: state %s (0x%x) wait id 0x%llx, expected "
           "wait_atomic on 0x%llx",
           t->index, checker_state_name(state), state, (unsigned long long)state_id,
           (unsigned long long)wait_id);
  pthread_mutex_unlock(&checker_mu);
}

/* The lock events after the wait: only their wait ids are checked. */
static void on_lock_event(ompt_callbacks_t which, const char *what, ompt_mutex_t kind,
                          ompt_wait_id_t wait_id)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(which, what);
  check_lock_id_locked(t, what, kind, wait_id);
  pthread_mutex_unlock(&checker_mu);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  on_lock_event(ompt_callback_mutex_acquired, "mutex_acquired", kind, wait_id);
  pthread_mutex_lock(&checker_mu);
  checker_me_locked()->acq_pending = false;
  pthread_mutex_unlock(&checker_mu);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  on_lock_event(ompt_callback_mutex_released, "mutex_released", kind, wait_id);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                         ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)hint, (void)impl, (void)codeptr;
  on_lock_event(ompt_callback_lock_init, "lock_init", kind, wait_id);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  on_lock_event(ompt_callback_lock_destroy, "lock_destroy", kind, wait_id);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                         const void *codeptr)
{
  (void)endpoint, (void)wait_id, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_nest_lock, "nest_lock");
  /* An owner's acquire of its nest lock (libomp 14 sends mutex_acquire
   * first) ends here, with no mutex_acquired: it waited for nothing. */
  if (endpoint == ompt_scope_begin)
    t->acq_pending = false;
  pthread_mutex_unlock(&checker_mu);
}

void checker_sync_final_checks_locked(void)
{
  for (int i = 0; i < checker_n_threads; i++) {
    thread_rec_t *t = &checker_threads[i];
    char open[96];
    describe_top(t, open, sizeof open);
    EXPECT(CHK_SYNC_REGION_PAIRED, t->nsync == 0,
           "thread #%d at finalize: %d sync regions and "
           "waits never ended; %s",
           t->index, t->nsync, open);
  }
}

void checker_register_sync_callbacks(void)
{
  REGISTER(ompt_callback_sync_region, on_sync_region);
  REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
  REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
  REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
  REGISTER(ompt_callback_mutex_released, on_mutex_released);
  REGISTER(ompt_callback_lock_init, on_lock_init);
  REGISTER(ompt_callback_lock_destroy, on_lock_destroy);
  REGISTER(ompt_callback_nest_lock, on_nest_lock);
}
