/*
 * libknit_ompt_checker.so: an OMPT tool that checks the promises of OpenMP
 * 5.0's tools interface that a sampling profiler relies on.  Link it into a
 * program (or LD_PRELOAD it): it defines ompt_start_tool, registers every
 * callback it knows, keeps per-thread and per-region records in memory, asks
 * the inquiry functions at callbacks and (through ompt_checker.h) from the
 * program's outlined bodies, and at finalize prints PASS or each violated
 * promise with its evidence, then exits with status 1 if any was violated.
 *
 * A promise is named by a short word (thread_begin_first, parallel_data_same,
 * ...) that the fault-injection tests look for (docs/mockrt-faults.md).
 *
 * Known deviations of LLVM's libomp 14 (see kmpc_ompt.c's header) are
 * checked only on runtimes whose version string says "mockrt"; on any other
 * runtime the report lists them as "not checked on this runtime", so a
 * skipped check is never mistaken for a passed one.
 *
 * Records are guarded by one mutex: callbacks are not signal handlers, and
 * a lost-update-free record matters more here than speed.
 */
#define _GNU_SOURCE
#include "ompt_checker.h"

#include <omp-tools.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#include "ompt_checker_state.h"

pthread_mutex_t checker_mu = PTHREAD_MUTEX_INITIALIZER;
bool checker_strict;
char checker_runtime_version[160];

ompt_set_callback_t checker_set_callback;
ompt_get_state_t checker_get_state;
ompt_get_task_info_t checker_get_task_info;
ompt_get_parallel_info_t checker_get_parallel_info;
ompt_get_unique_id_t checker_get_unique_id;

violation_rec_t checker_violations[MAX_VIOLATIONS];
int checker_n_violations;
thread_rec_t checker_threads[MAX_THREADS];
int checker_n_threads;
static __thread thread_rec_t *self_rec;
region_rec_t checker_regions[MAX_REGIONS];
uint64_t checker_n_regions;
uint64_t checker_ids[MAX_IDS];
size_t checker_n_ids;
static const void *locks[MAX_LOCKS];
static int n_locks;
int checker_n_initialize, checker_n_finalize;
unsigned long checker_events[MAX_CALLBACK];
int checker_set_answer[MAX_CALLBACK];

/* ---- violations ---- */

void checker_violate(const char *promise, const char *fmt, ...)
{
  for (int i = 0; i < checker_n_violations; i++) {
    if (strcmp(checker_violations[i].promise, promise) == 0) {
      checker_violations[i].count++;
      return;
    }
  }
  if (checker_n_violations == MAX_VIOLATIONS)
    return;
  violation_rec_t *v = &checker_violations[checker_n_violations++];
  v->promise = promise;
  v->count = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->evidence, sizeof v->evidence, fmt, ap);
  va_end(ap);
}

/* ---- records ---- */

/* The calling thread's record, made on its first event.  Called with checker_mu held. */
thread_rec_t *checker_me_locked(void)
{
  if (!self_rec) {
    if (checker_n_threads == MAX_THREADS)
      abort();
    self_rec = &checker_threads[checker_n_threads];
    self_rec->index = checker_n_threads++;
  }
  return self_rec;
}

/* Every event on a thread comes after its thread_begin.  Called with checker_mu held. */
thread_rec_t *checker_event_locked(ompt_callbacks_t which, const char *what)
{
  thread_rec_t *t = checker_me_locked();
  checker_events[which]++;
  if (!t->begun && which != ompt_callback_thread_begin)
    checker_violate("thread_begin_first", "%s on thread #%d before its thread_begin", what,
                   t->index);
  if (t->ended)
    checker_violate("thread_end_last", "%s on thread #%d after its thread_end", what, t->index);
  return t;
}

void checker_note_id_locked(uint64_t id)
{
  if (checker_n_ids < MAX_IDS)
    checker_ids[checker_n_ids++] = id;
}

static bool is_lock(ompt_wait_id_t id)
{
  for (int i = 0; i < n_locks; i++) {
    if ((ompt_wait_id_t)(uintptr_t)locks[i] == id)
      return true;
  }
  return false;
}

static bool is_barrier(ompt_sync_region_t kind)
{
  return kind == ompt_sync_region_barrier || kind == ompt_sync_region_barrier_implicit ||
         kind == ompt_sync_region_barrier_explicit ||
         kind == ompt_sync_region_barrier_implementation ||
         kind == ompt_sync_region_barrier_implicit_workshare ||
         kind == ompt_sync_region_barrier_implicit_parallel ||
         kind == ompt_sync_region_barrier_teams;
}

/* A frame address's flags say how to read it: a CFA or a frame pointer. */
bool checker_frame_flags_valid(int flags)
{
  int kind = flags & (ompt_frame_cfa | ompt_frame_framepointer);
  return kind == ompt_frame_cfa || kind == ompt_frame_framepointer;
}

/* ---- callbacks ---- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_thread_begin, "thread_begin");
  if (t->begun)
    checker_violate("thread_begin_once", "thread #%d began twice", t->index);
  t->begun = true;
  t->type = (int)type;
  thread_data->value = checker_get_unique_id();
  checker_note_id_locked(thread_data->value);
  pthread_mutex_unlock(&checker_mu);
}

static void on_thread_end(ompt_data_t *thread_data)
{
  (void)thread_data;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_thread_end, "thread_end");
  t->ended = true;
  pthread_mutex_unlock(&checker_mu);
}

static void on_parallel_begin(ompt_data_t *enc_task_data, const ompt_frame_t *enc_frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr)
{
  (void)enc_task_data;
  (void)requested;
  (void)flags;
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_parallel_begin, "parallel_begin");
  if (!enc_frame || !enc_frame->enter_frame.ptr)
    checker_violate("enter_frame_at_fork", "parallel_begin on thread #%d: encountering task's "
                   "enter frame is NULL", t->index);
  else if (checker_strict && !checker_frame_flags_valid(enc_frame->enter_frame_flags))
    checker_violate("enter_frame_flags", "parallel_begin on thread #%d: enter frame %p has "
                   "flags 0x%x (neither cfa nor framepointer)", t->index,
                   enc_frame->enter_frame.ptr, enc_frame->enter_frame_flags);
  /* Regions are told apart by our own key, so a faulty unique id cannot merge them. */
  uint64_t key = ++checker_n_regions;
  parallel_data->value = key;
  checker_note_id_locked(checker_get_unique_id());
  if (t->npar < MAX_OPEN) {
    t->par[t->npar].pd = parallel_data;
    t->par[t->npar].key = key;
  }
  t->npar++;
  pthread_mutex_unlock(&checker_mu);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *enc_task_data, int flags,
                            const void *codeptr)
{
  (void)enc_task_data;
  (void)flags;
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_parallel_end, "parallel_end");
  if (t->npar == 0) {
    checker_violate("parallel_begin_end_paired", "parallel_end(%p) on thread #%d, which has "
                   "no open region", (void *)parallel_data, t->index);
  } else {
    t->npar--;
    /* libomp 14 hands parallel_begin a copy of the region's data: only the value is kept. */
    if (t->npar < MAX_OPEN && ((checker_strict && t->par[t->npar].pd != parallel_data) ||
                               parallel_data->value != t->par[t->npar].key))
      checker_violate("parallel_data_same", "region %llu on thread #%d: parallel_begin gave "
                     "parallel_data %p, parallel_end %p holding %llu",
                     (unsigned long long)t->par[t->npar].key, t->index,
                     (void *)t->par[t->npar].pd, (void *)parallel_data,
                     (unsigned long long)parallel_data->value);
  }
  pthread_mutex_unlock(&checker_mu);
}

static void implicit_begin_locked(thread_rec_t *t, ompt_data_t *parallel_data,
                                  ompt_data_t *task_data, unsigned actual, unsigned index,
                                  int flags)
{
  uint64_t key = 0;
  task_data->value = checker_get_unique_id();
  checker_note_id_locked(task_data->value);
  if (!(flags & ompt_task_initial)) {
    key = parallel_data ? parallel_data->value : 0;
    if (key == 0 || key > checker_n_regions || key > MAX_REGIONS) {
      checker_violate("implicit_task_in_region", "implicit task on thread #%d names no region "
                     "that began (parallel_data %p)", t->index, (void *)parallel_data);
      key = 0;
    } else {
      region_rec_t *r = &checker_regions[key - 1];
      if (r->begins == 0)
        r->actual = actual;
      else if (r->actual != actual)
        checker_violate("team_size_consistent", "region %llu: implicit tasks say team sizes "
                       "%u and %u", (unsigned long long)key, r->actual, actual);
      r->begins++;
      if (index >= actual)
        checker_violate("thread_num_in_team", "region %llu: thread_num %u in a team of %u",
                       (unsigned long long)key, index, actual);
      else if (index < 256 && (r->indices[index / 64] >> (index % 64) & 1))
        checker_violate("thread_num_distinct", "region %llu: two implicit tasks with "
                       "thread_num %u", (unsigned long long)key, index);
      if (index < 256)
        r->indices[index / 64] |= 1ull << (index % 64);
    }
  }
  if (t->nimp < MAX_OPEN) {
    t->imp[t->nimp].td = task_data;
    t->imp[t->nimp].value = task_data->value;
    t->imp[t->nimp].key = key;
    t->imp[t->nimp].index = index;
    t->imp[t->nimp].size = actual;
  }
  t->nimp++;
}

static void implicit_end_locked(thread_rec_t *t, ompt_data_t *task_data)
{
  int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  int found = -1;
  /*
   * libomp 14 passes a copy of a worker's task_data at its (late) end: the
   * value we stored is kept, the address is not.  The mock keeps both.
   */
  for (int i = top; i >= 0; i--) {
    if (t->imp[i].td == task_data || (!checker_strict && t->imp[i].value == task_data->value)) {
      found = i;
      break;
    }
  }
  if (found < 0) {
    checker_violate("implicit_task_paired", "implicit_task end (task_data %p) on thread #%d "
                   "matches no open implicit task", (void *)task_data, t->index);
    return;
  }
  /* libomp 14 ends a worker's task at its next barrier, after others began. */
  if (found != top && checker_strict)
    checker_violate("implicit_task_nested", "thread #%d ends implicit task %d while %d "
                   "later ones are open", t->index, found, top - found);
  memmove(&t->imp[found], &t->imp[found + 1], sizeof t->imp[0] * (size_t)(top - found));
  t->nimp--;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual, unsigned int index,
                             int flags)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_implicit_task, "implicit_task");
  if (endpoint == ompt_scope_begin)
    implicit_begin_locked(t, parallel_data, task_data, actual, index, flags);
  else
    implicit_end_locked(t, task_data);
  pthread_mutex_unlock(&checker_mu);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr)
{
  (void)kind;
  (void)endpoint;
  (void)parallel_data;
  (void)task_data;
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_sync_region, "sync_region");
  pthread_mutex_unlock(&checker_mu);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr)
{
  (void)parallel_data;
  (void)task_data;
  (void)codeptr;
  /* Ask before taking the mutex: the answers are about this moment. */
  ompt_frame_t *frame = NULL;
  int have = checker_get_task_info(0, NULL, NULL, &frame, NULL, NULL);
  int state = checker_get_state(NULL);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_sync_region_wait, "sync_region_wait");
  if (endpoint == ompt_scope_begin && is_barrier(kind)) {
    /* libomp 14 clears the enter frame in its implicit barriers. */
    bool check_frame = checker_strict || kind == ompt_sync_region_barrier_explicit;
    if (check_frame && (!have || !frame || !frame->enter_frame.ptr))
      checker_violate("enter_frame_in_barrier", "barrier wait (kind %d) on thread #%d: the "
                     "task's enter frame is NULL", (int)kind, t->index);
    if (checker_strict && (state < ompt_state_wait_barrier || state > ompt_state_wait_barrier_teams))
      checker_violate("barrier_wait_state", "barrier wait (kind %d) on thread #%d: state "
                     "0x%x, not a wait_barrier state", (int)kind, t->index, state);
  }
  pthread_mutex_unlock(&checker_mu);
}

static bool lock_kind(ompt_mutex_t kind)
{
  return kind == ompt_mutex_lock || kind == ompt_mutex_test_lock;
}

static void check_lock_id_locked(thread_rec_t *t, const char *what, ompt_mutex_t kind,
                                 ompt_wait_id_t wait_id)
{
  if (lock_kind(kind) && !is_lock(wait_id))
    checker_violate("lock_wait_id", "%s on thread #%d: wait id 0x%llx is not the address of "
                   "any lock the program has", what, t->index, (unsigned long long)wait_id);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)hint;
  (void)impl;
  (void)codeptr;
  ompt_wait_id_t state_id = 0;
  int state = checker_get_state(&state_id);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_mutex_acquire, "mutex_acquire");
  check_lock_id_locked(t, "mutex_acquire", kind, wait_id);
  /* A thread waiting for its ordered turn names the same wait id in its state. */
  if (checker_strict && kind == ompt_mutex_ordered &&
      (state != ompt_state_wait_ordered || state_id != wait_id))
    checker_violate("ordered_wait_id", "mutex_acquire (ordered) on thread #%d: state 0x%x wait "
                   "id 0x%llx, expected wait_ordered on 0x%llx", t->index, state,
                   (unsigned long long)state_id, (unsigned long long)wait_id);
  /* libomp 14 sets the wait state only after this callback. */
  if (checker_strict && kind == ompt_mutex_lock && (state != ompt_state_wait_lock || state_id != wait_id))
    checker_violate("lock_wait_state", "mutex_acquire on thread #%d: state 0x%x wait id 0x%llx, "
                   "expected wait_lock on 0x%llx", t->index, state,
                   (unsigned long long)state_id, (unsigned long long)wait_id);
  pthread_mutex_unlock(&checker_mu);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_mutex_acquired, "mutex_acquired");
  check_lock_id_locked(t, "mutex_acquired", kind, wait_id);
  pthread_mutex_unlock(&checker_mu);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_mutex_released, "mutex_released");
  check_lock_id_locked(t, "mutex_released", kind, wait_id);
  pthread_mutex_unlock(&checker_mu);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                         ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)hint;
  (void)impl;
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_lock_init, "lock_init");
  check_lock_id_locked(t, "lock_init", kind, wait_id);
  pthread_mutex_unlock(&checker_mu);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_lock_destroy, "lock_destroy");
  check_lock_id_locked(t, "lock_destroy", kind, wait_id);
  pthread_mutex_unlock(&checker_mu);
}

/* Events that are only counted: their 'always' answers must be backed. */
static void count_event(ompt_callbacks_t which, const char *what)
{
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(which, what);
  pthread_mutex_unlock(&checker_mu);
}

/*
 * Worksharing: per thread, work begin and end pair up, innermost first, with
 * the same type (a single's executor and other are two types), and every
 * dispatch event comes inside an open loop (iteration) or sections (section).
 */
static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                    ompt_data_t *td, uint64_t count, const void *codeptr)
{
  (void)pd, (void)td, (void)count, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_work, "work");
  if (endpoint == ompt_scope_begin) {
    if (t->nwork < MAX_OPEN)
      t->work[t->nwork] = (int)wstype;
    t->nwork++;
  } else if (t->nwork == 0) {
    checker_violate("work_begin_end_paired", "work end (type %d) on thread #%d, which has no "
                   "open worksharing construct", (int)wstype, t->index);
  } else {
    t->nwork--;
    if (t->nwork < MAX_OPEN && t->work[t->nwork] != (int)wstype)
      checker_violate("work_begin_end_paired", "work end of type %d on thread #%d closes a "
                     "construct of type %d", (int)wstype, t->index, t->work[t->nwork]);
  }
  pthread_mutex_unlock(&checker_mu);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *pd, ompt_data_t *td,
                      const void *codeptr)
{
  (void)pd, (void)td, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_masked, "masked");
  if (endpoint == ompt_scope_begin)
    t->nmasked++;
  else if (t->nmasked == 0)
    checker_violate("masked_paired", "masked end on thread #%d, which has no open masked "
                   "region", t->index);
  else
    t->nmasked--;
  pthread_mutex_unlock(&checker_mu);
}

static void on_dispatch(ompt_data_t *pd, ompt_data_t *td, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
  (void)pd, (void)td, (void)instance;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_dispatch, "dispatch");
  int want = kind == ompt_dispatch_section ? ompt_work_sections : ompt_work_loop;
  int top = t->nwork > 0 && t->nwork <= MAX_OPEN ? t->work[t->nwork - 1] : -1;
  if (top != want)
    checker_violate("dispatch_inside_work", "dispatch (kind %d) on thread #%d outside an open "
                   "%s construct (innermost open: %d)", (int)kind, t->index,
                   want == ompt_work_sections ? "sections" : "loop", top);
  pthread_mutex_unlock(&checker_mu);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                         const void *codeptr)
{
  (void)endpoint, (void)wait_id, (void)codeptr;
  count_event(ompt_callback_nest_lock, "nest_lock");
}

static void on_flush(ompt_data_t *thread_data, const void *codeptr)
{
  (void)thread_data, (void)codeptr;
  count_event(ompt_callback_flush, "flush");
}

static void on_cancel(ompt_data_t *td, int flags, const void *codeptr)
{
  (void)td, (void)codeptr;
  int construct = flags & (ompt_cancel_parallel | ompt_cancel_sections | ompt_cancel_loop |
                           ompt_cancel_taskgroup);
  int what = flags & (ompt_cancel_activated | ompt_cancel_detected | ompt_cancel_discarded_task);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_cancel, "cancel");
  if (!construct || (construct & (construct - 1)) || !what || (what & (what - 1)))
    checker_violate("cancel_flags", "cancel on thread #%d with flags 0x%x: not one construct "
                   "and one of activated, detected, discarded_task", t->index, flags);
  pthread_mutex_unlock(&checker_mu);
}

/* ---- probes from the program ---- */

EXPORT void knit_ompt_checker_lock(const void *lock)
{
  pthread_mutex_lock(&checker_mu);
  if (n_locks < MAX_LOCKS)
    locks[n_locks++] = lock;
  pthread_mutex_unlock(&checker_mu);
}

EXPORT void knit_ompt_checker_probe(const void *local, int thread_num, int team_size)
{
  if (!checker_get_task_info)
    return;                       /* no tool session: nothing to compare */
  int flags = 0, tn = -1, size = -1;
  ompt_data_t *td = NULL, *pd = NULL, *pd2 = NULL, *td1 = NULL;
  ompt_frame_t *frame = NULL, *frame1 = NULL;
  int have0 = checker_get_task_info(0, &flags, &td, &frame, &pd, &tn);
  int have1 = checker_get_task_info(1, NULL, &td1, &frame1, NULL, NULL);
  int havep = checker_get_parallel_info(0, &pd2, &size);
  int state = checker_get_state(NULL);

  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  if (state != ompt_state_work_parallel)
    checker_violate("state_in_body", "thread %d in an outlined body: state 0x%x, not "
                   "work_parallel", thread_num, state);
  if (!have0 || !frame || !td) {
    checker_violate("task_info_level0", "thread %d in an outlined body: get_task_info(0) "
                   "answered nothing", thread_num);
  } else {
    if (!(flags & ompt_task_implicit) || top < 0 || t->imp[top].td != td)
      checker_violate("task_info_level0", "thread %d in an outlined body: get_task_info(0) "
                     "gave task_data %p flags 0x%x, its implicit_task began with %p",
                     thread_num, (void *)td, flags, top >= 0 ? (void *)t->imp[top].td : NULL);
    if (tn != thread_num)
      checker_violate("task_info_thread_num", "get_task_info(0) says thread_num %d, "
                     "omp_get_thread_num() %d", tn, thread_num);
    /* Stacks grow down on every ISA knit supports: the body is below its exit frame. */
    if (!frame->exit_frame.ptr || (const char *)frame->exit_frame.ptr <= (const char *)local)
      checker_violate("exit_frame_above_body", "thread %d: exit frame %p is not above the "
                     "body's local at %p", thread_num, frame->exit_frame.ptr, local);
    else if (!checker_frame_flags_valid(frame->exit_frame_flags))
      checker_violate("exit_frame_flags", "thread %d: exit frame %p has flags 0x%x", thread_num,
                     frame->exit_frame.ptr, frame->exit_frame_flags);
    if (frame->enter_frame.ptr)
      checker_violate("enter_frame_clear_in_body", "thread %d: enter frame %p set while the "
                     "body runs", thread_num, frame->enter_frame.ptr);
  }
  if (!have1 || !frame1 || !frame1->enter_frame.ptr)
    checker_violate("enter_frame_at_fork", "thread %d in an outlined body: the encountering "
                   "task (level 1) has no enter frame", thread_num);
  if (!havep || size != team_size || pd2 != pd)
    checker_violate("parallel_info_level0", "thread %d: get_parallel_info(0) says team size %d "
                   "parallel_data %p; omp_get_num_threads() %d, get_task_info %p", thread_num,
                   size, (void *)pd2, team_size, (void *)pd);
  if (top >= 0 && t->imp[top].size != (unsigned)team_size)
    checker_violate("team_size_consistent", "thread %d: implicit_task said team size %u, "
                   "omp_get_num_threads() %d", thread_num, t->imp[top].size, team_size);
  pthread_mutex_unlock(&checker_mu);
}

/* ---- registration ---- */

/* Registers cb for which and remembers the answer. */
#define REGISTER(which, cb) \
  (checker_set_answer[which] = checker_set_callback(which, (ompt_callback_t)(cb)))

void checker_register_callbacks(void)
{
  REGISTER(ompt_callback_thread_begin, on_thread_begin);
  REGISTER(ompt_callback_thread_end, on_thread_end);
  REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
  REGISTER(ompt_callback_parallel_end, on_parallel_end);
  REGISTER(ompt_callback_implicit_task, on_implicit_task);
  REGISTER(ompt_callback_sync_region, on_sync_region);
  REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
  REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
  REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
  REGISTER(ompt_callback_mutex_released, on_mutex_released);
  REGISTER(ompt_callback_lock_init, on_lock_init);
  REGISTER(ompt_callback_lock_destroy, on_lock_destroy);
  REGISTER(ompt_callback_nest_lock, on_nest_lock);
  REGISTER(ompt_callback_work, on_work);
  REGISTER(ompt_callback_masked, on_masked);
  REGISTER(ompt_callback_dispatch, on_dispatch);
  REGISTER(ompt_callback_flush, on_flush);
  REGISTER(ompt_callback_cancel, on_cancel);
  checker_register_task_callbacks();
}
