/*
 * Worksharing constructs: loop dispatch (dynamic, guided, static), sections
 * (a loop over section numbers) and single, with their OMPT work and
 * dispatch events.
 *
 * Every thread of a team meets the same constructs in the same order, so a
 * thread's count of constructs met names the construct.  Construct k lives
 * in slot k % MOCKRT_WS_SLOTS; a thread that races ahead through nowait
 * constructs waits until the slot's previous user has been left by everyone.
 * Iterations are handed out as indices 0..count-1 and mapped back to the
 * loop's own start and increment, so negative steps need no special case.
 *
 * Fixed assignment (static schedules, and every schedule in deterministic
 * mode, MOCKRT_DETERMINISTIC=1): the loop is cut into the chunks its
 * schedule would make (guided: each a share of what is left, as if taken in
 * order) and chunk k goes to thread k % nthreads, which takes its chunks in
 * increasing order.  No shared counter is involved, so which thread runs
 * which iterations, and in what order, is the same in every run; a single is
 * then always run by thread 0.  Only timing differs between runs.
 */
#include "mockrt.h"
#include "fault.h"

#include <sched.h>
#include <stdlib.h>

static long mockrt_trip_count(long start, long end, long incr)
{
  if (incr > 0)
    return end > start ? (end - start + incr - 1) / incr : 0;
  if (incr < 0)
    return start > end ? (start - end - incr - 1) / -incr : 0;
  return 0;
}

static void mockrt_ws_fill(mockrt_ws_t *ws, unsigned nthreads, int wstype, int sched, long start,
                           long end, long incr, long chunk)
{
  ws->wstype = wstype;
  ws->sched = sched;
  ws->start = start;
  ws->incr = incr;
  ws->count = mockrt_trip_count(start, end, incr);
  /* An unchunked static loop: one block per thread. */
  if (sched == MOCKRT_SCHED_STATIC && chunk <= 0)
    chunk = (ws->count + (long)nthreads - 1) / (long)nthreads;
  ws->chunk = chunk > 0 ? chunk : 1;
  atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->single, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->ord, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->left, (int)nthreads, memory_order_relaxed);
  ws->doacross = NULL;
}

static void mockrt_ws_pos_init(mockrt_task_t *t, const void *codeptr)
{
  t->pos.fixed_k = t->thread_num;
  t->pos.walk_k = 0;
  t->pos.walk_first = 0;
  t->pos.ord_first = t->pos.ord_end = 0;
  t->pos.ord_held = false;
  t->pos.ord_passed = true; /* no unit yet */
  t->pos.ordered = false;
  t->pos.codeptr = codeptr;
}

static void mockrt_ws_work(mockrt_task_t *t, int wstype, int endpoint, uint64_t count,
                           const void *codeptr)
{
  if (mockrt_ompt.work)
    mockrt_ompt.work((ompt_work_t)wstype, (ompt_scope_endpoint_t)endpoint, &t->team->parallel_data,
                     &t->task_data, count, codeptr);
}

void mockrt_ws_preset(mockrt_team_t *team, int sched, long start, long end, long incr, long chunk)
{
  mockrt_ws_t *ws = &team->ws[0];
  mockrt_ws_fill(ws, team->nthreads, ompt_work_loop, sched, start, end, incr, chunk);
  atomic_store_explicit(&ws->phase, 2, memory_order_release);
  team->preset_ws = true;
}

void mockrt_ws_preset_begin(mockrt_task_t *t, const void *codeptr)
{
  mockrt_ws_pos_init(t, codeptr);
  mockrt_ws_work(t, t->ws->wstype, ompt_scope_begin, (uint64_t)t->ws->count, codeptr);
}

/* Take the slot of the task's next construct, setting it up if first. */
static mockrt_ws_t *mockrt_ws_slot(mockrt_task_t *t, int wstype, int sched, long start, long end,
                                   long incr, long chunk)
{
  mockrt_team_t *team = t->team;
  unsigned long k = t->ws_next++;
  mockrt_ws_t *ws = &team->ws[k % MOCKRT_WS_SLOTS];

  while (atomic_load_explicit(&ws->ticket, memory_order_acquire) != k)
    sched_yield();
  int expected = 0;
  if (atomic_compare_exchange_strong_explicit(&ws->phase, &expected, 1, memory_order_acquire,
                                              memory_order_acquire)) {
    mockrt_ws_fill(ws, team->nthreads, wstype, sched, start, end, incr, chunk);
    atomic_store_explicit(&ws->phase, 2, memory_order_release);
  } else {
    while (atomic_load_explicit(&ws->phase, memory_order_acquire) != 2)
      sched_yield();
  }
  t->ws = ws;
  return ws;
}

/* The last thread out hands the slot to construct k + MOCKRT_WS_SLOTS. */
static void mockrt_ws_release(mockrt_task_t *t, mockrt_ws_t *ws)
{
  t->ws = NULL;
  mockrt_ws_unclaim(ws);
}

void mockrt_ws_unclaim(mockrt_ws_t *ws)
{
  if (atomic_fetch_sub_explicit(&ws->left, 1, memory_order_acq_rel) == 1) {
    unsigned long k = atomic_load_explicit(&ws->ticket, memory_order_relaxed);
    free(ws->doacross);
    ws->doacross = NULL;
    atomic_store_explicit(&ws->phase, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->ticket, k + MOCKRT_WS_SLOTS, memory_order_release);
  }
}

mockrt_ws_t *mockrt_ws_claim(mockrt_task_t *t)
{
  mockrt_ws_t *saved = t->ws;
  mockrt_ws_t *ws = mockrt_ws_slot(t, ompt_work_loop, MOCKRT_SCHED_STATIC, 0, 0, 1, 1);
  t->ws = saved;
  return ws;
}

void mockrt_ws_enter_ex(mockrt_task_t *t, int wstype, int sched, long start, long end, long incr,
                        long chunk, const void *codeptr)
{
  mockrt_ws_settle(t);
  mockrt_ws_t *ws = mockrt_ws_slot(t, wstype, sched, start, end, incr, chunk);
  mockrt_ws_pos_init(t, codeptr);
  mockrt_ws_work(t, wstype, ompt_scope_begin, (uint64_t)ws->count, codeptr);
}

void mockrt_ws_enter(mockrt_task_t *t, int sched, long start, long end, long incr, long chunk)
{
  mockrt_ws_enter_ex(t, ompt_work_loop, sched, start, end, incr, chunk, NULL);
}

/* Guided: a share of what is left, never below the chunk size. */
static long mockrt_guided_size(const mockrt_ws_t *ws, long rest, long nthreads)
{
  long n = (rest + nthreads - 1) / nthreads;
  if (n < ws->chunk)
    n = ws->chunk;
  return n > rest ? rest : n;
}

/* Fixed assignment: the task's next chunk, chunk k for k = thread_num + i * nthreads. */
static bool mockrt_ws_next_fixed(mockrt_task_t *t, mockrt_ws_t *ws, long *first, long *n)
{
  long nthreads = (long)t->team->nthreads, k = t->pos.fixed_k;
  if (ws->sched == MOCKRT_SCHED_GUIDED) {
    /* Walk the chunk sequence from where this task stopped last time. */
    while (t->pos.walk_k < k) {
      long rest = ws->count - t->pos.walk_first;
      if (rest <= 0)
        return false;
      t->pos.walk_first += mockrt_guided_size(ws, rest, nthreads);
      t->pos.walk_k++;
    }
    long rest = ws->count - t->pos.walk_first;
    if (rest <= 0)
      return false;
    *first = t->pos.walk_first;
    *n = mockrt_guided_size(ws, rest, nthreads);
  } else {
    if (k >= (ws->count + ws->chunk - 1) / ws->chunk)
      return false;
    *first = k * ws->chunk;
    *n = ws->count - *first < ws->chunk ? ws->count - *first : ws->chunk;
  }
  t->pos.fixed_k = k + nthreads;
  return true;
}

static bool mockrt_ws_next_shared(mockrt_task_t *t, mockrt_ws_t *ws, long *pfirst, long *pn)
{
  long first, n;
  if (ws->sched == MOCKRT_SCHED_GUIDED) {
    long nthreads = (long)t->team->nthreads;
    first = atomic_load_explicit(&ws->next, memory_order_relaxed);
    do {
      long rest = ws->count - first;
      if (rest <= 0)
        return false;
      n = mockrt_guided_size(ws, rest, nthreads);
    } while (!atomic_compare_exchange_weak_explicit(&ws->next, &first, first + n,
                                                    memory_order_relaxed, memory_order_relaxed));
  } else {
    /* Dynamic: test first so that the counter cannot run far past the end. */
    if (atomic_load_explicit(&ws->next, memory_order_relaxed) >= ws->count)
      return false;
    first = atomic_fetch_add_explicit(&ws->next, ws->chunk, memory_order_relaxed);
    if (first >= ws->count)
      return false;
    n = ws->count - first < ws->chunk ? ws->count - first : ws->chunk;
  }
  *pfirst = first;
  *pn = n;
  return true;
}

bool mockrt_ws_next(mockrt_task_t *t, long *istart, long *iend)
{
  mockrt_ws_t *ws = t->ws;
  long first, n;
  bool more;

  if (!ws)
    return false;
  /* A cancelled loop or sections hands out nothing more. */
  if (atomic_load_explicit(&t->team->ws_cancelled, memory_order_acquire))
    return false;
  if (ws->sched == MOCKRT_SCHED_STATIC || mockrt_icv.deterministic)
    more = mockrt_ws_next_fixed(t, ws, &first, &n);
  else
    more = mockrt_ws_next_shared(t, ws, &first, &n);
  if (!more)
    return false;
  *istart = ws->start + first * ws->incr;
  *iend = ws->start + (first + n) * ws->incr;
  if (mockrt_ompt.dispatch) {
    /* OMPT 5.0: the logical number of the chunk's first iteration, or the section's number. */
    ompt_data_t instance = {.value = ws->wstype == ompt_work_sections ? (uint64_t)*istart
                                                                      : (uint64_t)first};
    mockrt_ompt.dispatch(&t->team->parallel_data, &t->task_data,
                         ws->wstype == ompt_work_sections ? ompt_dispatch_section
                                                          : ompt_dispatch_iteration,
                         instance);
  }
  return true;
}

bool mockrt_ws_single(mockrt_task_t *t, const void *codeptr)
{
  mockrt_ws_settle(t);
  mockrt_ws_t *ws = mockrt_ws_slot(t, ompt_work_single_executor, MOCKRT_SCHED_DYNAMIC, 0, 0, 1, 1);
  bool mine;
  if (mockrt_icv.deterministic) {
    mine = t->thread_num == 0;
  } else {
    int expected = 0;
    mine = atomic_compare_exchange_strong_explicit(&ws->single, &expected, 1, memory_order_acq_rel,
                                                   memory_order_relaxed);
  }
  mockrt_ws_release(t, ws);
  if (mine) {
    mockrt_ws_work(t, ompt_work_single_executor, ompt_scope_begin, 1, codeptr);
    t->pos.single_open = codeptr ? codeptr : (const void *)t;
  } else {
    mockrt_ws_work(t, ompt_work_single_other, ompt_scope_begin, 1, codeptr);
    mockrt_ws_work(t, ompt_work_single_other, ompt_scope_end, 1, codeptr);
  }
  return mine;
}

void mockrt_ws_single_end_at(mockrt_task_t *t, const void *end_codeptr)
{
  const void *codeptr = t->pos.single_open;
  if (!codeptr)
    return;
  t->pos.single_open = NULL;
  if (end_codeptr)
    codeptr = end_codeptr;
  mockrt_ws_work(t, ompt_work_single_executor, ompt_scope_end, 1,
                 codeptr == (const void *)t ? NULL : codeptr);
}

void mockrt_ws_single_end(mockrt_task_t *t)
{
  mockrt_ws_single_end_at(t, NULL);
}

/*
 * At a barrier or the next construct every earlier construct is over.  One
 * still open was left by a cancel (clang jumps out of a cancelled dynamic
 * loop without asking for more): its work ends and its slot is given back.
 */
void mockrt_ws_settle(mockrt_task_t *t)
{
  if (!t)
    return;
  if (MOCKRT_UNLIKELY(t->pos.single_open != NULL))
    mockrt_ws_single_end(t);
  if (MOCKRT_UNLIKELY(t->ws != NULL))
    mockrt_ws_leave(t);
}

void mockrt_ws_leave(mockrt_task_t *t)
{
  if (t->ws)
    mockrt_ws_leave_at(t, (uint64_t)t->ws->count, t->pos.codeptr);
}

void mockrt_ws_leave_at(mockrt_task_t *t, uint64_t count, const void *codeptr)
{
  mockrt_ws_t *ws = t->ws;
  if (!ws)
    return;
  if (!(mockrt_fault(MOCKRT_FAULT_WORK_END_DROPPED) && ws->wstype == ompt_work_loop))
    mockrt_ws_work(t, ws->wstype, ompt_scope_end, count, codeptr);
  if (mockrt_fault(MOCKRT_FAULT_DISPATCH_OUTSIDE_WORK) && mockrt_ompt.dispatch) {
    ompt_data_t instance = {.value = 0};
    mockrt_ompt.dispatch(&t->team->parallel_data, &t->task_data, ompt_dispatch_iteration, instance);
  }
  mockrt_ws_release(t, ws);
}
