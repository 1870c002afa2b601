/* Device tracks of a trace (`knit record -t` with a traced device): each
 * device operation, its start and end on the host's clock, its kind, bytes
 * and launching context, appended to the device's own trace file,
 * trace-device-<N>.knit (measure/format.h).
 *
 * Operations come from the device's trace buffers, which the runtime hands
 * back in buffer-complete callbacks (device_trace.c), on whichever thread
 * it likes but never in a signal handler: they are gathered per buffer in
 * a batch of fixed size and written with plain writes, so that memory
 * stays bounded however many operations a buffer holds. */
#ifndef KNIT_OMPT_DEVICE_TRACK_H
#define KNIT_OMPT_DEVICE_TRACK_H

#include <stdbool.h>
#include <stdint.h>

/* One device operation, as its group of trace records says it. */
typedef struct knit_device_op {
  uint32_t kind;     /* KNIT_TRACE_DEVICE_KERNEL .. _ALLOC */
  uint64_t start_ns; /* host CLOCK_MONOTONIC */
  uint64_t end_ns;
  uint64_t bytes;
  uint32_t thread_index; /* launching thread, UINT32_MAX when unknown */
  uint32_t node;         /* the construct's node in that thread's tree */
} knit_device_op;

/* Operations gathered before a write: 64 of them, 3 KiB of records. */
#define KNIT_DEVICE_TRACK_BATCH 64

typedef struct knit_device_track_batch {
  int device_num;
  unsigned count;
  knit_device_op ops[KNIT_DEVICE_TRACK_BATCH];
} knit_device_track_batch;

/* Whether device operations are traced: the session traces (-t). */
bool knit_device_track_enabled(void);

/* Adds op to b, writing b out first when it is full. */
void knit_device_track_add(knit_device_track_batch *b, const knit_device_op *op);

/* Appends b's operations to its device's file (made, with its header, by
 * the first write) and empties b. */
void knit_device_track_write(knit_device_track_batch *b);

#endif /* KNIT_OMPT_DEVICE_TRACK_H */
