/* Choosing the metrics (metrics.h) a tree view shows and sorts by, from the
 * words of the command line:
 *   --metrics=LIST  "all", or metric names separated by commas, in the order
 *                   the columns should have
 *   --sort=KEY      incl, excl or name (by the time metric), or
 *                   METRIC[:incl|excl] (inclusive unless it says excl)
 * Which names exist depends on the measurement's event, so a sort key is
 * parsed before the measurement is read (its form is checked then) and its
 * name resolved after; column lists are resolved after. */
#ifndef KNIT_REPORT_METRIC_SELECT_H
#define KNIT_REPORT_METRIC_SELECT_H

#include <stddef.h>

#include "report/calltree.h"
#include "report/profile.h"

/* No metric name is longer; a longer word names none. */
#define KNIT_METRIC_NAME_MAX 32

/* The metric columns of a tree view, in the order shown. */
typedef struct knit_metric_columns {
  int metric[KNIT_METRIC_COUNT]; /* knit_metric ids, no repeats */
  size_t count;                  /* 0: not chosen; views take the default */
} knit_metric_columns;

/* A --sort key as parsed, before its metric name is resolved. */
typedef struct knit_sort_key {
  char metric[KNIT_METRIC_NAME_MAX]; /* "": the time metric */
  knit_calltree_sort sort;
} knit_sort_key;

/* Parses a --sort value. Returns 0, or -1 with the reason in err. */
int knit_sort_key_parse(const char *text, knit_sort_key *out, char *err, size_t errlen);

/* The metric a parsed key sorts by in m, or -1 with the reason in err
 * (knit_metric_resolve's). */
int knit_sort_key_metric(const knit_sort_key *key, const knit_measurement *m, char *err,
                         size_t errlen);

/* The default columns: the time metric, then every other metric that is
 * non-zero somewhere in p's tree, so that a profile without blame shows
 * what it always has. */
void knit_metric_columns_default(const knit_profile *p, knit_metric_columns *out);

/* The columns a --metrics value names in p's measurement. Returns 0, or -1
 * with the reason in err (an unknown name: the valid ones are listed). */
int knit_metric_columns_parse(const knit_profile *p, const char *list, knit_metric_columns *out,
                              char *err, size_t errlen);

/* Appends metric unless the columns hold it already. */
void knit_metric_columns_add(knit_metric_columns *c, int metric);

/* Whether the columns are the time metric alone (the view of old). */
int knit_metric_columns_plain(const knit_metric_columns *c);

#endif /* KNIT_REPORT_METRIC_SELECT_H */
