/*
 * Worksharing constructs: dynamic and guided loop dispatch, sections (a
 * dynamic loop over section numbers) and single.
 *
 * Every thread of a team meets the same constructs in the same order, so a
 * thread's count of constructs met names the construct.  Construct k lives
 * in slot k % MOCKRT_WS_SLOTS; a thread that races ahead through nowait
 * constructs waits until the slot's previous user has been left by everyone.
 * Iterations are handed out as indices 0..count-1 and mapped back to the
 * loop's own start and increment, so negative steps need no special case.
 */
#include "mockrt.h"

#include <sched.h>

static long mockrt_trip_count(long start, long end, long incr)
{
  if (incr > 0)
    return end > start ? (end - start + incr - 1) / incr : 0;
  if (incr < 0)
    return start > end ? (start - end - incr - 1) / -incr : 0;
  return 0;
}

static void mockrt_ws_fill(mockrt_ws_t *ws, unsigned nthreads, int sched, long start,
                           long end, long incr, long chunk)
{
  ws->sched = sched;
  ws->start = start;
  ws->incr = incr;
  ws->count = mockrt_trip_count(start, end, incr);
  ws->chunk = chunk > 0 ? chunk : 1;
  atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->single, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->ord, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->left, (int)nthreads, memory_order_relaxed);
}

void mockrt_ws_preset(mockrt_team_t *team, int sched, long start, long end, long incr, long chunk)
{
  mockrt_ws_t *ws = &team->ws[0];
  mockrt_ws_fill(ws, team->nthreads, sched, start, end, incr, chunk);
  atomic_store_explicit(&ws->phase, 2, memory_order_release);
  team->preset_ws = true;
}

void mockrt_ws_enter(mockrt_task_t *t, int sched, long start, long end, long incr, long chunk)
{
  mockrt_team_t *team = t->team;
  unsigned long k = t->ws_next++;
  mockrt_ws_t *ws = &team->ws[k % MOCKRT_WS_SLOTS];

  while (atomic_load_explicit(&ws->ticket, memory_order_acquire) != k)
    sched_yield();
  int expected = 0;
  if (atomic_compare_exchange_strong_explicit(&ws->phase, &expected, 1, memory_order_acquire,
                                              memory_order_acquire)) {
    mockrt_ws_fill(ws, team->nthreads, sched, start, end, incr, chunk);
    atomic_store_explicit(&ws->phase, 2, memory_order_release);
  } else {
    while (atomic_load_explicit(&ws->phase, memory_order_acquire) != 2)
      sched_yield();
  }
  t->ws = ws;
}

bool mockrt_ws_next(mockrt_task_t *t, long *istart, long *iend)
{
  mockrt_ws_t *ws = t->ws;
  long first, n;

  if (!ws)
    return false;
  if (ws->sched == MOCKRT_SCHED_GUIDED) {
    long nthreads = (long)t->team->nthreads;
    first = atomic_load_explicit(&ws->next, memory_order_relaxed);
    do {
      long rest = ws->count - first;
      if (rest <= 0)
        return false;
      /* Guided: a share of what is left, never below the chunk size. */
      n = (rest + nthreads - 1) / nthreads;
      if (n < ws->chunk)
        n = ws->chunk;
      if (n > rest)
        n = rest;
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
  *istart = ws->start + first * ws->incr;
  *iend = ws->start + (first + n) * ws->incr;
  return true;
}

bool mockrt_ws_single(mockrt_task_t *t)
{
  int expected = 0;
  return atomic_compare_exchange_strong_explicit(&t->ws->single, &expected, 1,
                                                 memory_order_acq_rel, memory_order_relaxed);
}

void mockrt_ws_leave(mockrt_task_t *t)
{
  mockrt_ws_t *ws = t->ws;
  if (!ws)
    return;
  t->ws = NULL;
  if (atomic_fetch_sub_explicit(&ws->left, 1, memory_order_acq_rel) == 1) {
    /* The last thread out hands the slot to construct k + MOCKRT_WS_SLOTS. */
    unsigned long k = atomic_load_explicit(&ws->ticket, memory_order_relaxed);
    atomic_store_explicit(&ws->phase, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->ticket, k + MOCKRT_WS_SLOTS, memory_order_release);
  }
}
