/* Region paths captured after the fork, and the samples that wait for
 * them: see region_paths.h. */
#define _GNU_SOURCE
#include "ompt/region_paths.h"
#include "ompt/missed_samples.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/safe_format.h"
#include "core/session.h"
#include "core/thread.h"
#include "core/trace.h"
#include "ompt/blame.h"
#include "ompt/ompt_state.h"

/* A ticket is a slot's address with its lowest bit set: paths are
 * pointers to aligned memory, so the two never meet. */
#define TICKET_TAG ((uintptr_t)1)

/* How long a callback waits for a ticket. A capture takes microseconds
 * (milliseconds under QEMU); one that takes this long is not coming. */
#define WAIT_LIMIT_NS 2000000000ull

/* A slot's number once its region can never be resolved (its stack went
 * before its capture could be made). */
#define ABANDONED UINT64_MAX

knit_region_state *knit_region_state_of(knit_thread *t)
{
  if (!t)
    return NULL;
  knit_region_state *r = __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
  if (!r) {
    /* Never freed (tickets name its slots), and in a mapping of its own:
     * the thread writes it in every region, and no other thread's data
     * may share its cache lines. */
    r = knit_pages_alloc(sizeof *r);
    /* The handler reads it: published whole. */
    __atomic_store_n(&t->regions, r, __ATOMIC_RELEASE);
  }
  return r;
}

static bool is_ticket(const void *word)
{
  return ((uintptr_t)word & TICKET_TAG) != 0;
}

static knit_region_slot *slot_of(const void *word)
{
  return (knit_region_slot *)((uintptr_t)word & ~TICKET_TAG);
}

/* The path of region number in slot s, if it is final. The slot serves
 * the next region at its level once this one ends: the number read again
 * after the path says the path was still this region's (a sequence lock,
 * the writer in publish). */
static bool read_slot(knit_region_slot *s, uint64_t number, const knit_call_path **path)
{
  if (atomic_load_explicit(&s->done, memory_order_acquire) != number)
    return false;
  const knit_call_path *p = __atomic_load_n(&s->path, __ATOMIC_RELAXED);
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&s->opened, memory_order_relaxed) != number)
    return false;
  *path = p;
  return true;
}

/* The slot serves another region now: region number will never be
 * resolved from it. */
static bool slot_moved_on(knit_region_slot *s, uint64_t number)
{
  return number == ABANDONED || atomic_load_explicit(&s->opened, memory_order_acquire) != number;
}

static void publish(knit_region_slot *s, const knit_call_path *path)
{
  uint64_t number = atomic_load_explicit(&s->opened, memory_order_relaxed);
  __atomic_store_n(&s->path, path, __ATOMIC_RELAXED);
  atomic_store_explicit(&s->done, number, memory_order_release);
}

static uint64_t monotonic_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits for region number of slot s; false when it will not come (the slot
 * moved on, or the wait ran out). Not for signal handlers. */
static bool wait_slot(knit_region_slot *s, uint64_t number, const knit_call_path **path)
{
  uint64_t start = 0;
  for (unsigned spins = 0;; spins++) {
    if (read_slot(s, number, path))
      return true;
    if (slot_moved_on(s, number))
      return false;
    if (spins < 64)
      continue;
    uint64_t now = monotonic_ns();
    if (!start)
      start = now;
    else if (now - start > WAIT_LIMIT_NS)
      break;
    sched_yield();
  }
  knit_thread *t = knit_thread_self();
  knit_region_state *r = t ? __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE) : NULL;
  if (r)
    r->gave_up++;
  knit_log_line("regions: a region's path did not come in time; its samples go under <partial>");
  return false;
}

const knit_call_path *knit_region_path_wait(const void *word)
{
  if (!is_ticket(word))
    return word;
  knit_region_slot *s = slot_of(word);
  uint64_t number = atomic_load_explicit(&s->opened, memory_order_acquire);
  const knit_call_path *path = NULL;
  return wait_slot(s, number, &path) ? path : NULL;
}

bool knit_region_path_peek(const void *word, const knit_call_path **path, knit_region_slot **slot,
                           uint64_t *number)
{
  if (!is_ticket(word)) {
    *path = word;
    return true;
  }
  knit_region_slot *s = slot_of(word);
  uint64_t n = atomic_load_explicit(&s->opened, memory_order_acquire);
  if (read_slot(s, n, path))
    return true;
  *slot = s;
  *number = n;
  return false;
}

static unsigned site_index(const void *site)
{
  uintptr_t a = (uintptr_t)site;
  return (unsigned)((a ^ (a >> 7) ^ (a >> 13)) % KNIT_REGION_WARM_SITES);
}

void knit_region_close(knit_thread *t)
{
  knit_region_state *r = t ? t->regions : NULL;
  if (!r || !r->pending_slot)
    return;
  /* Its stack is gone: the region's samples go under <partial>. */
  atomic_store_explicit(&r->pending_slot->opened, ABANDONED, memory_order_release);
  r->pending_slot = NULL;
  r->open--;
  r->untasked++;
}

void *knit_region_open(knit_thread *t, const ompt_frame_t *here, void *outer, const void *site,
                       bool deferrable)
{
  knit_region_state *r = knit_region_state_of(t);
  if (r && r->pending_slot)
    knit_region_close(t); /* the last region never gave this thread its task */
  /* Never deferred (GNU libgomp's wrappers, a runtime without implicit
   * tasks, deferral off): whether the site is warm does not matter. */
  if (!deferrable || !knit_the_session.defer_captures)
    return (void *)knit_capture_call_path(here, knit_region_path_wait(outer), site);
  bool warm = r && site && r->warm_sites[site_index(site)] == site;
  if (!warm || r->open >= KNIT_REGION_SLOTS) {
    const knit_call_path *path = knit_capture_call_path(here, knit_region_path_wait(outer), site);
    if (r && site && path)
      r->warm_sites[site_index(site)] = site;
    return (void *)path;
  }
  uint64_t number = ++r->opened;
  knit_region_slot *s = &r->slots[r->open++];
  /* The number first: a reader that sees the new number and the old path
   * finds done behind and waits (read_slot). */
  atomic_store_explicit(&s->opened, number, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  r->pending_slot = s;
  r->pending_here = *here;
  r->pending_outer = outer;
  r->pending_site = site;
  return (void *)((uintptr_t)s | TICKET_TAG);
}

void knit_region_task_begins(knit_thread *t)
{
  /* Made here for workers too: their samples may need to be kept. */
  knit_region_state *r = knit_region_state_of(t);
  if (!r)
    return;
  knit_region_slot *s = r->pending_slot;
  r->tasks = r->tasks << 1 | (s ? 1 : 0);
  if (!s)
    return;
  r->pending_slot = NULL;
  /* The region's data keeps the ticket: writing the path there would take
   * the line from the workers that read it, in every region. */
  publish(s, knit_capture_call_path(&r->pending_here, knit_region_path_wait(r->pending_outer),
                                    r->pending_site));
}

void knit_region_task_ends(knit_thread *t)
{
  knit_region_state *r = t ? t->regions : NULL;
  if (!r)
    return;
  if ((r->tasks & 1) && r->open > 0)
    r->open--;
  r->tasks >>= 1;
  knit_deferred_flush_here(t, false);
}

bool knit_deferred_keep(knit_thread *t, const knit_sample_state *st, const knit_path_frame *path,
                        int len, const uint64_t *metrics)
{
  knit_region_state *r = __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
  if (!r || r->deferred_count >= KNIT_DEFERRED_SAMPLES || len < 0 || len > KNIT_DEFERRED_FRAMES)
    return false;
  knit_deferred_sample *d = &r->deferred[r->deferred_count];
  d->slot = st->pending_slot;
  d->number = st->pending_number;
  d->time_ns = t->trace_sample_ns;
  d->len = (uint32_t)len;
  memcpy(d->frames, path, (size_t)len * sizeof *path);
  memcpy(d->metrics, metrics, sizeof d->metrics);
  r->deferred_count++;
  r->kept++;
  return true;
}

/* A deferred sample into the tree: under prefix, or under <partial> when
 * its region was never resolved (or prefix and frames together are longer
 * than the thread's path buffer, free while the handler is held off). */
static void insert(knit_thread *t, const knit_call_path *prefix, bool resolved,
                   const knit_deferred_sample *d)
{
  knit_path_frame *path = t->capture_path;
  const uint32_t max = KNIT_CAPTURE_FRAMES * 2;
  uint32_t len = 0;
  if (!resolved || (prefix && prefix->length + d->len > max)) {
    path[len].module = KNIT_MODULE_PLACEHOLDER;
    path[len].offset = KNIT_PH_PARTIAL;
    path[len].kind = KNIT_NODE_PLACEHOLDER;
    len++;
    t->stats[KNIT_STAT_PARTIAL]++;
  } else if (prefix) {
    len = knit_path_copy(prefix, path, max);
  }
  uint32_t n = d->len < max - len ? d->len : max - len;
  memcpy(path + len, d->frames, n * sizeof *path);
  len += n;
  knit_cct_node *node = knit_thread_path_node(t, path, (int)len);
  if (!node)
    return;
  for (int m = 0; m < KNIT_METRIC_HOST_COUNT; m++)
    node->metrics[m] += d->metrics[m];
  /* Late, with the time it was taken: readers sort (measure/format.h). */
  knit_trace_sample(t, t->path_leaf, d->time_ns);
}

void knit_deferred_flush(knit_thread *t, bool wait, bool give_up)
{
  knit_region_state *r = __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
  if (!r || !r->deferred_count)
    return;
  uint32_t left = 0;
  for (uint32_t i = 0; i < r->deferred_count; i++) {
    knit_deferred_sample *d = &r->deferred[i];
    const knit_call_path *path = NULL;
    bool resolved = read_slot(d->slot, d->number, &path);
    bool never = !resolved && slot_moved_on(d->slot, d->number);
    if (!resolved && !never && wait) {
      resolved = wait_slot(d->slot, d->number, &path);
      never = !resolved;
    }
    if (resolved || never || give_up) {
      insert(t, path, resolved, d);
      if (resolved)
        r->resolved++;
      else
        r->unresolved++;
      continue;
    }
    if (left != i)
      r->deferred[left] = *d;
    left++;
  }
  r->deferred_count = left;
}

void knit_deferred_flush_here(knit_thread *t, bool give_up)
{
  knit_region_state *r = t ? t->regions : NULL;
  if (!r || !r->deferred_count || !t->cct_ready || atomic_load(&t->written) ||
      !knit_thread_claim(t))
    return;
  knit_deferred_flush(t, true, give_up);
  knit_thread_give_back(t);
  knit_take_missed(t);
}

void knit_region_settle(void)
{
  /* GNU libgomp's regions are captured before the fork: no tickets. */
  if (!knit_ompt_runtime.active)
    return;
  int flags = 0, thread_num = 0;
  ompt_data_t *task_data = NULL, *parallel_data = NULL;
  ompt_frame_t *frame = NULL;
  if (knit_ompt_runtime.get_task_info(0, &flags, &task_data, &frame, &parallel_data, &thread_num) !=
      2)
    return;
  const void *word = knit_task_prefix_word(flags, task_data, parallel_data, frame);
  if (is_ticket(word))
    (void)knit_region_path_wait(word);
}

const void *knit_region_unlent(knit_thread *t, const ompt_data_t *parallel_data,
                               const ompt_frame_t *tf, const void *word)
{
  knit_region_state *r = t ? __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE) : NULL;
  if (!r || !parallel_data || (tf && tf->exit_frame.ptr) ||
      __atomic_load_n(&r->lent, __ATOMIC_ACQUIRE) != parallel_data)
    return word;
  return r->lent_word;
}

void knit_region_log(void)
{
  uint64_t tickets = 0, kept = 0, resolved = 0, unresolved = 0, gave_up = 0, untasked = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    knit_region_state *r = __atomic_load_n(&t->regions, __ATOMIC_ACQUIRE);
    if (!r)
      continue;
    tickets += r->opened;
    kept += r->kept;
    resolved += r->resolved;
    unresolved += r->unresolved;
    gave_up += r->gave_up;
    untasked += r->untasked;
  }
  char line[256];
  knit_safe_snprintf(line, sizeof line,
                     "regions: captured after the fork=%llu samples deferred=%llu resolved=%llu "
                     "unresolved=%llu waits given up=%llu without a task=%llu",
                     (unsigned long long)tickets, (unsigned long long)kept,
                     (unsigned long long)resolved, (unsigned long long)unresolved,
                     (unsigned long long)gave_up, (unsigned long long)untasked);
  knit_log_line(line);
}
