/* Metric columns and sort keys from the command line; see metric_select.h. */
#include "report/metric_select.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report/metrics.h"

int knit_sort_key_parse(const char *text, knit_sort_key *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  /* The three keys of old sort by the time metric. */
  static const struct {
    const char *word;
    knit_calltree_sort sort;
  } plain[] = {
      {"incl", KNIT_SORT_INCLUSIVE}, {"excl", KNIT_SORT_EXCLUSIVE}, {"name", KNIT_SORT_NAME}};
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    if (strcmp(text, plain[i].word) == 0) {
      out->sort = plain[i].sort;
      return 0;
    }
  }
  const char *colon = strchr(text, ':');
  size_t name_len = colon != NULL ? (size_t)(colon - text) : strlen(text);
  if (name_len == 0 || name_len >= sizeof out->metric) {
    snprintf(err, errlen, "unknown sort key '%s' (incl, excl, name, or METRIC[:incl|excl])", text);
    return -1;
  }
  memcpy(out->metric, text, name_len);
  out->metric[name_len] = '\0';
  out->sort = KNIT_SORT_INCLUSIVE;
  if (colon != NULL) {
    if (strcmp(colon + 1, "excl") == 0) {
      out->sort = KNIT_SORT_EXCLUSIVE;
    } else if (strcmp(colon + 1, "incl") != 0) {
      snprintf(err, errlen, "sort key '%s': after the metric comes :incl or :excl", text);
      return -1;
    }
  }
  return 0;
}

int knit_sort_key_metric(const knit_sort_key *key, const knit_measurement *m, char *err,
                         size_t errlen)
{
  if (key->metric[0] == '\0')
    return KNIT_METRIC_SAMPLES;
  return knit_metric_resolve(m, key->metric, err, errlen);
}

void knit_metric_columns_add(knit_metric_columns *c, int metric)
{
  for (size_t i = 0; i < c->count; i++)
    if (c->metric[i] == metric)
      return;
  if (c->count < KNIT_METRIC_COUNT)
    c->metric[c->count++] = metric;
}

int knit_metric_columns_plain(const knit_metric_columns *c)
{
  return c->count == 1 && c->metric[0] == KNIT_METRIC_SAMPLES;
}

void knit_metric_columns_default(const knit_profile *p, knit_metric_columns *out)
{
  memset(out, 0, sizeof *out);
  knit_metric_columns_add(out, KNIT_METRIC_SAMPLES);
  if (p->tree.node_count == 0)
    return;
  for (int metric = 0; metric < KNIT_METRIC_COUNT; metric++)
    if (p->tree.nodes[0].inclusive[metric] != 0)
      knit_metric_columns_add(out, metric);
}

int knit_metric_columns_parse(const knit_profile *p, const char *list, knit_metric_columns *out,
                              char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (strcasecmp(list, "all") == 0) {
    for (int metric = 0; metric < KNIT_METRIC_COUNT; metric++)
      knit_metric_columns_add(out, metric);
    return 0;
  }
  for (const char *s = list;; s++) {
    size_t len = strcspn(s, ",");
    char name[KNIT_METRIC_NAME_MAX];
    if (len == 0) {
      snprintf(err, errlen, "--metrics: an empty name in '%s'", list);
      return -1;
    }
    /* A name cut to the buffer is still longer than any metric's, so it
     * stays unknown; the message shows it cut. */
    snprintf(name, sizeof name, "%.*s", (int)len, s);
    int metric = knit_metric_resolve(&p->measurement, name, err, errlen);
    if (metric < 0)
      return -1;
    knit_metric_columns_add(out, metric);
    s += len;
    if (*s == '\0')
      return 0;
  }
}
