/* Target devices: what a device does, charged to the host calling context
 * that launched it.
 *
 * At a target construct's begin (ompt_callback_target, on the host thread
 * that encounters it, outside any signal handler) the thread captures the
 * construct's call path, as it does a task's creation, and makes its node
 * in its own tree. The target id is then filed with that node in a table
 * of bounded size that only OMPT callbacks touch, never a signal handler.
 * What the device did for that target id comes later: from the device's
 * trace records (device_trace.c), whose buffers the runtime may hand back
 * on any thread, or, for a runtime without device tracing, from the host's
 * target_data_op callbacks (bytes only).
 *
 * The value is added to the construct's device metrics with an atomic add:
 * only the node's own thread ever changes the tree's shape (it made the
 * node, and the entry of its device metrics, before filing them), entries
 * never move, and a device metric is a word no sample writes. A complete
 * callback on another thread can thus neither tear the tree nor race with
 * a sample, and the writer at exit reads whole words. Records are flushed before the files are written
 * (device_finalize, and knit's exit paths). */
#ifndef KNIT_OMPT_DEVICE_H
#define KNIT_OMPT_DEVICE_H

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#include "cct/cct.h"

struct knit_thread;

/* The device metrics of one target construct's node (KNIT_METRIC_DEVICE_*,
 * less KNIT_METRIC_HOST_COUNT). Kept apart from the tree's nodes, which
 * would otherwise all grow by them for the few constructs that have them. */
#define KNIT_DEVICE_METRICS (KNIT_METRIC_COUNT - KNIT_METRIC_HOST_COUNT)
typedef struct knit_device_node {
  uint32_t node; /* the construct's node id in its thread's tree */
  _Atomic uint64_t metrics[KNIT_DEVICE_METRICS];
} knit_device_node;

/* A thread's constructs: appended by the thread itself only, count
 * published with a release store once an entry is whole, so that the
 * writer reads whole entries. A thread that launches from more places
 * than this has its further constructs' operations counted as
 * unattributed. */
#define KNIT_DEVICE_NODES 1024u
typedef struct knit_device_nodes {
  _Atomic uint32_t count;
  knit_device_node at[KNIT_DEVICE_NODES];
} knit_device_nodes;

/* The launching context of one target id: a construct of that thread. */
typedef struct knit_target_origin {
  struct knit_thread *thread;
  knit_device_node *construct;
} knit_target_origin;

/* Target ids whose launching contexts are kept at once: ids are filed by a
 * hash, and a newer id takes the slot of an older one, whose late records
 * are then counted as unattributed (KNIT_STAT_DEVICE_UNATTRIBUTED). Records
 * come back within a buffer's worth of operations, far fewer than this. */
#define KNIT_TARGET_SLOTS 4096u

/* Devices knit follows; a device number beyond is counted as unattributed. */
#define KNIT_MAX_DEVICES 16

/* Registers the host-side target callbacks and the device ones, with the
 * runtime's set_callback (tool initialization). */
void knit_device_register(ompt_set_callback_t set_callback);

/* Forgets the constructs t filed, once its file is written and before its
 * state can serve another thread: their late records are then counted as
 * unattributed, never added to memory that is another's. */
void knit_device_forget_thread(struct knit_thread *t);

/* What one device operation adds to its construct: n metrics
 * (KNIT_METRIC_DEVICE_*) and their values. Added to target_id's launching
 * context, or the operation is counted as unattributed, once. Any thread;
 * not for signal handlers. */
typedef struct knit_device_amount {
  int metric;
  uint64_t value;
} knit_device_amount;
void knit_device_charge(uint64_t target_id, const knit_device_amount *amounts, int n);

/* Whether device_num's times come from tracing: its host callbacks then
 * charge nothing, so that nothing is counted twice. */
bool knit_device_traced(int device_num);

/* The device callbacks (device_trace.c), registered by knit_device_register
 * and called directly by tests with a fake lookup. */
void knit_device_initialize(int device_num, const char *type, ompt_device_t *device,
                            ompt_function_lookup_t lookup, const char *documentation);
void knit_device_finalize(int device_num);
void knit_device_load(int device_num, const char *filename, int64_t offset_in_file,
                      void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                      uint64_t module_id);

/* The launching context of target_id: its thread's index and the
 * construct's node in that thread's tree; false when none is kept (the
 * same look-up knit_device_charge makes). Any thread; not for signal
 * handlers. */
bool knit_device_origin(uint64_t target_id, uint32_t *thread_index, uint32_t *node);

/* Device operations no launching context was found for, so far. */
uint64_t knit_device_unattributed(void);

/* A target construct on device_num: a device the runtime never
 * initialized for the tool is counted and logged once, as one without
 * tracing. Not for signal handlers. */
void knit_device_seen(int device_num);

/* Flushes every traced device's buffers, so that their records are charged
 * before the threads' files are written. At exit; not for signal handlers. */
void knit_device_flush_all(void);

/* What the devices counted so far, for the main thread's file: the value
 * of a KNIT_STAT_DEVICE* statistic, 0 for any other. Async-signal-safe. */
uint64_t knit_device_stat(int stat);

#endif /* KNIT_OMPT_DEVICE_H */
