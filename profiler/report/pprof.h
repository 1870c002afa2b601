/* The pprof export: a measurement as the profile.proto message that pprof
 * and the tools built on its format read (knit report --format=pprof).
 *
 * Sample types: every metric, in one unit: nanoseconds for a timer event
 * with a period (periods x the period; the blame metrics' milli-periods
 * likewise), counts otherwise (PROBE: probes; blame rounded to whole
 * periods). The time metric is named as pprof's own CPU and wall-clock
 * profiles name theirs, "cpu" for CPUTIME and "wall" for REALTIME, and
 * "probes" for PROBE; the blame metrics keep knit's names (OMP_IDLE,
 * OMP_MUTEX_WAIT, OMP_MUTEX_BLAME), so pprof's -sample_index takes the
 * same names `knit report --metric` does. The time metric is the default
 * sample type and the period type.
 *
 * One sample per node of the merged calling-context tree with an
 * exclusive value of any metric: its path from the node up to the root
 * (not included), innermost first, every frame kept (the C library's
 * start-up too: pprof's -show_from=main is the way to cut them, and a
 * raw export is what a reader can cut as it likes). One location per distinct (module, address, node kind): a call
 * site's address is its return address as recorded, a sampled
 * instruction's the pc; both are ELF virtual addresses of the module, and
 * each module is one mapping from 0, named by its path and its GNU build
 * id when the file has one. The locations come symbolized (the mappings
 * say so), so pprof does not look the addresses up again: each location's
 * lines are the calls the compiler inlined there, innermost first, then
 * the symbol's function, each function with its readable name, its symbol
 * (system_name) and its source file. Placeholder frames (<omp-idle>,
 * <partial>, ...) and addresses outside every module are locations with
 * no mapping, under a function of that name. Comments give the event and
 * the measurement's SUMMARY line; the time is the run's end (knit.log's
 * last write), and the duration, which no file records, is left out. */
#ifndef KNIT_REPORT_PPROF_H
#define KNIT_REPORT_PPROF_H

#include <stdint.h>

#include "report/profile.h"
#include "report/protobuf.h"

/* The pprof name and unit of metric (a knit_metric) in m. */
const char *knit_pprof_type_name(const knit_measurement *m, int metric);
const char *knit_pprof_unit(const knit_measurement *m);

/* A stored value of metric (format.h's scales) in the unit above, at most
 * INT64_MAX. */
int64_t knit_pprof_value(const knit_measurement *m, int metric, uint64_t stored);

/* Encodes p (named and linked) as an uncompressed profile.proto message
 * into out (empty on entry). inline_frames says whether p was loaded with
 * inlined calls (the mappings' has_inline_frames). Returns 0, or -1 out of
 * memory. */
int knit_pprof_encode(const knit_profile *p, int inline_frames, knit_pb *out);

#endif /* KNIT_REPORT_PPROF_H */
