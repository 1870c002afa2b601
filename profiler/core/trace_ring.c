/* The trace ring: see trace_ring.h. */
#include "core/trace_ring.h"

void knit_trace_ring_init(knit_trace_ring *r, uint32_t capacity)
{
  atomic_store(&r->head, 0);
  atomic_store(&r->tail, 0);
  atomic_store(&r->dropped, 0);
  atomic_store(&r->dropped_total, 0);
  r->capacity = capacity;
}

bool knit_trace_ring_push(knit_trace_ring *r, uint64_t time_ns, uint32_t node, uint32_t kind)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
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
  atomic_store_explicit(&r->head, head + 1, memory_order_release);
  return true;
}

size_t knit_trace_ring_pending(knit_trace_ring *r)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  return (size_t)(head - tail);
}

size_t knit_trace_ring_drain(knit_trace_ring *r,
                             int (*sink)(void *ctx, const knit_trace_record *records, size_t n),
                             void *ctx)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
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
