/* A measurement's traces as Chrome Trace Event JSON, the form Perfetto's
 * UI and chrome://tracing load, and the one `knit view` embeds to draw its
 * timeline. `knit report --format=chrome` writes it.
 *
 * Its shape (one object, no other members):
 *
 *   {"traceEvents":[...],"displayTimeUnit":"ms"}
 *
 * traceEvents holds, in this order:
 *   - {"name":"process_name","ph":"M","pid":1,"args":{"name":PROGRAM}}
 *   - per thread, by thread index, its track: pid 1, tid the thread's
 *     kernel tid; {"name":"thread_name","ph":"M","pid":1,"tid":TID,
 *     "args":{"name":"thread N (main|openmp|runtime|pthread)"}} (", K events
 *     dropped" before the ')' when its buffer was full) and a
 *     "thread_sort_index" metadata event (args.sort_index N);
 *   - per thread, complete events {"name":...,"cat":...,"ph":"X","pid":1,
 *     "tid":TID,"ts":US,"dur":US,"args":{...}}, ts and dur in microseconds
 *     (three decimals: the recording's nanoseconds) from the first event of
 *     all threads. Two categories:
 *       "omp"     the OpenMP states: "parallel region" (the thread opened
 *                 it and waits for it to end), "<omp-barrier>", "<omp-idle>",
 *                 "<omp-lock-wait>"; args {"node":N} and, when the node
 *                 has a line, "at":"FILE:LINE" (N: the thread's last sample
 *                 before the transition, measure/format.h)
 *       "sample"  one slice per frame of a sample's call path, outermost
 *                 first, named as the report tree names them (functions,
 *                 "name [inlined]" for an inlined call, "loop at FILE:LINE");
 *                 args {"node":N}, N the index of the frame's node in the
 *                 profile's merged tree (knit_profile.tree.nodes).
 *     Slices of a track nest properly: each lies within the slice one level
 *     out, the OpenMP states outermost (a state nests in the one it began
 *     in), the frames of the sample under way inside them. A sample lasts
 *     from its own time until the thread's next sample, at most one period
 *     (1 ms for PROBE); consecutive samples that share frames make one
 *     slice of each shared frame, from the outermost down to the first
 *     that differs. A state change cuts the slices of the frames around
 *     it. Frames before main (the C library's start-up, a thread's
 *     start_thread and clone), which the report hides, are left out.
 *     Slices of zero duration are not written, nor OpenMP states shorter
 *     than a hundredth of a sample's length or 10 us (with the states begun
 *     inside them; measure/short_state.h, the bound under which the
 *     recording keeps none with nothing inside), which the samples cannot
 *     resolve: a recursive task program's taskwaits, a few microseconds
 *     each, would otherwise cut every frame slice around them millions of
 *     times. A track's events come in the order their slices end (a
 *     frame's before the frame around it, which may begin at the same
 *     time): Trace Event viewers order them by ts and, for equal ts, the
 *     longer first, as `knit view` does.
 *   - per traced target device (trace-device-<N>.knit), after the threads,
 *     its track: pid 1, a tid no thread has (one past the highest thread
 *     tid, plus N), "thread_name" args {"name":"device N (TYPE)"} (TYPE as
 *     knit.log names the device; "device N" when it does not) and a
 *     "thread_sort_index" past every thread's; and its operations, by
 *     start, one complete event each, "cat":"device", named by kind:
 *     "kernel", "to device SIZE", "from device SIZE" (SIZE as "64 KiB",
 *     "1.5 MiB", "100 B"), "alloc"; args {"node":N,"at":"FILE:LINE",
 *     "bytes":B}: N the target construct's node (`target at FILE:LINE`)
 *     in the merged tree, the root when its launching context is unknown,
 *     "at" the line of the call that launched it (left out when unknown),
 *     B the bytes moved or allocated (0 for a kernel). ts and dur are the
 *     device's times on the host's clock; a device runs one operation at
 *     a time, so its slices do not overlap.
 */
#ifndef KNIT_REPORT_CHROME_TRACE_H
#define KNIT_REPORT_CHROME_TRACE_H

#include <stdio.h>

#include "report/profile.h"

/* Writes p's traces to out. 0: written; 1: the measurement has no traces
 * (said on diag: record with knit record -t); -1: an error (said on diag).
 * Warnings (unreadable trace files, dropped events) go to diag. */
int knit_chrome_trace_write(const knit_profile *p, FILE *out, FILE *diag);

#endif /* KNIT_REPORT_CHROME_TRACE_H */
