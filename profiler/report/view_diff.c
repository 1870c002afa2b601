/* The text of knit diff; see view_diff.h. */
#define _GNU_SOURCE /* qsort_r */
#include "report/view_diff.h"

#include <stdlib.h>
#include <string.h>

#include "measure/read_printable.h"
#include "report/metrics.h"

#define PATH_MAX_TEXT 4096

typedef struct order {
  const double *key; /* per context */
} order;

static int compare_keys(const void *pa, const void *pb, void *arg)
{
  const order *o = arg;
  uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
  if (o->key[x] != o->key[y])
    return o->key[x] > o->key[y] ? -1 : 1;
  return x < y ? -1 : x > y; /* contexts are made in the same order every run */
}

/* The contexts 1.. sorted by key, largest first; NULL out of memory. */
static uint32_t *sorted_contexts(const knit_diff *d, const double *key)
{
  uint32_t *idx = malloc((d->count ? d->count : 1) * sizeof *idx);
  if (idx == NULL)
    return NULL;
  for (size_t i = 1; i < d->count; i++)
    idx[i - 1] = (uint32_t)i;
  order o = {.key = key};
  if (d->count > 1)
    qsort_r(idx, d->count - 1, sizeof *idx, compare_keys, &o);
  return idx;
}

static void measurement_line(const char *label, const knit_profile *p, FILE *out)
{
  char event[192];
  knit_profile_describe_event(p, event, sizeof event);
  char *dir = p->measurement.dir != NULL ? knit_printable_dup(p->measurement.dir) : NULL;
  fprintf(out, "%s: %s, %zu thread%s, dir %s\n", label, event, p->measurement.thread_count,
          p->measurement.thread_count == 1 ? "" : "s", dir != NULL ? dir : "?");
  free(dir);
}

/* The name a metric column has: the time metric is named after each
 * measurement's event, which may differ. */
static void column_name(const knit_profile *a, const knit_profile *b, int metric, char *buf,
                        size_t len)
{
  const char *na = knit_metric_name(&a->measurement, metric);
  const char *nb = knit_metric_name(&b->measurement, metric);
  if (strcmp(na, nb) == 0)
    snprintf(buf, len, "%s", na);
  else
    snprintf(buf, len, "%s/%s", na, nb);
}

static double larger(double x, double y)
{
  return x > y ? x : y;
}

static double magnitude(double x)
{
  return x < 0 ? -x : x;
}

static const double *values_of(const knit_diff_context *c, int side, int exclusive)
{
  return exclusive ? c->exclusive[side] : c->inclusive[side];
}

void knit_view_diff(const knit_diff *d, const knit_profile *a, const knit_profile *b,
                    const knit_diff_view_options *o, const char *note, FILE *out)
{
  measurement_line("A", a, out);
  measurement_line("B", b, out);
  if (note[0] != '\0')
    fprintf(out, "note: %s\n", note);
  const char *unit = knit_metric_unit(&a->measurement);
  char sort_name[80];
  column_name(a, b, o->metric, sort_name, sizeof sort_name);
  fprintf(out,
          "per context (a call path, matched by its functions' names): %s values in %s, in A, "
          "in B and B-A, sorted by |B-A| of %s, largest first\n\n",
          o->exclusive ? "exclusive" : "inclusive", unit, sort_name);
  double *key = malloc((d->count ? d->count : 1) * sizeof *key);
  if (key == NULL) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  for (size_t i = 0; i < d->count; i++) {
    const knit_diff_context *c = &d->contexts[i];
    key[i] = magnitude(values_of(c, 1, o->exclusive)[o->metric] -
                       values_of(c, 0, o->exclusive)[o->metric]);
  }
  uint32_t *idx = sorted_contexts(d, key);
  if (idx == NULL) {
    free(key);
    fprintf(out, "(out of memory)\n");
    return;
  }
  /* Each column as wide as the larger total and its title. */
  const knit_diff_context *root = &d->contexts[0];
  int width[KNIT_METRIC_COUNT];
  for (size_t i = 0; i < o->columns.count; i++) {
    int metric = o->columns.metric[i];
    double big = larger(root->inclusive[0][metric], root->inclusive[1][metric]);
    char value[64];
    int w = snprintf(value, sizeof value, "+%.1f", big);
    width[i] = w < 5 ? 5 : w;
  }
  for (size_t i = 0; i < o->columns.count; i++) {
    char name[80];
    column_name(a, b, o->columns.metric[i], name, sizeof name);
    if (i + 1 < o->columns.count)
      fprintf(out, "%-*s  ", 3 * width[i] + 4, name);
    else
      fputs(name, out);
  }
  fputc('\n', out);
  for (size_t i = 0; i < o->columns.count; i++)
    fprintf(out, "%*s  %*s  %*s  ", width[i], "A", width[i], "B", width[i], "B-A");
  fprintf(out, "context\n");
  double total = larger(root->inclusive[0][o->metric], root->inclusive[1][o->metric]);
  double threshold = total * o->min_percent / 100.0;
  size_t hidden = 0;
  char path[PATH_MAX_TEXT];
  for (size_t r = 0; r + 1 < d->count; r++) {
    uint32_t ci = idx[r];
    const knit_diff_context *c = &d->contexts[ci];
    if (o->min_percent > 0 && (key[ci] < threshold || key[ci] == 0)) {
      hidden++;
      continue;
    }
    for (size_t i = 0; i < o->columns.count; i++) {
      int metric = o->columns.metric[i];
      double va = values_of(c, 0, o->exclusive)[metric];
      double vb = values_of(c, 1, o->exclusive)[metric];
      fprintf(out, "%*.1f  %*.1f  %+*.1f  ", width[i], va, width[i], vb, width[i], vb - va);
    }
    knit_diff_path(d, ci, path, sizeof path);
    fprintf(out, "%s\n", path);
  }
  if (d->count <= 1)
    fprintf(out, "(no samples)\n");
  if (hidden > 0)
    fprintf(out,
            "(%zu context%s whose change is below %.2g%% of the larger %s total hidden; "
            "--min=0 shows all)\n",
            hidden, hidden == 1 ? "" : "s", o->min_percent, sort_name);
  free(idx);
  free(key);
}

/* A context's C: the time metric plus OMP_IDLE, in the shown unit. The
 * time threads were sampled idle is left out: OMP_IDLE holds it already,
 * on the code that kept them idle (REALTIME samples idle threads). */
static double cost(const knit_diff_context *c, int side, int exclusive)
{
  const double *v = values_of(c, side, exclusive);
  double idle = exclusive ? c->idle_exclusive[side] : c->idle_inclusive[side];
  return v[KNIT_METRIC_SAMPLES] - idle + v[KNIT_METRIC_OMP_IDLE];
}

void knit_view_scaling(const knit_diff *d, const knit_profile *a, const knit_profile *b,
                       unsigned pa, unsigned pb, const knit_diff_view_options *o, FILE *out)
{
  measurement_line("A", a, out);
  measurement_line("B", b, out);
  const char *unit = knit_metric_unit(&a->measurement);
  char time_name[80];
  column_name(a, b, KNIT_METRIC_SAMPLES, time_name, sizeof time_name);
  const knit_diff_context *root = &d->contexts[0];
  double ca = cost(root, 0, 0), cb = cost(root, 1, 0);
  fprintf(out,
          "scaling loss from A at %u thread%s to B at %u: per context, C_B - C_A, where C is\n"
          "the context's %s + OMP_IDLE summed over all threads (OMP_IDLE puts idle threads'\n"
          "time on the code that kept them idle, so their own samples in <omp-idle> and\n"
          "<omp-barrier> are not counted again): the work B did beyond A's, zero where B\n"
          "scales perfectly (p*T_p - T_1 summed over threads, as HPCToolkit's strong-scaling\n"
          "loss); own: in the context itself, incl: with what it calls; sorted by %s loss,\n"
          "largest first\n",
          pa, pa == 1 ? "" : "s", pb, time_name, o->exclusive ? "own" : "incl");
  fprintf(out, "total C: A %.1f %s, B %.1f %s, loss %.1f %s (%.1f%% of B)\n\n", ca, unit, cb, unit,
          cb - ca, unit, cb > 0 ? 100.0 * (cb - ca) / cb : 0.0);
  double *key = malloc((d->count ? d->count : 1) * sizeof *key);
  if (key == NULL) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  for (size_t i = 0; i < d->count; i++)
    key[i] = cost(&d->contexts[i], 1, o->exclusive) - cost(&d->contexts[i], 0, o->exclusive);
  uint32_t *idx = sorted_contexts(d, key);
  if (idx == NULL) {
    free(key);
    fprintf(out, "(out of memory)\n");
    return;
  }
  char value[64];
  int w = snprintf(value, sizeof value, "%+.1f", cb > ca ? cb : ca);
  if (w < 9)
    w = 9;
  int ms = strcmp(unit, "ms") == 0;
  fprintf(out, "%*s  %6s  %*s  %6s  %*s  %*s  context\n", w, ms ? "own ms" : "own", "own%", w,
          ms ? "incl ms" : "incl", "incl%", w, ms ? "A incl" : "A incl", w, "B incl");
  double threshold = cb * o->min_percent / 100.0;
  size_t hidden = 0;
  char path[PATH_MAX_TEXT];
  for (size_t r = 0; r + 1 < d->count; r++) {
    uint32_t ci = idx[r];
    const knit_diff_context *c = &d->contexts[ci];
    if (o->min_percent > 0 && key[ci] < threshold) {
      hidden++;
      continue;
    }
    double own = cost(c, 1, 1) - cost(c, 0, 1);
    double incl = cost(c, 1, 0) - cost(c, 0, 0);
    fprintf(out, "%+*.1f  %5.1f%%  %+*.1f  %5.1f%%  %*.1f  %*.1f  ", w, own,
            cb > 0 ? 100.0 * own / cb : 0.0, w, incl, cb > 0 ? 100.0 * incl / cb : 0.0, w,
            cost(c, 0, 0), w, cost(c, 1, 0));
    knit_diff_path(d, ci, path, sizeof path);
    fprintf(out, "%s\n", path);
  }
  if (hidden > 0)
    fprintf(out,
            "(%zu context%s whose loss is below %.2g%% of B's total hidden; --min=0 shows "
            "all)\n",
            hidden, hidden == 1 ? "" : "s", o->min_percent);
  free(idx);
  free(key);
}
