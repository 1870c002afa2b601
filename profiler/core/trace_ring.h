/* A thread's trace buffer (`knit record -t`): a single-producer,
 * single-consumer ring of trace records (measure/format.h).
 *
 * The producer is the thread itself: its sample handler, or its own code
 * with the handler held off (knit_thread_claim), so that one push never
 * interleaves with another. The consumer is whoever drains it to the
 * thread's trace file, one at a time (core/trace.c). Pushing never blocks
 * and never allocates: when the ring is full the event is refused and
 * counted, and the count goes into the ring as a KNIT_TRACE_DROPPED record
 * as soon as there is room again, so a reader knows where events are
 * missing and how many.
 *
 * The producer may also take back the last record it pushed, as long as
 * no consumer can have read it (knit_trace_ring_take_back): a state's
 * begin whose end comes right after it, too soon to show on a timeline,
 * goes with its end rather than being written. head carries the right to
 * do so in its low bit (see trace_ring.c). */
#ifndef KNIT_CORE_TRACE_RING_H
#define KNIT_CORE_TRACE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

typedef struct knit_trace_ring {
  /* Records ever pushed, times two, plus one while the last of them may
   * still be taken back: written by the producer; the consumer only clears
   * the low bit, as it takes its view of the records. */
  _Atomic uint64_t head;
  _Atomic uint64_t tail;    /* records ever taken: written by the consumer */
  _Atomic uint64_t dropped; /* refused and not yet in a DROPPED record */
  _Atomic uint64_t dropped_total;
  _Atomic uint64_t taken_back; /* records taken back, ever */
  uint32_t capacity;           /* a power of two */
  knit_trace_record slots[];
} knit_trace_ring;

/* The bytes a ring of capacity records (a power of two) takes. */
static inline size_t knit_trace_ring_bytes(uint32_t capacity)
{
  return sizeof(knit_trace_ring) + (size_t)capacity * sizeof(knit_trace_record);
}

/* Empties r, of capacity records (a power of two); nobody may use it
 * meanwhile. */
void knit_trace_ring_init(knit_trace_ring *r, uint32_t capacity);

/* Producer: appends an event, or counts it dropped when the ring is full.
 * Async-signal-safe, lock-free. */
bool knit_trace_ring_push(knit_trace_ring *r, uint64_t time_ns, uint32_t node, uint32_t kind);

/* Producer: takes back the last record pushed when it is of kind, less
 * than within_ns before end_ns, no push was refused since, and no
 * consumer can have read it (none took its view of the ring since the
 * push). Returns whether it did; the record is then as if never pushed.
 * Async-signal-safe, lock-free. */
bool knit_trace_ring_take_back(knit_trace_ring *r, uint32_t kind, uint64_t end_ns,
                               uint64_t within_ns);

/* Records waiting for the consumer. */
size_t knit_trace_ring_pending(knit_trace_ring *r);

/* Consumer: hands the waiting records to sink, in order, in at most two
 * contiguous spans, and frees their slots once sink accepted them (returned
 * 0); a span sink refused stays. Returns the records taken. */
size_t knit_trace_ring_drain(knit_trace_ring *r,
                             int (*sink)(void *ctx, const knit_trace_record *records, size_t n),
                             void *ctx);

/* Consumer, once the producer is done for good: the drops not yet in a
 * DROPPED record, taken (the caller writes that record). */
uint64_t knit_trace_ring_take_dropped(knit_trace_ring *r);

#endif /* KNIT_CORE_TRACE_RING_H */
