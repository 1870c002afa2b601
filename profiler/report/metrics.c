/* Metric names and units; see metrics.h. */
#include "report/metrics.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const OWN_NAMES[KNIT_METRIC_COUNT] = {
    [KNIT_METRIC_OMP_IDLE] = "OMP_IDLE",
    [KNIT_METRIC_OMP_MUTEX_WAIT] = "OMP_MUTEX_WAIT",
    [KNIT_METRIC_OMP_MUTEX_BLAME] = "OMP_MUTEX_BLAME",
    [KNIT_METRIC_DEVICE_KERNEL] = "DEVICE_KERNEL",
    [KNIT_METRIC_DEVICE_H2D_BYTES] = "DEVICE_H2D_BYTES",
    [KNIT_METRIC_DEVICE_H2D_TIME] = "DEVICE_H2D_TIME",
    [KNIT_METRIC_DEVICE_D2H_BYTES] = "DEVICE_D2H_BYTES",
    [KNIT_METRIC_DEVICE_D2H_TIME] = "DEVICE_D2H_TIME",
    [KNIT_METRIC_DEVICE_ALLOC_BYTES] = "DEVICE_ALLOC_BYTES",
};

/* Whether a device metric counts bytes (else it is device nanoseconds). */
static int counts_bytes(int metric)
{
  return metric == KNIT_METRIC_DEVICE_H2D_BYTES || metric == KNIT_METRIC_DEVICE_D2H_BYTES ||
         metric == KNIT_METRIC_DEVICE_ALLOC_BYTES;
}

const char *knit_metric_name(const knit_measurement *m, int metric)
{
  if (metric == KNIT_METRIC_SAMPLES)
    return m->event[0] != '\0' ? m->event : "SAMPLES";
  if (metric > 0 && metric < KNIT_METRIC_COUNT)
    return OWN_NAMES[metric];
  return "?";
}

int knit_metric_find(const knit_measurement *m, const char *name)
{
  for (int metric = 0; metric < KNIT_METRIC_COUNT; metric++)
    if (strcasecmp(name, knit_metric_name(m, metric)) == 0)
      return metric;
  return -1;
}

/* The metrics a measurement's names list: the device metrics only when it
 * saw a device, though their names are known in every measurement. */
static int names_listed(const knit_measurement *m)
{
  for (size_t i = 0; i < m->thread_count; i++)
    if (m->threads[i].stats[KNIT_STAT_DEVICES_TRACED] ||
        m->threads[i].stats[KNIT_STAT_DEVICES_UNTRACED])
      return KNIT_METRIC_COUNT;
  return KNIT_METRIC_HOST_COUNT;
}

void knit_metric_names(const knit_measurement *m, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int metric = 0; metric < names_listed(m) && used < len; metric++) {
    int n =
        snprintf(buf + used, len - used, "%s%s", metric ? ", " : "", knit_metric_name(m, metric));
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

int knit_metric_resolve(const knit_measurement *m, const char *name, char *err, size_t errlen)
{
  int metric = knit_metric_find(m, name);
  if (metric < 0) {
    char names[320];
    knit_metric_names(m, names, sizeof names);
    snprintf(err, errlen, "unknown metric '%s' (this measurement has: %s)", name, names);
  }
  return metric;
}

int knit_metric_shows_time(const knit_measurement *m)
{
  /* A PROBE fires once per probe: its period is no time. */
  return m->period > 0 && (strcmp(m->event, "CPUTIME") == 0 || strcmp(m->event, "REALTIME") == 0);
}

const char *knit_metric_unit(const knit_measurement *m)
{
  if (knit_metric_shows_time(m))
    return "ms";
  return strcmp(m->event, "PROBE") == 0 ? "probes" : "periods";
}

/* Stored units per period of the event. */
static double stored_per_period(int metric)
{
  return metric == KNIT_METRIC_SAMPLES ? 1.0 : (double)KNIT_BLAME_SCALE;
}

const char *knit_metric_unit_of(const knit_measurement *m, int metric)
{
  if (KNIT_METRIC_IS_DEVICE(metric))
    return counts_bytes(metric) ? "bytes" : "ms";
  return knit_metric_unit(m);
}

int knit_metric_count_shown(const uint64_t *totals)
{
  for (int metric = KNIT_METRIC_HOST_COUNT; metric < KNIT_METRIC_COUNT; metric++)
    if (totals != NULL && totals[metric] != 0)
      return KNIT_METRIC_COUNT;
  return KNIT_METRIC_HOST_COUNT;
}

const char *knit_metric_title(const knit_measurement *m, int metric, int exclusive)
{
  if (KNIT_METRIC_IS_DEVICE(metric) && counts_bytes(metric))
    return exclusive ? "excl bytes" : "incl bytes";
  if (KNIT_METRIC_IS_DEVICE(metric) || knit_metric_shows_time(m))
    return exclusive ? "excl ms" : "incl ms";
  return exclusive ? "excl" : "incl";
}

double knit_metric_value(const knit_measurement *m, int metric, uint64_t stored)
{
  if (KNIT_METRIC_IS_DEVICE(metric))
    return counts_bytes(metric) ? (double)stored : (double)stored / 1e6;
  double periods = (double)stored / stored_per_period(metric);
  return knit_metric_shows_time(m) ? periods * (double)m->period / 1e6 : periods;
}

int knit_metric_format(const knit_measurement *m, int metric, uint64_t stored, char *buf,
                       size_t len)
{
  if ((!knit_metric_shows_time(m) && metric == KNIT_METRIC_SAMPLES) || counts_bytes(metric))
    return snprintf(buf, len, "%llu", (unsigned long long)stored);
  /* A device's times are exact nanoseconds: microseconds show a short
   * transfer. */
  if (KNIT_METRIC_IS_DEVICE(metric))
    return snprintf(buf, len, "%.3f", knit_metric_value(m, metric, stored));
  return snprintf(buf, len, "%.1f", knit_metric_value(m, metric, stored));
}

const char *knit_metric_description(int metric)
{
  switch (metric) {
  case KNIT_METRIC_SAMPLES: return "charged where each sample was taken";
  case KNIT_METRIC_OMP_IDLE: return "idle threads' share, charged to the working threads' samples";
  case KNIT_METRIC_OMP_MUTEX_WAIT:
    return "waiting for a lock, critical, ordered or atomic, charged to the waiter";
  case KNIT_METRIC_OMP_MUTEX_BLAME:
    return "that waiting, charged where the holder released the mutex";
  case KNIT_METRIC_DEVICE_KERNEL: return "kernel time on the device, charged to the launching code";
  case KNIT_METRIC_DEVICE_H2D_BYTES: return "bytes copied to the device";
  case KNIT_METRIC_DEVICE_H2D_TIME: return "device time of the copies to the device";
  case KNIT_METRIC_DEVICE_D2H_BYTES: return "bytes copied from the device";
  case KNIT_METRIC_DEVICE_D2H_TIME: return "device time of the copies from the device";
  case KNIT_METRIC_DEVICE_ALLOC_BYTES: return "bytes allocated on the device";
  default: return "";
  }
}
