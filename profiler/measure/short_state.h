/* The OpenMP states of a trace too short to show: one bound, shared by
 * the recording (core/trace.c, which does not keep them) and the Chrome
 * export (report/chrome_trace.c, which does not draw them), so that a
 * trace recorded before the recording dropped them draws the same.
 *
 * A state is a begin record and the end record of the same kind that
 * closes it (measure/format.h: PARALLEL, BARRIER, IDLE, LOCK_WAIT; an
 * end's kind is its begin's plus one). A recursive task program waits in
 * a taskwait, for a few microseconds, for every task it creates: millions
 * of states that no sample can resolve. */
#ifndef KNIT_MEASURE_SHORT_STATE_H
#define KNIT_MEASURE_SHORT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/format.h"

/* How long a PROBE sample lasts at most, for a timeline: probes have no
 * period (the header's period is 0). */
#define KNIT_PROBE_SAMPLE_NS 1000000ull

/* A state whose end comes less than this after its begin is too short: a
 * hundredth of the sample's length, and at most 10 us, far below what a
 * sample resolves, far above a taskwait that finds its task done.
 * period_ns is the measurement header's period (0 for PROBE). */
static inline uint64_t knit_short_state_ns(uint64_t period_ns)
{
  uint64_t sample_ns = period_ns ? period_ns : KNIT_PROBE_SAMPLE_NS;
  uint64_t ns = sample_ns / 100;
  return ns < 10000 ? ns : 10000;
}

static inline bool knit_trace_kind_begins_state(uint32_t kind)
{
  return kind == KNIT_TRACE_PARALLEL_BEGIN || kind == KNIT_TRACE_BARRIER_BEGIN ||
         kind == KNIT_TRACE_IDLE_BEGIN || kind == KNIT_TRACE_LOCK_WAIT_BEGIN;
}

static inline bool knit_trace_kind_ends_state(uint32_t kind)
{
  return kind == KNIT_TRACE_PARALLEL_END || kind == KNIT_TRACE_BARRIER_END ||
         kind == KNIT_TRACE_IDLE_END || kind == KNIT_TRACE_LOCK_WAIT_END;
}

#endif /* KNIT_MEASURE_SHORT_STATE_H */
