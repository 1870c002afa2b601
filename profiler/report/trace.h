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
 * thread files are. */
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

typedef struct knit_traces {
  knit_thread_trace *threads; /* by thread index, then tid */
  size_t count;
  uint64_t begin_ns, end_ns; /* the first and last event of all threads */
} knit_traces;

/* Reads the traces of p's measurement directory. 0: read (out filled, free
 * with knit_traces_free); 1: the measurement has no trace files; -1: error
 * (said on diag, as "knit: error: ..."); warnings go to diag too. */
int knit_profile_read_traces(const knit_profile *p, knit_traces *out, FILE *diag);

void knit_traces_free(knit_traces *t);

/* The name of an event kind as the views show it ("sample", "idle begin"). */
const char *knit_trace_kind_name(uint32_t kind);

#endif /* KNIT_REPORT_TRACE_H */
