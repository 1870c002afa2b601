/* The metrics of a measurement as `knit report` and `knit check` name and
 * show them.
 *
 * A measurement stores its metrics (format.h) in two scales: the time
 * metric, KNIT_METRIC_SAMPLES, in periods of the event, and the blame
 * metrics in milli-periods (KNIT_BLAME_SCALE per period). The views show all
 * of them in one unit, so that the columns of one report compare:
 *   timer events (CPUTIME, REALTIME) with a period: milliseconds, value in
 *     periods x the period;
 *   PROBE: probes, one per period; anything else: periods.
 * The time metric is named after the event ("CPUTIME", "REALTIME",
 * "PROBE"); the blame metrics have names of their own (OMP_IDLE,
 * OMP_MUTEX_WAIT, OMP_MUTEX_BLAME). Names are matched without regard to
 * case.
 *
 * The device metrics (DEVICE_KERNEL, DEVICE_H2D_BYTES, ...) measure no
 * period of the event: each has a unit of its own, ms for the device's
 * times (stored in ns) and bytes for sizes, whatever the event. */
#ifndef KNIT_REPORT_METRICS_H
#define KNIT_REPORT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "measure/read_file.h"

/* The name of metric (a knit_metric) in m: the event's name for the time
 * metric ("SAMPLES" when the files name no event). */
const char *knit_metric_name(const knit_measurement *m, int metric);

/* The metric that name stands for in m, or -1 when m has none by that name. */
int knit_metric_find(const knit_measurement *m, const char *name);

/* Every metric name of m, "CPUTIME, OMP_IDLE, ...", into buf. */
void knit_metric_names(const knit_measurement *m, char *buf, size_t len);

/* As knit_metric_find, but a name m does not have is an error: returns -1
 * with "unknown metric 'NAME' (this measurement has: ...)" in err. */
int knit_metric_resolve(const knit_measurement *m, const char *name, char *err, size_t errlen);

/* Whether m's values are shown as time: a timer event with a period. */
int knit_metric_shows_time(const knit_measurement *m);

/* The unit every metric of m is shown in: "ms", "probes" or "periods". */
const char *knit_metric_unit(const knit_measurement *m);

/* The unit metric is shown in: the measurement's (knit_metric_unit) for the
 * time and blame metrics, its own for a device metric ("ms", "bytes"). */
const char *knit_metric_unit_of(const knit_measurement *m, int metric);

/* The title of metric's inclusive (or exclusive) column: "incl ms", "incl"
 * (a count), "incl bytes". */
const char *knit_metric_title(const knit_measurement *m, int metric, int exclusive);

/* How many metrics, from the first, a view that writes every metric
 * writes for a tree with these root totals: the host metrics alone
 * (KNIT_METRIC_HOST_COUNT) unless a device metric is non-zero, so that a
 * host-only measurement's export is what it always was. */
int knit_metric_count_shown(const uint64_t *totals);

/* A stored value of metric in the shown unit. */
double knit_metric_value(const knit_measurement *m, int metric, uint64_t stored);

/* The value as the views print it, into buf: milliseconds with one decimal;
 * counts of the time metric as whole numbers, blame metrics (fractions of a
 * period) with one decimal; device times in ms with three decimals, bytes
 * whole. Returns the length, as snprintf does. */
int knit_metric_format(const knit_measurement *m, int metric, uint64_t stored, char *buf,
                       size_t len);

/* What the metric measures, in a few words. */
const char *knit_metric_description(int metric);

#endif /* KNIT_REPORT_METRICS_H */
