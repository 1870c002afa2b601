/* The metric lines of `knit report`'s header: each shown metric's total and
 * unit, and the blame that no node was charged with. */
#ifndef KNIT_REPORT_VIEW_METRICS_H
#define KNIT_REPORT_VIEW_METRICS_H

#include <stdio.h>

#include "report/metric_select.h"
#include "report/profile.h"

/* One line per shown metric, "metric NAME  TOTAL UNIT  what it measures",
 * the names and totals aligned; nothing when the columns are the time
 * metric alone, whose total the event line gives already. */
void knit_view_metric_totals(const knit_profile *p, const knit_metric_columns *shown, FILE *out);

/* "blame: X UNIT of mutex wait lost (...), Y UNIT unclaimed (...); ..." from
 * the threads' KNIT_STAT_BLAME_LOST and KNIT_STAT_BLAME_UNCLAIMED, so that
 * OMP_MUTEX_BLAME falling short of OMP_MUTEX_WAIT is never silent; nothing
 * when both are zero. */
void knit_view_blame_line(const knit_profile *p, FILE *out);

/* "devices: N traced (kernel and transfer times from OMPT device
 * tracing)", or "... without tracing (bytes from target_data_op callbacks,
 * no device times)", and the device operations no launching context was
 * found for; nothing for a measurement that saw no target device. */
void knit_view_device_line(const knit_profile *p, FILE *out);

#endif /* KNIT_REPORT_VIEW_METRICS_H */
