/*
 * The task pool: explicit tasks of a team, their creation, scheduling,
 * completion, and the scheduling points that wait for them (taskwait,
 * taskgroup end, taskyield, barriers).
 *
 * One queue per team holds the tasks that are ready (every predecessor
 * complete), under one lock word; correctness over speed.  A thread with
 * nothing to run sleeps on the queue's futex word, which moves whenever a
 * task is queued or completes, so a long wait costs no CPU (under QEMU a
 * spinning waiter would starve the thread it waits for).
 *
 * Which thread may run a queued task:
 * - Tied and untied tasks are both treated as tied (always legal).  A
 *   thread whose current task is explicit (it waits in a taskwait, a
 *   taskgroup end or a taskyield inside that task) runs only descendants of
 *   it, which is the task scheduling constraint for tied tasks; a thread
 *   whose current task is implicit runs any task of the team.
 * - A team of one thread runs every task at once, as its creator's
 *   undeferred child: no other thread could run it, and running a task at
 *   its creation is a legal schedule.
 * - Deterministic mode (MOCKRT_DETERMINISTIC=1): a thread runs only the
 *   tasks it created itself, in the order they became ready (creation
 *   order, unless dependences hold one back), at its next scheduling point.
 *   Every thread then runs the same tasks in the same order and sees the
 *   same events in the same order in every run.  Others wait in their
 *   barrier until the creators have run all of them.
 *
 * Priorities: the ready queue is kept in decreasing priority, in the order
 * tasks became ready among equals, so the first task a thread may run is
 * the one of highest priority.  Deterministic mode stays deterministic: a
 * thread's own tasks keep an order that depends on nothing but its own
 * creations.
 *
 * Detachable tasks (detach clause): a task whose body ends before its event
 * is fulfilled stays incomplete (its parent's taskwait, its taskgroup, the
 * barrier and its dependents wait) until omp_fulfill_event completes it,
 * on whatever thread calls it.
 *
 * OMPT: task_create when a task is created, dependences and task_dependence
 * for its edges, task_schedule (prior, ompt_task_switch or ompt_task_yield,
 * next) when a thread starts a task and (task, ompt_task_complete, the task
 * it resumes) when the task ends, or (task, ompt_task_detach, the task it
 * resumes) when a detachable task's body ends first and (task,
 * ompt_task_complete, NULL) at the fulfilment (OpenMP 5.0 semantics; with
 * mockrt_fulfill_statuses, 5.1's as libomp 14 sends them: the fulfilment is
 * (task, ompt_task_late_fulfill, NULL) after the body's detach, and (task,
 * ompt_task_early_fulfill, NULL) while the body still runs, whose end is
 * then an ordinary ompt_task_complete).  A
 * task is the thread's current task (mockrt_self()->task) exactly while
 * its body runs.
 */
#include "task.h"
#include "fault.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void mockrt_task_team_init(mockrt_team_t *team)
{
  mockrt_team_tasks_t *q = &team->tasks;
  atomic_init(&q->lock, 0);
  q->head = q->tail = NULL;
  atomic_init(&q->unfinished, 0);
  atomic_init(&q->wake, 0);
  atomic_init(&q->sleepers, 0);
}

static void mockrt_task_wake(mockrt_team_tasks_t *q)
{
  atomic_fetch_add(&q->wake, 1);
  if (atomic_load(&q->sleepers))
    mockrt_futex_wake(&q->wake, INT_MAX);
}

static bool mockrt_is_explicit(const mockrt_task_t *t)
{
  return t && (t->flags & ompt_task_explicit);
}

static int mockrt_task_work_state(const mockrt_team_t *team)
{
  return team->level > 0 ? ompt_state_work_parallel : ompt_state_work_serial;
}

/* ---- lifetime ---- */

/* Drop one reference; the last one frees the task and drops its hold on its parent. */
static void mockrt_task_release(mockrt_xtask_t *x)
{
  while (x && atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) == 1) {
    mockrt_task_t *parent = x->task.parent;
    if (x->release)
      x->release(x);
    free(x->deps);
    free(x->succ);
    free(x);
    x = mockrt_is_explicit(parent) ? (mockrt_xtask_t *)parent : NULL;
  }
}

mockrt_xtask_t *mockrt_task_new(size_t extra, int flags)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *parent = self->task;
  mockrt_xtask_t *x = calloc(1, MOCKRT_XTASK_HDR + extra);

  if (!x)
    abort();
  flags |= ompt_task_explicit;
  /* A task created in a final task is included: final itself, and undeferred. */
  if (parent->flags & ompt_task_final)
    flags |= ompt_task_final | ompt_task_undeferred;
  x->task.parent = parent;
  x->task.team = parent->team;
  x->task.thread_num = parent->thread_num;
  x->task.flags = flags;
  x->task.nthreads_var = parent->nthreads_var;
  x->owner = self;
  x->data_size = extra;
  x->undeferred = (flags & ompt_task_undeferred) != 0;
  if (parent->taskgroup)
    x->group = parent->taskgroup;
  else if (mockrt_is_explicit(parent))
    x->group = ((mockrt_xtask_t *)parent)->group;
  /* One for its completion, one its creator holds until it is submitted. */
  atomic_init(&x->refs, 2);
  return x;
}

void mockrt_task_discard(mockrt_xtask_t *x)
{
  if (x->release)
    x->release(x);
  free(x->deps);
  free(x);
}

/* ---- the ready queue ---- */

void mockrt_task_ready_locked(mockrt_xtask_t *x)
{
  /* An undeferred task's creator waits for it to be ready and runs it. */
  if (x->undeferred)
    return;
  mockrt_team_tasks_t *q = &x->task.team->tasks;
  x->next = NULL;
  if (!q->tail || q->tail->priority >= x->priority) {
    if (q->tail)
      q->tail->next = x;
    else
      __atomic_store_n(&q->head, x, __ATOMIC_RELEASE); /* read without the lock */
    q->tail = x;
    return;
  }
  /* Before the first task of lower priority (the tail is one: the walk stops). */
  mockrt_xtask_t **pp = &q->head;
  while ((*pp)->priority >= x->priority)
    pp = &(*pp)->next;
  x->next = *pp;
  __atomic_store_n(pp, x, __ATOMIC_RELEASE); /* q->head, maybe: read without the lock */
}

int mockrt_task_max_priority(void)
{
  static int max = -1;
  int v = __atomic_load_n(&max, __ATOMIC_RELAXED);
  if (v < 0) {
    const char *s = getenv("OMP_MAX_TASK_PRIORITY");
    long p = s ? strtol(s, NULL, 10) : 0;
    v = p <= 0 ? 0 : p > INT_MAX ? INT_MAX : (int)p;
    __atomic_store_n(&max, v, __ATOMIC_RELAXED);
  }
  return v;
}

void mockrt_task_set_priority(mockrt_xtask_t *x, int priority)
{
  int max = mockrt_task_max_priority();
  x->priority = priority <= 0 ? 0 : priority > max ? max : priority;
}

static bool mockrt_task_may_run(const mockrt_thread_t *self, const mockrt_xtask_t *x)
{
  if (mockrt_icv.deterministic && x->owner != self)
    return false;
  const mockrt_task_t *cur = self->task;
  if (!mockrt_is_explicit(cur))
    return true;
  for (const mockrt_task_t *t = x->task.parent; mockrt_is_explicit(t); t = t->parent) {
    if (t == cur)
      return true;
  }
  return false;
}

/* Unqueue the first task this thread may run, or NULL. */
static mockrt_xtask_t *mockrt_task_take(mockrt_thread_t *self, mockrt_team_tasks_t *q)
{
  if (!__atomic_load_n(&q->head, __ATOMIC_ACQUIRE))
    return NULL;
  mockrt_word_lock(&q->lock);
  mockrt_xtask_t *prev = NULL, *x = q->head;
  for (; x; prev = x, x = x->next) {
    if (!mockrt_task_may_run(self, x))
      continue;
    if (prev)
      prev->next = x->next;
    else
      __atomic_store_n(&q->head, x->next, __ATOMIC_RELEASE); /* read without the lock */
    if (q->tail == x)
      q->tail = prev;
    break;
  }
  mockrt_word_unlock(&q->lock);
  return x;
}

/* ---- running a task ---- */

/*
 * The task is current, in its work state, before task_schedule: inside the
 * callback the inquiries answer for the task being scheduled, as libomp
 * 14's do.  prior is the task the thread ran until now (an undeferred
 * task's switch has made it current already).
 */
static void mockrt_task_switch_in_from(mockrt_thread_t *self, mockrt_xtask_t *x,
                                       mockrt_task_t *prior, int status)
{
  x->task.thread_num = prior->thread_num;
  /* Filled in before a signal handler can see it. */
  atomic_signal_fence(memory_order_seq_cst);
  self->task = &x->task;
  atomic_signal_fence(memory_order_seq_cst);
  mockrt_set_state(self, mockrt_task_work_state(x->task.team));
  if (mockrt_ompt.task_schedule)
    mockrt_ompt.task_schedule(mockrt_fault(MOCKRT_FAULT_TASK_SCHEDULE_PRIOR_WRONG)
                                  ? &x->task.task_data
                                  : &prior->task_data,
                              (ompt_task_status_t)status, &x->task.task_data);
}

void mockrt_task_invoked(mockrt_xtask_t *x)
{
  mockrt_task_t *prior = x->switch_prior;
  if (!prior)
    return;
  x->switch_prior = NULL;
  mockrt_task_switch_in_from(&mockrt_self_tls, x, prior, x->switch_status);
}

static void mockrt_task_complete(mockrt_xtask_t *x)
{
  mockrt_team_tasks_t *q = &x->task.team->tasks;
  mockrt_task_t *parent = x->task.parent;
  mockrt_taskgroup_t *group = x->group;

  mockrt_word_lock(&q->lock);
  x->complete = true;
  if (x->ndeps)
    mockrt_dep_finish_locked(x);
  mockrt_word_unlock(&q->lock);
  atomic_fetch_sub(&parent->children, 1);
  /* The group may be freed by its owner at once: its last use. */
  if (group)
    atomic_fetch_sub(&group->pending, 1);
  mockrt_task_release(x);
  /* The team outlives this: the barrier waits for unfinished and for this thread. */
  atomic_fetch_sub(&q->unfinished, 1);
  mockrt_task_wake(q);
}

/* ---- detachable tasks ---- */

void mockrt_task_make_detachable(mockrt_xtask_t *x)
{
  x->detachable = true;
  x->event = MOCKRT_EVENT_PENDING;
  atomic_init(&x->event_lock, 0);
}

/*
 * The body of a detachable task has ended: true if its event is not yet
 * fulfilled, and the task is then detached (the event is dispatched under
 * the lock, so that a fulfilment cannot report the completion before it).
 * After the unlock x may be freed at any time by the fulfilment.
 */
static bool mockrt_task_detach(mockrt_xtask_t *x, mockrt_task_t *prior)
{
  bool detached = false;
  mockrt_word_lock(&x->event_lock);
  if (x->event == MOCKRT_EVENT_PENDING) {
    x->event = MOCKRT_EVENT_DETACHED;
    detached = true;
    if (mockrt_ompt.task_schedule)
      mockrt_ompt.task_schedule(&x->task.task_data, ompt_task_detach, &prior->task_data);
  }
  mockrt_word_unlock(&x->event_lock);
  return detached;
}

void mockrt_task_fulfill(mockrt_xtask_t *x)
{
  if (!x || !x->detachable)
    return; /* not an event of a detach clause: the program's bug */
  mockrt_word_lock(&x->event_lock);
  int was = x->event;
  x->event = MOCKRT_EVENT_FULFILLED;
  mockrt_word_unlock(&x->event_lock);
  if (was == MOCKRT_EVENT_PENDING && mockrt_fulfill_statuses && mockrt_ompt.task_schedule)
    mockrt_ompt.task_schedule(&x->task.task_data, ompt_task_early_fulfill, NULL);
  if (was != MOCKRT_EVENT_DETACHED)
    return; /* the body's end completes it (or a second fulfilment) */
  if (mockrt_ompt.task_schedule)
    mockrt_ompt.task_schedule(&x->task.task_data,
                              mockrt_fulfill_statuses ? ompt_task_late_fulfill : ompt_task_complete,
                              NULL);
  mockrt_task_complete(x);
}

static bool mockrt_task_is_complete(void *arg)
{
  return __atomic_load_n(&((mockrt_xtask_t *)arg)->complete, __ATOMIC_ACQUIRE);
}

/*
 * Back to prior (unpublish first), task_schedule complete, then completion;
 * a detachable task whose event is still pending is detached instead.
 */
/* Whether the task's taskgroup was cancelled: a task not yet started is
 * then discarded, and every task of the group ends with status cancel, as
 * on libomp 14. */
static bool mockrt_task_cancelled(const mockrt_xtask_t *x)
{
  return x->group && atomic_load_explicit(&x->group->cancelled, memory_order_acquire);
}

static void mockrt_task_switch_out(mockrt_thread_t *self, mockrt_xtask_t *x, mockrt_task_t *prior)
{
  atomic_signal_fence(memory_order_seq_cst);
  self->task = prior;
  atomic_signal_fence(memory_order_seq_cst);
  mockrt_set_state(self, ompt_state_overhead);
  if (x->detachable && mockrt_task_detach(x, prior))
    return;
  if (mockrt_ompt.task_schedule)
    mockrt_ompt.task_schedule(&x->task.task_data,
                              mockrt_task_cancelled(x) ? ompt_task_cancel : ompt_task_complete,
                              &prior->task_data);
  mockrt_task_complete(x);
}

__attribute__((noinline, cold)) static void mockrt_task_run_observed(mockrt_thread_t *self,
                                                                     mockrt_xtask_t *x, int status)
{
  mockrt_task_t *prior = self->task;
  int state = self->state;
  if (!mockrt_task_cancelled(x)) {
    /* The switch happens inside the invoke, after its exit frame store. */
    x->switch_prior = prior;
    x->switch_status = status;
    x->invoke(x);
  } else if (mockrt_ompt.cancel) {
    /* Discarded as libomp 14 discards it: never switched to, its cancel
     * event, then its end (status cancel). */
    mockrt_ompt.cancel(&x->task.task_data, ompt_cancel_taskgroup | ompt_cancel_discarded_task,
                       NULL);
  }
  mockrt_task_switch_out(self, x, prior);
  mockrt_set_state(self, state);
}

/* With tool false: no events, no states; the task is current while its body runs. */
static inline __attribute__((always_inline)) void
mockrt_task_run_ex(mockrt_thread_t *self, mockrt_xtask_t *x, int status, const bool tool)
{
  if (tool) {
    mockrt_task_run_observed(self, x, status);
    return;
  }
  mockrt_task_t *prior = self->task;
  x->task.thread_num = prior->thread_num;
  atomic_signal_fence(memory_order_seq_cst);
  self->task = &x->task;
  atomic_signal_fence(memory_order_seq_cst);
  if (!mockrt_task_cancelled(x))
    x->invoke(x);
  atomic_signal_fence(memory_order_seq_cst);
  self->task = prior;
  atomic_signal_fence(memory_order_seq_cst);
  /* A detachable task whose event is still pending completes at its fulfilment. */
  if (x->detachable && mockrt_task_detach(x, prior))
    return;
  mockrt_task_complete(x);
}

static inline __attribute__((always_inline)) void mockrt_task_run(mockrt_thread_t *self,
                                                                  mockrt_xtask_t *x, int status)
{
  mockrt_task_run_ex(self, x, status, MOCKRT_OMPT_ON);
}

/*
 * Run tasks until done(arg) holds, sleeping when there is nothing this
 * thread may run.  The wake word is read before the test, so a change after
 * the test makes the futex wait return at once.
 */
typedef bool (*mockrt_task_done_t)(void *arg);
static void mockrt_task_wait(mockrt_thread_t *self, mockrt_task_done_t done, void *arg)
{
  mockrt_team_tasks_t *q = &self->task->team->tasks;
  int spins = 0; /* as in mockrt_task_barrier */
  for (;;) {
    unsigned w = atomic_load(&q->wake);
    if (done(arg))
      return;
    mockrt_xtask_t *x = mockrt_task_take(self, q);
    if (x) {
      mockrt_task_run(self, x, ompt_task_switch);
      continue;
    }
    if (mockrt_spin(&spins, MOCKRT_SPIN_WAIT))
      continue;
    atomic_fetch_add(&q->sleepers, 1);
    mockrt_futex_wait(&q->wake, w);
    atomic_fetch_sub(&q->sleepers, 1);
  }
}

static bool mockrt_counter_zero(void *arg)
{
  return atomic_load((atomic_int *)arg) == 0;
}

/*
 * A cancellable barrier's arrival (cancel.c): the calling thread runs the
 * team's tasks until none is unfinished.  Every thread drains before it
 * arrives, so when the last one arrives every task created before the
 * barrier is complete, as a barrier requires; the cancellable barrier
 * itself has no task queue of its own to wake its sleepers with.
 */
static bool mockrt_unfinished_zero(void *arg)
{
  return atomic_load((atomic_uint *)arg) == 0;
}

void mockrt_task_drain(mockrt_task_t *task)
{
  mockrt_team_tasks_t *q = &task->team->tasks;
  if (atomic_load(&q->unfinished) != 0)
    mockrt_task_wait(&mockrt_self_tls, mockrt_unfinished_zero, &q->unfinished);
}

static bool mockrt_task_ready(void *arg)
{
  return __atomic_load_n(&((mockrt_xtask_t *)arg)->npred, __ATOMIC_ACQUIRE) == 0;
}

/* ---- creation ---- */

__attribute__((noinline, cold)) static void
mockrt_task_dispatch_create(mockrt_xtask_t *x, int ndeps, const void *codeptr)
{
  mockrt_task_t *parent = x->task.parent;
  mockrt_team_t *team = x->task.team;
  atomic_store_explicit(&team->task_gen,
                        atomic_load_explicit(&team->barrier.gen, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  if (mockrt_ompt.task_create)
    mockrt_ompt.task_create(&parent->task_data, &parent->frame, &x->task.task_data, x->task.flags,
                            ndeps > 0, codeptr);
  if (ndeps > 0 && mockrt_ompt.dependences) {
    ompt_dependence_t *d = malloc(sizeof *d * (size_t)ndeps);
    if (!d)
      abort();
    for (int i = 0; i < ndeps; i++) {
      d[i].variable.ptr = x->deps[i].addr;
      d[i].dependence_type = (ompt_dependence_type_t)x->deps[i].type;
    }
    mockrt_ompt.dependences(&x->task.task_data, d, ndeps);
    free(d);
  }
}

/* Count x as a child, a group member and an unfinished task of the team. */
static void mockrt_task_count_locked(mockrt_xtask_t *x)
{
  mockrt_task_t *parent = x->task.parent;
  atomic_fetch_add(&parent->children, 1);
  if (x->group)
    atomic_fetch_add(&x->group->pending, 1);
  if (mockrt_is_explicit(parent))
    atomic_fetch_add(&((mockrt_xtask_t *)parent)->refs, 1);
  atomic_fetch_add(&x->task.team->tasks.unfinished, 1);
}

/* Compiled twice, as the entry points of team.c are: tool is a constant in each. */
static inline __attribute__((always_inline)) void
mockrt_task_submit_body(mockrt_xtask_t *x, const mockrt_dep_t *deps, int ndeps, const void *codeptr,
                        const bool tool)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_team_tasks_t *q = &x->task.team->tasks;
  mockrt_xtask_t **preds = NULL;
  int npreds = 0;

  if (ndeps > 0) {
    x->deps = malloc(sizeof *x->deps * (size_t)ndeps);
    if (!x->deps)
      abort();
    memcpy(x->deps, deps, sizeof *x->deps * (size_t)ndeps);
    x->ndeps = ndeps;
  }
  if (x->task.team->nthreads <= 1)
    x->undeferred = true;
  if (tool)
    mockrt_task_dispatch_create(x, ndeps, codeptr);
  mockrt_word_lock(&q->lock);
  mockrt_task_count_locked(x);
  if (ndeps > 0)
    npreds = mockrt_dep_link_locked(x, x->task.parent, &preds);
  if (x->npred == 0)
    mockrt_task_ready_locked(x);
  mockrt_word_unlock(&q->lock);
  for (int i = 0; i < npreds; i++) {
    if (tool && mockrt_ompt.task_dependence)
      mockrt_ompt.task_dependence(&preds[i]->task.task_data, &x->task.task_data);
    mockrt_task_release(preds[i]);
  }
  free(preds);
  if (x->undeferred) {
    mockrt_task_wait(self, mockrt_task_ready, x);
    mockrt_task_run_ex(self, x, ompt_task_switch, tool);
    /* An undeferred task is complete before its creator goes on; a task the
     * mock merely runs at once (a team of one) is not waited for. */
    if (x->detachable && (x->task.flags & ompt_task_undeferred))
      mockrt_task_wait(self, mockrt_task_is_complete, x);
  } else {
    mockrt_task_wake(q);
  }
  mockrt_task_release(x);
}

__attribute__((noinline, cold)) static void mockrt_task_submit_observed(mockrt_xtask_t *x,
                                                                        const mockrt_dep_t *deps,
                                                                        int ndeps,
                                                                        const void *codeptr)
{
  mockrt_task_submit_body(x, deps, ndeps, codeptr, true);
}

void mockrt_task_submit_plain(mockrt_xtask_t *x, const mockrt_dep_t *deps, int ndeps,
                              const void *codeptr)
{
  mockrt_task_submit_body(x, deps, ndeps, codeptr, false);
}

void mockrt_task_submit(mockrt_xtask_t *x, const mockrt_dep_t *deps, int ndeps, const void *codeptr)
{
  if (MOCKRT_OMPT_ON)
    mockrt_task_submit_observed(x, deps, ndeps, codeptr);
  else
    mockrt_task_submit_body(x, deps, ndeps, codeptr, false);
}

/*
 * An undeferred task the program runs itself (if(0)): as in libomp 14 it is
 * current from its task_create on, so that inside that callback the
 * inquiries already answer for it.
 */
void mockrt_task_begin_inline(mockrt_xtask_t *x, const void *codeptr)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_team_tasks_t *q = &x->task.team->tasks;
  mockrt_task_t *prior = self->task;
  x->undeferred = true;
  x->task.flags |= ompt_task_undeferred;
  x->task.thread_num = prior->thread_num;
  atomic_signal_fence(memory_order_seq_cst);
  self->task = &x->task;
  atomic_signal_fence(memory_order_seq_cst);
  mockrt_task_dispatch_create(x, 0, codeptr);
  mockrt_word_lock(&q->lock);
  mockrt_task_count_locked(x);
  mockrt_word_unlock(&q->lock);
  mockrt_task_switch_in_from(self, x, prior, ompt_task_switch);
}

void mockrt_task_end_inline(mockrt_xtask_t *x)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_team_t *team = x->task.team;
  /* An unmatched end (the program's bug) must not free what is not current. */
  if (self->task != &x->task)
    return;
  mockrt_task_switch_out(self, x, x->task.parent);
  if (x->detachable)
    mockrt_task_wait(self, mockrt_task_is_complete, x);
  mockrt_set_state(self, mockrt_task_work_state(team));
  mockrt_task_release(x);
}

/* ---- scheduling points ---- */

/*
 * The barrier's counter and generation word are the team barrier's
 * (barrier.c), but a waiting thread sleeps on the task queue's wake word,
 * so that a task queued after it arrived wakes it to help.  The thread that
 * finds every thread arrived and no task unfinished opens the barrier: it
 * resets the counter (one compare-and-swap decides who), moves the
 * generation on and wakes the others.
 */
bool mockrt_task_barrier(mockrt_task_t *task)
{
  mockrt_team_t *team = task->team;
  mockrt_barrier_t *b = &team->barrier;
  mockrt_team_tasks_t *q = &team->tasks;
  mockrt_thread_t *self = &mockrt_self_tls;

  if (b->n <= 1)
    return false;
  unsigned gen = atomic_load(&b->gen);
  atomic_fetch_add(&b->arrived, 1);
  /* A short spin before sleeping, as the plain barrier does: most barriers
   * of a busy team open within microseconds, and a sleep and a wake-up per
   * thread made a tiny region several times slower (bench_ompt_overhead). */
  int spins = 0;
  for (;;) {
    unsigned w = atomic_load(&q->wake);
    if (atomic_load(&b->gen) != gen)
      return true;
    if (atomic_load(&b->arrived) == b->n && atomic_load(&q->unfinished) == 0) {
      unsigned all = b->n;
      if (atomic_compare_exchange_strong(&b->arrived, &all, 0)) {
        atomic_fetch_add(&b->gen, 1);
        mockrt_task_wake(q);
        return true;
      }
      continue;
    }
    mockrt_xtask_t *x = mockrt_task_take(self, q);
    if (x) {
      mockrt_task_run(self, x, ompt_task_switch);
      continue;
    }
    if (mockrt_spin(&spins, MOCKRT_SPIN_WAIT))
      continue;
    atomic_fetch_add(&q->sleepers, 1);
    mockrt_futex_wait(&q->wake, w);
    atomic_fetch_sub(&q->sleepers, 1);
  }
}

/* A wait with its sync_region events and wait state around it. */
static void mockrt_task_sync_wait(int kind, int state, mockrt_task_done_t done, void *arg,
                                  const void *codeptr)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *t = self->task;
  ompt_data_t *pd = &t->team->parallel_data;
  int prev = self->state;

  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(kind, ompt_scope_begin, pd, &t->task_data, codeptr);
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_begin, pd, &t->task_data, codeptr);
  /* The wait state from here on: after the begin events, as libomp 14
   * reports them (which keeps its work state through the wait, a departure
   * knit conform reports). */
  mockrt_set_wait(self, state, arg);
  mockrt_task_wait(self, done, arg);
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(kind, ompt_scope_end, pd, &t->task_data, codeptr);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(kind, ompt_scope_end, pd, &t->task_data, codeptr);
}

void mockrt_task_taskwait(const void *codeptr)
{
  mockrt_task_t *t = mockrt_self()->task;
  int state = mockrt_fault(MOCKRT_FAULT_TASK_WAIT_STATES_SWAPPED) ? ompt_state_wait_taskgroup
                                                                  : ompt_state_wait_taskwait;
  mockrt_task_sync_wait(ompt_sync_region_taskwait, state, mockrt_counter_zero, &t->children,
                        codeptr);
}

typedef struct mockrt_deps_wait {
  mockrt_task_t *parent;
  const mockrt_dep_t *deps;
  int ndeps;
} mockrt_deps_wait_t;

static bool mockrt_deps_clear(void *arg)
{
  mockrt_deps_wait_t *w = arg;
  mockrt_team_tasks_t *q = &w->parent->team->tasks;
  mockrt_word_lock(&q->lock);
  bool blocked = mockrt_dep_blocked_locked(w->parent, w->deps, w->ndeps);
  mockrt_word_unlock(&q->lock);
  return !blocked;
}

void mockrt_task_wait_deps(const mockrt_dep_t *deps, int ndeps, const void *codeptr)
{
  mockrt_deps_wait_t w = {mockrt_self()->task, deps, ndeps};
  if (ndeps <= 0)
    return;
  mockrt_task_sync_wait(ompt_sync_region_taskwait, ompt_state_wait_taskwait, mockrt_deps_clear, &w,
                        codeptr);
}

void mockrt_task_group_begin(const void *codeptr)
{
  mockrt_task_t *t = mockrt_self()->task;
  mockrt_taskgroup_t *g = calloc(1, sizeof *g);
  if (!g)
    abort();
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(ompt_sync_region_taskgroup, ompt_scope_begin, &t->team->parallel_data,
                            &t->task_data, codeptr);
  g->outer = t->taskgroup;
  t->taskgroup = g;
}

void mockrt_task_group_end(const void *codeptr)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *t = self->task;
  mockrt_taskgroup_t *g = t->taskgroup;
  int prev = self->state;

  if (!g)
    return; /* an end without a start: the program's bug */
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_begin,
                                 &t->team->parallel_data, &t->task_data, codeptr);
  /* The wait state after the begin event, as for a taskwait. */
  mockrt_set_wait(self,
                  mockrt_fault(MOCKRT_FAULT_TASK_WAIT_STATES_SWAPPED) ? ompt_state_wait_taskwait
                                                                      : ompt_state_wait_taskgroup,
                  g);
  mockrt_task_wait(self, mockrt_counter_zero, &g->pending);
  if (mockrt_ompt.sync_region_wait)
    mockrt_ompt.sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_end,
                                 &t->team->parallel_data, &t->task_data, codeptr);
  mockrt_set_state(self, prev);
  t->taskgroup = g->outer;
  free(g);
  if (mockrt_ompt.sync_region)
    mockrt_ompt.sync_region(ompt_sync_region_taskgroup, ompt_scope_end, &t->team->parallel_data,
                            &t->task_data, codeptr);
}

void mockrt_task_yield(void)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_xtask_t *x = mockrt_task_take(self, &self->task->team->tasks);
  if (x)
    mockrt_task_run(self, x, ompt_task_yield);
}

bool mockrt_task_in_final(void)
{
  return (mockrt_self()->task->flags & ompt_task_final) != 0;
}

void mockrt_task_taskloop_event(mockrt_task_t *enc, int endpoint, unsigned long long count,
                                const void *codeptr)
{
  if (MOCKRT_OMPT_ON && mockrt_ompt.work)
    mockrt_ompt.work(ompt_work_taskloop, (ompt_scope_endpoint_t)endpoint, &enc->team->parallel_data,
                     &enc->task_data, (uint64_t)count, codeptr);
}
