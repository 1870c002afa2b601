/* The trace ring: see trace_ring.h.
 *
 * Taking a record back. The producer owns the slots it has not published
 * and the count in head; the consumer reads the slots below the count it
 * last saw. A record can be taken back only while no consumer has seen the
 * count that holds it, or a drain could be writing it out at that very
 * moment, and the count would then go below the consumer's tail. A plain
 * check of tail cannot tell: a consumer may have loaded head and not yet
 * moved tail. So the two agree on head itself. Every push publishes
 * count * 2 + 1: the low bit says the last record is still the producer's
 * to take back. A consumer takes its view of the ring with an atomic
 * fetch-and that clears the bit as it reads the count. Taking back is a
 * compare-and-swap from that same word (bit set) to the count less one
 * (bit clear). Both are read-modify-writes of one atomic, so one comes
 * first: either the consumer's view lacks the record (the swap came first:
 * it reads the count less one), or the swap fails (the bit is gone) and
 * the record stays, to be followed by whatever comes next. The bit is
 * clear after a take-back: only the very last push can go, once. */
#include "core/trace_ring.h"

#define RETRACTABLE 1u

void knit_trace_ring_init(knit_trace_ring *r, uint32_t capacity)
{
  atomic_store(&r->head, 0);
  atomic_store(&r->tail, 0);
  atomic_store(&r->dropped, 0);
  atomic_store(&r->dropped_total, 0);
  atomic_store(&r->taken_back, 0);
  r->capacity = capacity;
}

bool knit_trace_ring_push(knit_trace_ring *r, uint64_t time_ns, uint32_t node, uint32_t kind)
{
  /* Only the producer changes the count: a consumer clearing the bit
   * meanwhile loses nothing when the new word replaces it. */
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed) >> 1;
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_relaxed);
  /* Room for the event, and for the count of those dropped before it. */
  uint64_t need = dropped ? 2 : 1;
  if (head - tail + need > r->capacity) {
    atomic_store_explicit(&r->dropped, dropped + 1, memory_order_relaxed);
    atomic_store_explicit(&r->dropped_total,
                          atomic_load_explicit(&r->dropped_total, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return false;
  }
  uint32_t mask = r->capacity - 1;
  if (dropped) {
    uint32_t told = dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped;
    r->slots[head & mask] = (knit_trace_record){time_ns, told, KNIT_TRACE_DROPPED};
    head++;
    atomic_store_explicit(&r->dropped, dropped - told, memory_order_relaxed);
  }
  r->slots[head & mask] = (knit_trace_record){time_ns, node, kind};
  /* Release: the consumer that sees the new head sees the records. */
  atomic_store_explicit(&r->head, (head + 1) << 1 | RETRACTABLE, memory_order_release);
  return true;
}

bool knit_trace_ring_take_back(knit_trace_ring *r, uint32_t kind, uint64_t end_ns,
                               uint64_t within_ns)
{
  uint64_t word = atomic_load_explicit(&r->head, memory_order_relaxed);
  /* A refused push since the last record: it was not the one right before
   * this end. */
  if (!(word & RETRACTABLE) || atomic_load_explicit(&r->dropped, memory_order_relaxed) != 0)
    return false;
  uint64_t head = word >> 1;
  /* The producer's own slot, which no consumer writes. */
  const knit_trace_record *last = &r->slots[(head - 1) & (r->capacity - 1)];
  if (last->kind != kind || end_ns < last->time_ns || end_ns - last->time_ns >= within_ns)
    return false;
  if (!atomic_compare_exchange_strong_explicit(&r->head, &word, (head - 1) << 1,
                                               memory_order_relaxed, memory_order_relaxed))
    return false;
  atomic_store_explicit(&r->taken_back,
                        atomic_load_explicit(&r->taken_back, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  return true;
}

size_t knit_trace_ring_pending(knit_trace_ring *r)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire) >> 1;
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  return (size_t)(head - tail);
}

size_t knit_trace_ring_drain(knit_trace_ring *r,
                             int (*sink)(void *ctx, const knit_trace_record *records, size_t n),
                             void *ctx)
{
  /* The consumer's view: from now on nothing below this count can be taken
   * back (see above). Acquire: the records below it are there. */
  uint64_t head =
      atomic_fetch_and_explicit(&r->head, ~(uint64_t)RETRACTABLE, memory_order_acquire) >> 1;
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  size_t taken = 0;
  while (tail < head) {
    uint32_t at = (uint32_t)(tail & (r->capacity - 1));
    uint64_t span = r->capacity - at;
    if (span > head - tail)
      span = head - tail;
    if (sink(ctx, &r->slots[at], (size_t)span) != 0)
      break;
    tail += span;
    taken += (size_t)span;
    /* Release: the producer that sees the slots free is done reading them
     * here. */
    atomic_store_explicit(&r->tail, tail, memory_order_release);
  }
  return taken;
}

uint64_t knit_trace_ring_take_dropped(knit_trace_ring *r)
{
  return atomic_exchange(&r->dropped, 0);
}
