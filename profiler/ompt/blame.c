/* Blame shifting: see blame.h. */
#include "ompt/blame.h"

#include <omp-tools.h>
#include <stdatomic.h>

#include "cct/cct.h"
#include "core/thread.h"
#include "core/trace.h"
#include "measure/format.h"

/* --- idleness --- */

/* Which OpenMP threads are counted, and which of them are idle: a board of
 * one cache line per thread, each written only by its thread, and summed
 * by a working thread's sample. A thread changes its state four times a
 * parallel region (implicit task, barrier wait, and back); one shared
 * counter made every change a cache line taken from another core, which
 * cost more than the rest of the blame bookkeeping together. A sample
 * reads the lines instead, a thousand times a second at most.
 *
 * A thread takes the lowest free line at its begin and frees it at its
 * end, so the board holds as many lines as threads live at once, and a
 * sample reads up to the highest line ever taken. Threads beyond the
 * board's size share two counters, as before. */
#define IDLE_BOARD_LINES 1024

/* Two cache lines a thread: cores fetch lines in aligned pairs (the
 * adjacent-line prefetcher), so a neighbour's writes to a line of the same
 * pair would still take it away. */
typedef struct idle_line {
  _Atomic uint8_t counted; /* a thread holds the line */
  _Atomic uint8_t idle;    /* and it is idle */
  char pad[126];
} idle_line;

static idle_line idle_board[IDLE_BOARD_LINES] __attribute__((aligned(128)));
static _Atomic uint32_t idle_board_top; /* lines ever taken: 0 .. top-1 */
static _Atomic int64_t overflow_threads;
static _Atomic int64_t overflow_idle;

static int32_t take_line(void)
{
  for (uint32_t i = 0; i < IDLE_BOARD_LINES; i++) {
    uint8_t free_line = 0;
    if (atomic_compare_exchange_strong(&idle_board[i].counted, &free_line, 1)) {
      uint32_t top = atomic_load(&idle_board_top);
      while (top < i + 1 && !atomic_compare_exchange_weak(&idle_board_top, &top, i + 1)) {
      }
      return (int32_t)i;
    }
  }
  return -1;
}

static void set_idle(knit_thread *t, bool idle)
{
  if (t->omp_slot >= 0)
    atomic_store_explicit(&idle_board[t->omp_slot].idle, idle, memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&overflow_idle, idle ? 1 : -1, memory_order_relaxed);
}

/* OpenMP threads counted, and how many of them are idle, now. */
static void count_threads(int64_t *threads, int64_t *idle)
{
  int64_t n = atomic_load_explicit(&overflow_threads, memory_order_relaxed);
  int64_t i = atomic_load_explicit(&overflow_idle, memory_order_relaxed);
  uint32_t top = atomic_load_explicit(&idle_board_top, memory_order_relaxed);
  for (uint32_t k = 0; k < top && k < IDLE_BOARD_LINES; k++) {
    if (!atomic_load_explicit(&idle_board[k].counted, memory_order_relaxed))
      continue;
    n++;
    i += atomic_load_explicit(&idle_board[k].idle, memory_order_relaxed);
  }
  *threads = n;
  *idle = i;
}

/* A thread is idle in the runtime's pool (no implicit task, and not the
 * initial thread) and while it waits in a barrier, taskwait or taskgroup. */
static void update_idle(knit_thread *t)
{
  if (!t->omp_counted)
    return;
  bool idle = (!t->omp_initial && t->omp_depth <= 0) || t->omp_waits > 0;
  if (idle != t->omp_idle) {
    t->omp_idle = idle;
    set_idle(t, idle);
  }
}

void knit_blame_thread_begin(knit_thread *t, bool initial)
{
  if (!t || t->omp_counted)
    return;
  t->omp_initial = initial;
  t->omp_idle = false;
  t->omp_slot = take_line();
  if (t->omp_slot < 0)
    atomic_fetch_add_explicit(&overflow_threads, 1, memory_order_relaxed);
  t->omp_counted = true;
  update_idle(t);
  /* A worker starts in its pool. Tracing is checked here, where it is
   * one load, so that without -t blame calls nothing more. */
  if (!initial && t->trace)
    knit_trace_idle(t, true);
}

void knit_blame_thread_end(knit_thread *t)
{
  if (!t || !t->omp_counted)
    return;
  if (t->omp_slot >= 0) {
    atomic_store_explicit(&idle_board[t->omp_slot].idle, 0, memory_order_relaxed);
    atomic_store_explicit(&idle_board[t->omp_slot].counted, 0, memory_order_release);
  } else {
    if (t->omp_idle)
      atomic_fetch_sub_explicit(&overflow_idle, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&overflow_threads, 1, memory_order_relaxed);
  }
  t->omp_idle = false;
  t->omp_counted = false;
  if (t->trace)
    knit_trace_idle(t, false);
}

void knit_blame_implicit_task(knit_thread *t, bool begin)
{
  if (!t)
    return;
  t->omp_depth += begin ? 1 : -1;
  update_idle(t);
  if (t->trace)
    knit_trace_idle(t, t->omp_counted && !t->omp_initial && t->omp_depth == 0);
}

void knit_blame_wait(knit_thread *t, bool begin)
{
  if (!t)
    return;
  t->omp_waits += begin ? 1 : -1;
  update_idle(t);
  if (t->trace)
    knit_trace_transition(t, begin ? KNIT_TRACE_BARRIER_BEGIN : KNIT_TRACE_BARRIER_END);
}

void knit_blame_task_runs(knit_thread *t, bool begin)
{
  if (!t)
    return;
  /* Past 64 levels the bits are not kept, and the waits of those levels
   * stay as they are (counted idle), as they were before this was known. */
  if (begin) {
    if (t->omp_tasks_run < 64) {
      bool waiting = t->omp_waits > 0;
      t->omp_task_in_wait = (t->omp_task_in_wait << 1) | (waiting ? 1u : 0u);
      if (waiting)
        knit_blame_wait(t, false);
    }
    t->omp_tasks_run++;
    return;
  }
  if (t->omp_tasks_run == 0)
    return;
  t->omp_tasks_run--;
  if (t->omp_tasks_run < 64) {
    bool waiting = t->omp_task_in_wait & 1u;
    t->omp_task_in_wait >>= 1;
    if (waiting)
      knit_blame_wait(t, true);
  }
}

/* --- waits per mutex --- */

/* Open addressing on the wait id; a slot, once keyed, keeps its key, so a
 * lookup never races with a removal.
 *
 * Waits go to the holding under way: each acquisition makes the acquiring
 * thread's record of it (knit_held_mutex) the slot's holder, a waiting
 * sample adds to the holder's record, and the release takes its own
 * record. The runtime tells the tool of a release after the mutex is free,
 * and waiters woken by it may take the mutex, and release it, several times
 * before the releaser's callback runs (on two cores the woken thread often
 * preempts its waker): a record of its own keeps each holding's waits
 * apart whenever its release is reported. */
#define BLAME_SLOTS  4096u
#define BLAME_PROBES 64u

typedef struct blame_slot {
  _Atomic uint64_t wait_id;          /* 0: free */
  _Atomic(knit_held_mutex *) holder; /* the holding under way, or NULL */
  _Atomic uint64_t orphan;           /* waits with no holder known */
} blame_slot;

static blame_slot blame_table[BLAME_SLOTS];

static uint32_t slot_of(uint64_t id)
{
  id ^= id >> 33;
  id *= 0xff51afd7ed558ccdull;
  id ^= id >> 33;
  return (uint32_t)id & (BLAME_SLOTS - 1);
}

/* The slot of wait_id, keyed now if needed, or NULL when the table has no
 * room near its place. */
static blame_slot *find_slot(uint64_t id)
{
  uint32_t at = slot_of(id);
  for (uint32_t i = 0; i < BLAME_PROBES; i++) {
    blame_slot *s = &blame_table[(at + i) & (BLAME_SLOTS - 1)];
    uint64_t key = atomic_load_explicit(&s->wait_id, memory_order_acquire);
    if (key == id)
      return s;
    if (key != 0)
      continue;
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(&s->wait_id, &expected, id) || expected == id)
      return s;
  }
  return NULL;
}

/* The calling thread's record of its holding of wait_id: found, or (make)
 * a free one; NULL when all are taken. */
static knit_held_mutex *held_record(knit_thread *t, uint64_t id, bool make)
{
  knit_held_mutex *free_one = NULL;
  for (unsigned i = 0; i < KNIT_HELD_MUTEXES; i++) {
    uint64_t held = atomic_load_explicit(&t->held[i].wait_id, memory_order_relaxed);
    if (held == id)
      return &t->held[i];
    if (!held && !free_one)
      free_one = &t->held[i];
  }
  return make ? free_one : NULL;
}

void knit_blame_acquire(knit_thread *t, uint64_t wait_id)
{
  if (t)
    t->waiting_for = wait_id;
  if (t && t->trace)
    knit_trace_lock_wait(t, wait_id != 0);
}

void knit_blame_acquired(knit_thread *t, uint64_t wait_id)
{
  if (t)
    t->waiting_for = 0;
  if (t && t->trace)
    knit_trace_lock_wait(t, false);
  if (!t || !wait_id)
    return;
  blame_slot *slot = find_slot(wait_id);
  knit_held_mutex *h = held_record(t, wait_id, true);
  if (!slot)
    return;
  if (h) {
    atomic_store_explicit(&h->waited, 0, memory_order_relaxed);
    atomic_store_explicit(&h->wait_id, wait_id, memory_order_relaxed);
  }
  /* More mutexes held at once than records: waits on this one are
   * orphans, counted as unclaimed. */
  atomic_store_explicit(&slot->holder, h, memory_order_release);
}

uint64_t knit_blame_take(knit_thread *t, uint64_t wait_id)
{
  if (!t || !wait_id)
    return 0;
  knit_held_mutex *h = held_record(t, wait_id, false);
  if (!h)
    return 0;
  blame_slot *slot = find_slot(wait_id);
  if (slot) {
    /* Waits that come after this, before the next acquisition, have no
     * holder: the mutex is free. */
    knit_held_mutex *mine = h;
    atomic_compare_exchange_strong(&slot->holder, &mine, NULL);
  }
  uint64_t waited = atomic_exchange(&h->waited, 0);
  atomic_store_explicit(&h->wait_id, 0, memory_order_relaxed);
  return waited;
}

uint64_t knit_blame_unclaimed(void)
{
  uint64_t sum = 0;
  for (uint32_t i = 0; i < BLAME_SLOTS; i++)
    sum += atomic_load_explicit(&blame_table[i].orphan, memory_order_relaxed);
  for (knit_thread *t = knit_thread_list(); t; t = t->next)
    for (unsigned i = 0; i < KNIT_HELD_MUTEXES; i++)
      sum += atomic_load_explicit(&t->held[i].waited, memory_order_relaxed);
  return sum;
}

static bool is_mutex_wait(int state)
{
  return state == ompt_state_wait_mutex || state == ompt_state_wait_lock ||
         state == ompt_state_wait_critical || state == ompt_state_wait_atomic ||
         state == ompt_state_wait_ordered;
}

static bool is_working(int state)
{
  return state == ompt_state_work_serial || state == ompt_state_work_parallel ||
         state == ompt_state_work_reduction;
}

void knit_blame_sample(knit_thread *t, knit_cct_node *node, uint64_t periods,
                       const knit_sample_state *s)
{
  if (!s->openmp || !node)
    return;
  uint64_t amount = periods * KNIT_BLAME_SCALE;
  if (is_mutex_wait(s->state)) {
    node->metrics[KNIT_METRIC_OMP_MUTEX_WAIT] += amount;
    uint64_t id = t->waiting_for ? t->waiting_for : s->wait_id;
    blame_slot *slot = id ? find_slot(id) : NULL;
    if (!slot) {
      t->stats[KNIT_STAT_BLAME_LOST] += amount;
      return;
    }
    knit_held_mutex *h = atomic_load_explicit(&slot->holder, memory_order_acquire);
    /* The record may have moved on to another mutex since it was read. */
    if (h && atomic_load_explicit(&h->wait_id, memory_order_relaxed) == id)
      atomic_fetch_add_explicit(&h->waited, amount, memory_order_relaxed);
    else
      atomic_fetch_add_explicit(&slot->orphan, amount, memory_order_relaxed);
    return;
  }
  if (!is_working(s->state))
    return;
  /* A thread that waits (in a barrier, taskwait or taskgroup, running no
   * task there: knit_blame_task_runs) is one of the idle ones, whatever
   * its state: libomp reports a thread that looks for tasks to run in a
   * taskwait as working in the runtime (overhead). Its sample is its own
   * idleness, and takes no one else's. */
  if (t->omp_idle)
    return;
  int64_t threads, idle;
  count_threads(&threads, &idle);
  int64_t working = threads - idle;
  if (idle <= 0 || working <= 0)
    return;
  node->metrics[KNIT_METRIC_OMP_IDLE] += amount * (uint64_t)idle / (uint64_t)working;
}
