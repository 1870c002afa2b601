/* Call-path traces (`knit record -t`, KNIT_TRACE=1): per thread, a
 * time-ordered stream of events, one per sample and one per OpenMP
 * transition the tool sees, written to trace-<index>-<tid>.knit next to
 * the thread's file (measure/format.h).
 *
 * Events go into a ring of fixed size per thread (core/trace_ring.h),
 * made when the thread is attached, outside any handler, and kept for the
 * thread state's life (a reused state reuses it). The handler only
 * appends. The ring is drained to the file, outside the handler, by:
 *   - the thread itself, at its OpenMP transitions, once the ring is past
 *     its high-water mark;
 *   - a flusher thread, every TRACE_FLUSH_MS, so that a thread that runs
 *     long without any callback loses nothing (core/trace_flusher.c);
 *   - the writer of the thread's file, at the thread's end, at exit, and on
 *     the crash path (core/writer.c).
 * Without -t none of this exists: no ring, no thread, one predictable
 * branch per sample. */
#ifndef KNIT_CORE_TRACE_H
#define KNIT_CORE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

struct knit_thread;

/* Records per thread's ring (256 KiB): at 20 kHz, the highest rate, and
 * with a transition per sample, 400 ms of events; the flusher drains every
 * KNIT_TRACE_FLUSH_MS. KNIT_TRACE_RECORDS (a power of two, 16 to 2^20)
 * sets another size, for tests of a ring that fills. The thread drains its
 * own ring at its transitions once it is half full. */
#define KNIT_TRACE_RING_RECORDS 16384u
#define KNIT_TRACE_FLUSH_MS     50

/* Whether the session traces. Async-signal-safe. */
bool knit_trace_enabled(void);

/* The monotonic clock now, in ns. Async-signal-safe. */
uint64_t knit_trace_now(void);

/* The thread starts (or takes over a retired thread's state): its ring is
 * made or emptied; its trace file is made at the first drain with records
 * to write (a thread never sampled nor in OpenMP has none). Not
 * async-signal-safe. */
void knit_trace_attach(struct knit_thread *t);

/* A sample of node at time_ns: from the handler, or with the handler held
 * off (deferred and missed samples). Async-signal-safe. */
void knit_trace_sample(struct knit_thread *t, uint32_t node, uint64_t time_ns);

/* A transition (knit_trace_kind) of the calling thread, t, now: from its
 * own code, outside the handler; drains the ring when past its high-water
 * mark. Its node is that of the thread's last sample. The end of a state
 * that began right before it, with no event between, less than
 * knit_short_state_ns before (measure/short_state.h), takes the begin back
 * instead: neither is written, and the log counts the state as not kept. */
void knit_trace_transition(struct knit_thread *t, uint32_t kind);

/* The thread's OpenMP states as its trace shows them, from the blame
 * bookkeeping every runtime layer feeds (ompt/blame.c): a begin or end
 * event when the state changes, nothing otherwise. */
void knit_trace_idle(struct knit_thread *t, bool idle);
void knit_trace_lock_wait(struct knit_thread *t, bool waiting);

/* Writes what t's ring holds to its file; final: the thread is done, the
 * drops not yet recorded are written too. Whoever drains first does it; a
 * second caller skips, but final waits for the first (bounded).
 * Async-signal-safe (the crash path). */
void knit_trace_drain(struct knit_thread *t, bool final);

/* Starts the flusher thread (once; when tracing). */
void knit_trace_start_flusher(void);

/* Counts a device's trace records (ompt/device_track.h) for the log:
 * written, or lost to a failed write; new_file: the write made the
 * device's file. */
void knit_trace_count_device(uint64_t written, uint64_t lost, bool new_file);

/* Writes the trace totals to the log: thread records written and their
 * files, events dropped by full rings, short states not kept, device
 * records and their files, records not written. */
void knit_trace_log(void);

#endif /* KNIT_CORE_TRACE_H */
