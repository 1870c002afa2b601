/*
 * The states of waiting threads (checker.h: knit_ompt_checker_await).  A
 * program thread that holds a critical region or a lock, stays out of a
 * barrier, or runs the child a task waits for, asks the checker to sample
 * the threads it keeps waiting until each reports the state OpenMP 5.0
 * defines for that wait (ompt_state_t), with the wait id of what it waits
 * for.  From serial code, the pool's threads must report idle.
 *
 * A sample taken before a thread has reached its wait proves nothing, so a
 * target is judged once the checker has seen it start to wait (its
 * mutex_acquire without an acquired, or its sync_region_wait begin) and
 * then for JUDGE_MS more: a runtime may set the state a little after the
 * callback, but not later than the wait itself.  A runtime that dispatches
 * none of those events is judged over REACH_MS.  Once a check has failed,
 * later waits of its kind are judged briefly: the first evidence stands,
 * and a failing runtime's run stays short.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

#define REACH_MS 10000.0
#define JUDGE_MS 300.0
#define IDLE_MS  500.0
#define BRIEF_MS 30.0

static const char *const wait_what[] = {
    [KNIT_CHECKER_WAIT_CRITICAL] = "blocked entering a critical region",
    [KNIT_CHECKER_WAIT_LOCK] = "blocked in omp_set_lock",
    [KNIT_CHECKER_WAIT_BARRIER_EXPLICIT] = "waiting in an explicit barrier",
    [KNIT_CHECKER_WAIT_BARRIER_IMPLICIT] = "waiting in a loop's implicit barrier",
    [KNIT_CHECKER_WAIT_TASKWAIT] = "waiting in a taskwait",
    [KNIT_CHECKER_WAIT_TASKGROUP] = "waiting at the end of a taskgroup",
    [KNIT_CHECKER_WAIT_ORDERED] = "waiting for its turn in an ordered region",
};

static const check_id wait_check[] = {
    [KNIT_CHECKER_WAIT_CRITICAL] = CHK_WAIT_STATE_CRITICAL,
    [KNIT_CHECKER_WAIT_LOCK] = CHK_WAIT_STATE_LOCK,
    [KNIT_CHECKER_WAIT_BARRIER_EXPLICIT] = CHK_WAIT_STATE_BARRIER,
    [KNIT_CHECKER_WAIT_BARRIER_IMPLICIT] = CHK_WAIT_STATE_BARRIER,
    [KNIT_CHECKER_WAIT_TASKWAIT] = CHK_WAIT_STATE_TASKWAIT,
    [KNIT_CHECKER_WAIT_TASKGROUP] = CHK_WAIT_STATE_TASKGROUP,
    [KNIT_CHECKER_WAIT_ORDERED] = CHK_WAIT_STATE_ORDERED,
};

/* The mutex kind whose mutex_acquire starts the wait, or -1: a sync_region_wait does. */
static const int wait_mutex[] = {
    [KNIT_CHECKER_WAIT_CRITICAL] = ompt_mutex_critical,
    [KNIT_CHECKER_WAIT_LOCK] = ompt_mutex_lock,
    [KNIT_CHECKER_WAIT_BARRIER_EXPLICIT] = -1,
    [KNIT_CHECKER_WAIT_BARRIER_IMPLICIT] = -1,
    [KNIT_CHECKER_WAIT_TASKWAIT] = -1,
    [KNIT_CHECKER_WAIT_TASKGROUP] = -1,
    [KNIT_CHECKER_WAIT_ORDERED] = ompt_mutex_ordered,
};

static bool is_barrier_state(int s)
{
  return s >= ompt_state_wait_barrier && s <= ompt_state_wait_barrier_teams;
}

/* The state OpenMP 5.0 defines for the wait. */
static bool spec_state(int what, int s)
{
  switch (what) {
  case KNIT_CHECKER_WAIT_CRITICAL: return s == ompt_state_wait_critical;
  case KNIT_CHECKER_WAIT_LOCK: return s == ompt_state_wait_lock;
  case KNIT_CHECKER_WAIT_TASKWAIT: return s == ompt_state_wait_taskwait;
  case KNIT_CHECKER_WAIT_TASKGROUP: return s == ompt_state_wait_taskgroup;
  case KNIT_CHECKER_WAIT_ORDERED: return s == ompt_state_wait_ordered;
  default: return is_barrier_state(s);
  }
}

/* The barrier's own kind, which wait_barrier (any barrier) does not tell. */
static bool kind_state(int what, int s)
{
  if (what == KNIT_CHECKER_WAIT_BARRIER_EXPLICIT)
    return s == ompt_state_wait_barrier_explicit;
  return s == ompt_state_wait_barrier_implicit || s == ompt_state_wait_barrier_implicit_parallel ||
         s == ompt_state_wait_barrier_implicit_workshare;
}

static bool is_barrier_wait(int what)
{
  return what == KNIT_CHECKER_WAIT_BARRIER_EXPLICIT || what == KNIT_CHECKER_WAIT_BARRIER_IMPLICIT;
}

/* The thread has started to wait, as its events say. */
static bool started_locked(const thread_rec_t *t, int what)
{
  if (wait_mutex[what] >= 0)
    return t->acq_pending && t->acq_kind == wait_mutex[what];
  int top = (t->nsync < MAX_OPEN ? t->nsync : MAX_OPEN) - 1;
  if (top < 0 || !t->sync[top].wait)
    return false;
  int kind = t->sync[top].kind;
  if (what == KNIT_CHECKER_WAIT_TASKWAIT)
    return kind == ompt_sync_region_taskwait;
  if (what == KNIT_CHECKER_WAIT_TASKGROUP)
    return kind == ompt_sync_region_taskgroup;
  return checker_is_barrier_kind(kind);
}

/* One thread being watched. */
typedef struct target {
  int index;
  bool done;
  double started; /* when its events said it waits; 0 before */
  unsigned samples;
  int last_state;
  ompt_wait_id_t last_id;
  bool kind_seen; /* a barrier wait showed its kind */
} target_t;

static bool is_task_wait(int what)
{
  return what == KNIT_CHECKER_WAIT_TASKWAIT || what == KNIT_CHECKER_WAIT_TASKGROUP;
}

/* Adds the threads to watch not yet in ts: teammates in the caller's
 * innermost region, or the creator of the task the caller runs. */
static void add_targets_locked(const thread_rec_t *me, int what, target_t *ts, int *n, int max)
{
  bool known[MAX_THREADS] = {false};
  for (int i = 0; i < *n; i++)
    known[ts[i].index] = true;
  if (is_task_wait(what)) {
    int creator = checker_current_task_creator_locked(me);
    if (creator >= 0 && creator != me->index && !known[creator] && *n < max)
      ts[(*n)++] = (target_t){.index = creator};
    return;
  }
  int top = (me->nimp < MAX_OPEN ? me->nimp : MAX_OPEN) - 1;
  if (top < 0 || me->imp[top].key == 0)
    return;
  for (int i = 0; i < checker_n_threads && *n < max; i++) {
    const thread_rec_t *t = &checker_threads[i];
    int ttop = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
    if (t != me && !known[i] && ttop >= 0 && t->imp[ttop].key == me->imp[top].key)
      ts[(*n)++] = (target_t){.index = i};
  }
}

/* Judges one sample of target x; true once x is decided (always when final). */
static bool judge_locked(target_t *x, int what, const void *object, int state, ompt_wait_id_t id,
                         double now, double judge_ms, bool final)
{
  thread_rec_t *t = &checker_threads[x->index];
  check_id check = wait_check[what];
  x->samples += !final;
  x->last_state = state;
  x->last_id = id;
  if (!x->started && started_locked(t, what))
    x->started = now;
  /* The wait id is the object waited for: the lock, or what the mutex_acquire named. */
  ompt_wait_id_t want = 0;
  if (what == KNIT_CHECKER_WAIT_LOCK)
    want = (ompt_wait_id_t)(uintptr_t)object;
  else if (wait_mutex[what] >= 0 && x->started && t->acq_pending)
    want = t->acq_id;
  bool right = spec_state(what, state);
  bool id_right = !want || id == want;
  if (is_barrier_wait(what) && kind_state(what, state))
    x->kind_seen = true;
  /* A barrier wait is watched on until its kind shows too. */
  bool complete = right && (!is_barrier_wait(what) || x->kind_seen);
  if (!complete && !final && !(x->started && now - x->started >= judge_ms))
    return false;
  const char *event = wait_mutex[what] >= 0 ? "mutex_acquire" : "sync_region_wait begin";
  char since[64];
  if (x->started)
    snprintf(since, sizeof since, "for %.0f ms after its %s", now - x->started, event);
  else
    snprintf(since, sizeof since, "(no %s came)", event);
  if (right) {
    checker_held(check);
    checker_note(check, "thread #%d %s: %s on 0x%llx after %u samples", x->index, wait_what[what],
                 checker_state_name(state), (unsigned long long)id, x->samples);
  } else {
    checker_violate(check,
                    "thread #%d %s %s: %u samples, the last %s (0x%x) with wait id "
                    "0x%llx",
                    x->index, wait_what[what], since, x->samples, checker_state_name(state), state,
                    (unsigned long long)id);
  }
  if (right && want)
    EXPECT(CHK_WAIT_STATE_ID, id_right,
           "thread #%d %s: %s with wait id 0x%llx; its mutex "
           "events name 0x%llx",
           x->index, wait_what[what], checker_state_name(state), (unsigned long long)id,
           (unsigned long long)want);
  if (is_barrier_wait(what))
    EXPECT(CHK_WAIT_STATE_BARRIER_KIND, x->kind_seen,
           "thread #%d %s: %s (0x%x), which does "
           "not tell the barrier's kind",
           x->index, wait_what[what], checker_state_name(state), state);
  return true;
}

/*
 * A critical region's mutex_acquire names one lock: the same wait id on
 * every thread and at every entry, and another one than any other critical
 * region's (libomp 14 names an object it allocates for the critical, the
 * mocks too; what it is is the runtime's choice).
 */
#define MAX_CRITICALS 64
static struct {
  const void *object;
  ompt_wait_id_t id;
} critical_ids[MAX_CRITICALS];
static int n_critical_ids;

static void check_critical_id_locked(target_t *ts, int n, const void *object)
{
  for (int i = 0; i < n; i++) {
    const thread_rec_t *t = &checker_threads[ts[i].index];
    if (!ts[i].started || !t->acq_pending)
      continue;
    int k = 0;
    while (k < n_critical_ids && critical_ids[k].object != object)
      k++;
    if (k == n_critical_ids && k < MAX_CRITICALS) {
      critical_ids[k].object = object;
      critical_ids[k].id = t->acq_id;
      n_critical_ids++;
    }
    if (k == MAX_CRITICALS)
      continue;
    EXPECT(CHK_CRITICAL_WAIT_ID, t->acq_id == critical_ids[k].id,
           "thread #%d blocked entering the critical region named at %p: mutex_acquire named "
           "0x%llx, another entry 0x%llx",
           t->index, object, (unsigned long long)t->acq_id, (unsigned long long)critical_ids[k].id);
    for (int j = 0; j < n_critical_ids; j++)
      if (j != k)
        EXPECT(CHK_CRITICAL_WAIT_ID, critical_ids[j].id != critical_ids[k].id,
               "the critical regions named at %p and %p have the same wait id 0x%llx", object,
               critical_ids[j].object, (unsigned long long)critical_ids[k].id);
  }
}

/* Samples targets until each is decided or REACH_MS passes; teammates
 * still on their way into the caller's region join as they arrive. */
static void watch(int what, const void *object, target_t *ts, int n, int max)
{
  check_id check = wait_check[what];
  pthread_mutex_lock(&checker_mu);
  bool brief = checker_checks[check].violated > 0 ||
               (is_barrier_wait(what) && checker_checks[CHK_WAIT_STATE_BARRIER_KIND].violated > 0);
  pthread_mutex_unlock(&checker_mu);
  double judge_ms = brief ? BRIEF_MS : JUDGE_MS;
  double start = checker_now_ms(), give_up = start + (brief ? JUDGE_MS : REACH_MS);
  bool critical_checked = false;
  for (;;) {
    bool open = false;
    pthread_mutex_lock(&checker_mu);
    add_targets_locked(checker_me_locked(), what, ts, &n, max);
    pthread_mutex_unlock(&checker_mu);
    for (int i = 0; i < n; i++) {
      if (ts[i].done)
        continue;
      int state = 0;
      ompt_wait_id_t id = 0;
      bool answered = checker_sample(ts[i].index, &state, &id);
      double now = checker_now_ms();
      pthread_mutex_lock(&checker_mu);
      if (!answered) {
        checker_violate(check, "thread #%d did not answer the sampling signal", ts[i].index);
        ts[i].done = true;
      } else {
        ts[i].done = judge_locked(&ts[i], what, object, state, id, now, judge_ms, false);
      }
      pthread_mutex_unlock(&checker_mu);
      open |= !ts[i].done;
    }
    if (what == KNIT_CHECKER_WAIT_CRITICAL && !critical_checked) {
      bool all = n > 0;
      for (int i = 0; i < n; i++)
        all &= ts[i].started > 0;
      if (all) {
        pthread_mutex_lock(&checker_mu);
        check_critical_id_locked(ts, n, object);
        pthread_mutex_unlock(&checker_mu);
        critical_checked = true;
      }
    }
    if (!open && n > 0)
      return;
    if (checker_now_ms() > give_up)
      break;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  /* Out of time: whoever never showed the state is judged on its last sample. */
  pthread_mutex_lock(&checker_mu);
  for (int i = 0; i < n; i++)
    if (!ts[i].done)
      judge_locked(&ts[i], what, object, ts[i].last_state, ts[i].last_id, checker_now_ms(), 0,
                   true);
  pthread_mutex_unlock(&checker_mu);
}

EXPORT void knit_ompt_checker_await(int what, const void *object)
{
  if (!checker_get_state || what < 0 || what > KNIT_CHECKER_WAIT_ORDERED)
    return;
  static target_t ts[MAX_THREADS];
  static pthread_mutex_t await_mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&await_mu);
  int n = 0;
  pthread_mutex_lock(&checker_mu);
  add_targets_locked(checker_me_locked(), what, ts, &n, MAX_THREADS);
  pthread_mutex_unlock(&checker_mu);
  /* A task its own creator runs: no one waits for it where it can be seen. */
  if (n > 0 || !is_task_wait(what))
    watch(what, object, ts, n, MAX_THREADS);
  pthread_mutex_unlock(&await_mu);
}

EXPORT void knit_ompt_checker_await_idle(void)
{
  if (!checker_get_state)
    return;
  static target_t ts[MAX_THREADS];
  int n = 0;
  pthread_mutex_lock(&checker_mu);
  bool brief = checker_checks[CHK_IDLE_BETWEEN_REGIONS].violated > 0;
  const thread_rec_t *me = checker_me_locked();
  for (int i = 0; i < checker_n_threads; i++) {
    const thread_rec_t *t = &checker_threads[i];
    if (t != me && t->begun && !t->ended && t->type == ompt_thread_worker)
      ts[n++] = (target_t){.index = i};
  }
  pthread_mutex_unlock(&checker_mu);
  double give_up = checker_now_ms() + (brief ? BRIEF_MS : IDLE_MS);
  for (int i = 0; i < n; i++) {
    int state = 0;
    ompt_wait_id_t id = 0;
    bool answered;
    while ((answered = checker_sample(ts[i].index, &state, &id)) && state != ompt_state_idle &&
           checker_now_ms() < give_up) {
      ts[i].samples++;
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
    }
    pthread_mutex_lock(&checker_mu);
    EXPECT(CHK_IDLE_BETWEEN_REGIONS, answered && state == ompt_state_idle,
           "worker thread #%d "
           "between parallel regions: %u samples, the last %s (0x%x)%s",
           ts[i].index, ts[i].samples + 1, checker_state_name(state), state,
           answered ? "" : "; it did not answer the sampling signal");
    pthread_mutex_unlock(&checker_mu);
  }
}
