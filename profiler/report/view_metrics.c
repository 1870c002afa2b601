/* Metric totals and the blame not charged; see view_metrics.h. */
#include "report/view_metrics.h"

#include <string.h>

#include "report/metrics.h"

void knit_view_metric_totals(const knit_profile *p, const knit_metric_columns *shown, FILE *out)
{
  if (shown->count == 0 || knit_metric_columns_plain(shown))
    return;
  const knit_measurement *m = &p->measurement;
  const uint64_t *totals = p->tree.node_count ? p->tree.nodes[0].inclusive : NULL;
  char values[KNIT_METRIC_COUNT][48];
  int name_width = 0, value_width = 0;
  for (size_t i = 0; i < shown->count; i++) {
    int metric = shown->metric[i];
    int w = knit_metric_format(m, metric, totals ? totals[metric] : 0, values[i], sizeof values[i]);
    if (w > value_width)
      value_width = w;
    w = (int)strlen(knit_metric_name(m, metric));
    if (w > name_width)
      name_width = w;
  }
  for (size_t i = 0; i < shown->count; i++) {
    int metric = shown->metric[i];
    fprintf(out, "metric %-*s  %*s %s  %s\n", name_width, knit_metric_name(m, metric), value_width,
            values[i], knit_metric_unit_of(m, metric), knit_metric_description(metric));
  }
}

void knit_view_blame_line(const knit_profile *p, FILE *out)
{
  uint64_t lost = knit_profile_stat(p, KNIT_STAT_BLAME_LOST);
  uint64_t unclaimed = knit_profile_stat(p, KNIT_STAT_BLAME_UNCLAIMED);
  if (lost == 0 && unclaimed == 0)
    return;
  const knit_measurement *m = &p->measurement;
  const char *unit = knit_metric_unit(m);
  char value[48];
  fputs("blame: ", out);
  /* Both statistics are milli-periods of mutex wait, as OMP_MUTEX_WAIT is. */
  if (lost != 0) {
    knit_metric_format(m, KNIT_METRIC_OMP_MUTEX_WAIT, lost, value, sizeof value);
    fprintf(out, "%s %s of mutex wait lost (no room in the blame table)%s", value, unit,
            unclaimed != 0 ? ", " : "");
  }
  if (unclaimed != 0) {
    knit_metric_format(m, KNIT_METRIC_OMP_MUTEX_WAIT, unclaimed, value, sizeof value);
    fprintf(out,
            "%s %s of mutex wait unclaimed (the mutex was free, or not released before the end)",
            value, unit);
  }
  fputs("; counted in OMP_MUTEX_WAIT, missing from OMP_MUTEX_BLAME\n", out);
}

void knit_view_device_line(const knit_profile *p, FILE *out)
{
  uint64_t traced = knit_profile_stat(p, KNIT_STAT_DEVICES_TRACED);
  uint64_t untraced = knit_profile_stat(p, KNIT_STAT_DEVICES_UNTRACED);
  uint64_t unattributed = knit_profile_stat(p, KNIT_STAT_DEVICE_UNATTRIBUTED);
  if (traced == 0 && untraced == 0 && unattributed == 0)
    return;
  fputs("devices:", out);
  if (traced != 0)
    fprintf(out, " %llu traced (kernel and transfer times from OMPT device tracing)%s",
            (unsigned long long)traced, untraced != 0 ? "," : "");
  if (untraced != 0)
    fprintf(out,
            " %llu without tracing (transfer bytes from target_data_op callbacks, no device "
            "times)",
            (unsigned long long)untraced);
  if (p->measurement.devices != NULL)
    fprintf(out, ": %s", p->measurement.devices);
  if (unattributed != 0)
    fprintf(out, "%s %llu device operation%s with no known launching context, left out",
            traced != 0 || untraced != 0 ? ";" : "", (unsigned long long)unattributed,
            unattributed == 1 ? "" : "s");
  fputc('\n', out);
}
