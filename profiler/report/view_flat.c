/* The flat view's text; see view_flat.h. */
#include "report/view_flat.h"

#include <stdlib.h>
#include <string.h>

#include "report/metrics.h"

#define GAP         2
#define SHARE_WIDTH 6 /* "100.0%" */

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* What a row is called in the last column. */
static void row_name(const knit_flat_row *r, knit_flat_key key, char *buf, size_t len)
{
  switch (key) {
  case KNIT_FLAT_LINE:
    if (r->name != NULL)
      snprintf(buf, len, "%s:%u", base_name(r->name), r->line);
    else
      snprintf(buf, len, "? (%s)", r->function != NULL ? r->function : "?");
    break;
  case KNIT_FLAT_MODULE:
    snprintf(buf, len, "%s", r->name != NULL ? base_name(r->name) : "(no module)");
    break;
  case KNIT_FLAT_FUNCTION:
  default: snprintf(buf, len, "%s%s", r->name, r->inlined == 1 ? " [inlined]" : ""); break;
  }
}

static const char *key_title(knit_flat_key key)
{
  return key == KNIT_FLAT_LINE ? "line" : key == KNIT_FLAT_MODULE ? "module" : "function";
}

void knit_view_flat(const knit_profile *p, const knit_view_options *o, knit_flat_key key, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  int sort_metric = o->tree.metric;
  if (sort_metric < 0 || sort_metric >= KNIT_METRIC_COUNT)
    sort_metric = KNIT_METRIC_SAMPLES;
  int by_exclusive = o->tree.sort == KNIT_SORT_EXCLUSIVE;
  knit_metric_columns shown = o->columns;
  if (shown.count == 0)
    knit_metric_columns_default(p, &shown);
  knit_metric_columns_add(&shown, sort_metric);
  knit_flat f;
  if (knit_flat_build(&f, &p->tree, &o->tree, key) != 0) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  knit_flat_sort(&f, o->tree.sort, sort_metric);
  uint64_t total = f.total[sort_metric], threshold = 0;
  if (o->min_percent > 0 && total > 0) {
    double exact = (double)total * o->min_percent / 100.0;
    threshold = (uint64_t)exact;
    if ((double)threshold < exact)
      threshold++;
  }
  int width[KNIT_METRIC_COUNT];
  int grouped = !knit_metric_columns_plain(&shown);
  for (size_t i = 0; i < shown.count; i++) {
    char value[64];
    int w = knit_metric_format(m, shown.metric[i], f.total[shown.metric[i]], value, sizeof value);
    const char *title = knit_metric_title(m, shown.metric[i], 1);
    if (w < (int)strlen(title))
      w = (int)strlen(title);
    int name = (int)strlen(knit_metric_name(m, shown.metric[i]));
    int shares = shown.metric[i] == sort_metric ? 2 * (GAP + SHARE_WIDTH) : 0;
    if (grouped && 2 * w + GAP + shares < name)
      w = (name - GAP - shares + 1) / 2;
    width[i] = w;
  }
  if (grouped) {
    for (size_t i = 0; i < shown.count; i++) {
      int shares = shown.metric[i] == sort_metric ? 2 * (GAP + SHARE_WIDTH) : 0;
      if (i + 1 < shown.count)
        fprintf(out, "%-*s%*s", 2 * width[i] + GAP + shares, knit_metric_name(m, shown.metric[i]),
                GAP, "");
      else
        fputs(knit_metric_name(m, shown.metric[i]), out);
    }
    fputc('\n', out);
  }
  for (size_t i = 0; i < shown.count; i++) {
    for (int k = 0; k < 2; k++) {
      fprintf(out, "%*s%*s", i || k ? GAP : 0, "", width[i],
              knit_metric_title(m, shown.metric[i], k == 0));
      if (shown.metric[i] == sort_metric)
        fprintf(out, "%*s%*s", GAP, "", SHARE_WIDTH, k == 0 ? "excl%" : "incl%");
    }
  }
  fprintf(out, "%*s%s\n", GAP, "", key_title(key));
  size_t printed = 0, hidden = 0;
  for (size_t r = 0; r < f.count; r++) {
    const knit_flat_row *row = &f.rows[r];
    uint64_t cut = by_exclusive ? row->exclusive[sort_metric] : row->inclusive[sort_metric];
    if (cut < threshold) {
      hidden++;
      continue;
    }
    for (size_t i = 0; i < shown.count; i++) {
      int metric = shown.metric[i];
      const uint64_t values[2] = {row->exclusive[metric], row->inclusive[metric]};
      for (int k = 0; k < 2; k++) {
        char value[64];
        knit_metric_format(m, metric, values[k], value, sizeof value);
        fprintf(out, "%*s%*s", i || k ? GAP : 0, "", width[i], value);
        if (metric == sort_metric)
          fprintf(out, "%*s%5.1f%%", GAP, "",
                  total ? 100.0 * (double)values[k] / (double)total : 0.0);
      }
    }
    char name[512];
    row_name(row, key, name, sizeof name);
    fprintf(out, "%*s%s\n", GAP, "", name);
    printed++;
  }
  if (printed == 0 && hidden == 0)
    fprintf(out, "(no samples)\n");
  if (hidden > 0) {
    char of[64] = "the total";
    if (sort_metric != KNIT_METRIC_SAMPLES)
      snprintf(of, sizeof of, "the %s total", knit_metric_name(m, sort_metric));
    fprintf(out, "(%zu row%s below %.2g%% of %s %s hidden; --min=0 shows all)\n", hidden,
            hidden == 1 ? "" : "s", o->min_percent, of, hidden == 1 ? "is" : "are");
  }
  if (f.saturated && !p->saturated)
    fprintf(out, "(%s)\n", KNIT_SATURATED_TEXT);
  knit_flat_free(&f);
}
