/* A measurement's traces (`knit record -t`), read for the views: every
 * thread's events in time order, their nodes those of the profile's merged
 * tree.
 *
 * Each trace file names nodes by its thread's own ids; they are mapped to
 * the merged tree through the thread file of the same index and tid
 * (knit_report_tree_map_thread). Events of a trace whose thread file is
 * missing or unreadable, and events naming a node past its thread file's
 * (a thread file left as a snapshot by a process that was killed), go to
 * the root, and the reader warns. A trace file that cannot be read, or has
 * a torn or unknown record, is named in a warning and the rest kept, as
 * thread files are.
 *
 * Device trace files (trace-device-<N>.knit) give a track per device: its
 * operations' nodes are mapped through their launching thread's file, by
 * its index; an operation whose thread or node is unknown goes to the
 * root. A group of records that is not whole is skipped, with a warning. */
#ifndef KNIT_REPORT_TRACE_H
#define KNIT_REPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"

typedef struct knit_trace_event {
  uint64_t time_ns; /* CLOCK_MONOTONIC of the recorded process */
  uint32_t node;    /* index into knit_profile.tree.nodes */
  uint32_t kind;    /* knit_trace_kind (measure/format.h), never DROPPED */
} knit_trace_event;

typedef struct knit_thread_trace {
  uint32_t thread_index, tid;
  uint32_t thread_flags;    /* KNIT_THREAD_* of its thread file; 0 without one */
  knit_trace_event *events; /* sorted by time, stably */
  size_t count;
  uint64_t dropped; /* events the recording's full buffer refused */
} knit_thread_trace;

/* One operation of a target device (measure/format.h's device groups). */
typedef struct knit_device_slice {
  uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC of the recorded process */
  uint64_t bytes;            /* moved or allocated; 0 for a kernel */
  uint32_t node;             /* the target construct's node in the merged
                                tree; 0 (the root) when its launching
                                context is unknown */
  uint32_t kind;             /* KNIT_TRACE_DEVICE_KERNEL .. _ALLOC */
} knit_device_slice;

/* A device's track: its operations from trace-device-<N>.knit, sorted by
 * start, then end. */
typedef struct knit_device_trace {
  uint32_t device_num;
  knit_device_slice *slices;
  size_t count;
} knit_device_trace;

typedef struct knit_traces {
  knit_thread_trace *threads; /* by thread index, then tid */
  size_t count;
  knit_device_trace *devices; /* by device number */
  size_t device_count;
  uint64_t begin_ns, end_ns; /* the first and last event of all threads and
                                devices */
} knit_traces;

/* Reads the traces of p's measurement directory. 0: read (out filled, free
 * with knit_traces_free); 1: the measurement has no trace files; -1: error
 * (said on diag, as "knit: error: ..."); warnings go to diag too. */
int knit_profile_read_traces(const knit_profile *p, knit_traces *out, FILE *diag);

void knit_traces_free(knit_traces *t);

/* The name of a device operation's kind as the views show it ("kernel",
 * "to device", "from device", "alloc"). */
const char *knit_device_kind_name(uint32_t kind);

/* The name of an event kind as the views show it ("sample", "idle begin"). */
const char *knit_trace_kind_name(uint32_t kind);

#endif /* KNIT_REPORT_TRACE_H */
