/* Metric-share directives: parsing and checking; see metric_share.h. */
#include "report/metric_share.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/count.h"
#include "report/folded.h"
#include "report/metrics.h"

/* Shares that print equal to the limit must not fail on rounding. */
#define SHARE_EPSILON 1e-9

int knit_share_parse(const char *text, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  if (end == text || *end != '\0' || errno != 0 || !(v >= 0.0 && v <= 1.0))
    return -1;
  *out = v;
  return 0;
}

/* The prefix with each frame named as the folded form names it, newly
 * allocated; NULL with the reason in err when a frame is empty. */
static char *normalize_prefix(const char *prefix, char *err, size_t errlen)
{
  /* omp.outlined is never longer than the names it replaces but one: room
   * for it per frame covers every case. */
  size_t frames = 1;
  for (const char *c = prefix; *c != '\0'; c++)
    frames += *c == ';';
  size_t room = strlen(prefix) + frames * sizeof "omp.outlined" + 1;
  char *out = malloc(room);
  char *copy = strdup(prefix);
  if (out == NULL || copy == NULL) {
    free(out);
    free(copy);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  out[0] = '\0';
  size_t len = 0;
  for (char *frame = copy, *end;; frame = end + 1) {
    end = strchr(frame, ';');
    if (end != NULL)
      *end = '\0';
    if (*frame == '\0') {
      snprintf(err, errlen, "the path '%s' has an empty frame", prefix);
      free(out);
      free(copy);
      return NULL;
    }
    len += (size_t)snprintf(out + len, room - len, "%s%s", len ? ";" : "",
                            knit_folded_frame_name(frame));
    if (end == NULL)
      break;
  }
  free(copy);
  return out;
}

/* A whole number, white space after it allowed; 0 or -1. */
static int amount_parse(const char *text, uint64_t *out)
{
  char *end;
  errno = 0;
  if (*text < '0' || *text > '9')
    return -1;
  unsigned long long v = strtoull(text, &end, 10);
  while (*end == ' ' || *end == '\t')
    end++;
  if (*end != '\0' || errno != 0)
    return -1;
  *out = (uint64_t)v;
  return 0;
}

/* The four words of a golden's metric line, "METRIC PREFIX OP AMOUNT", in
 * copy (newly allocated; the words point into it): folded paths hold no
 * white space, so the parts are words. Returns how many words there were
 * (at most 5), or -1 out of memory. */
static int split_line(const char *text, char **copy, char *words[5], char *err, size_t errlen)
{
  *copy = strdup(text);
  if (*copy == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  char *save = NULL;
  int n = 0;
  for (char *w = strtok_r(*copy, " \t", &save); w != NULL && n < 5;
       w = strtok_r(NULL, " \t", &save))
    words[n++] = w;
  return n;
}

/* The parts every metric line has: its metric, prefix and text. 0, or -1
 * with the message in err. */
static int fill_line(knit_metric_share *out, const char *text, char *const words[5], char *err,
                     size_t errlen)
{
  out->metric = strdup(words[0]);
  out->text = strdup(text + strspn(text, " \t"));
  out->prefix = normalize_prefix(words[1], err, errlen);
  int rc = out->metric != NULL && out->text != NULL && out->prefix != NULL ? 0 : -1;
  if (rc != 0 && out->prefix != NULL)
    snprintf(err, errlen, "out of memory");
  return rc;
}

int knit_metric_value_parse(const char *text, knit_metric_share *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  static const char FORM[] = "expected \"METRIC PREFIX = VALUE\"";
  char *copy, *words[5] = {NULL};
  int n = split_line(text, &copy, words, err, errlen);
  if (n < 0)
    return -1;
  int rc = -1;
  if (n != 4 || strcmp(words[2], "=") != 0) {
    snprintf(err, errlen, "%s", FORM);
  } else if (amount_parse(words[3], &out->value) != 0) {
    snprintf(err, errlen, "the value '%s' must be a whole number", words[3]);
  } else {
    out->exact = 1;
    rc = fill_line(out, text, words, err, errlen);
  }
  free(copy);
  if (rc != 0)
    knit_metric_share_free(out);
  return rc;
}

int knit_metric_share_parse(const char *text, knit_metric_share *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  static const char FORM[] = "expected \"METRIC PREFIX >= SHARE\" or \"... <= SHARE\"";
  char *copy, *words[5] = {NULL};
  int n = split_line(text, &copy, words, err, errlen);
  if (n < 0)
    return -1;
  int rc = -1;
  double limit = 0.0;
  if (n != 4) {
    snprintf(err, errlen, "%s", FORM);
  } else if (strcmp(words[2], ">=") != 0 && strcmp(words[2], "<=") != 0) {
    snprintf(err, errlen, "%s, not '%s'", FORM, words[2]);
  } else if (knit_share_parse(words[3], &limit) != 0) {
    snprintf(err, errlen, "the share '%s' must be a number from 0 to 1", words[3]);
  } else {
    out->at_most = words[2][0] == '<';
    out->limit = limit;
    rc = fill_line(out, text, words, err, errlen);
  }
  free(copy);
  if (rc != 0)
    knit_metric_share_free(out);
  return rc;
}

void knit_metric_share_free(knit_metric_share *s)
{
  free(s->metric);
  free(s->prefix);
  free(s->text);
  memset(s, 0, sizeof *s);
}

/* Whether a folded path falls under prefix: its frames begin with the
 * prefix's, whole frames only. */
static int under_prefix(const char *path, const char *prefix, size_t prefix_len)
{
  return strncmp(path, prefix, prefix_len) == 0 &&
         (path[prefix_len] == '\0' || path[prefix_len] == ';');
}

static uint64_t amount_under(const knit_folded *f, const char *prefix)
{
  size_t len = strlen(prefix);
  uint64_t sum = 0;
  int saturated = 0; /* a part of f->total, which says it first */
  for (size_t i = 0; i < f->count; i++)
    if (under_prefix(f->lines[i].path, prefix, len))
      sum = knit_count_add(sum, f->lines[i].count, &saturated);
  return sum;
}

static double share_under(const knit_folded *f, const char *prefix)
{
  if (f->total == 0)
    return 0.0;
  return (double)amount_under(f, prefix) / (double)f->total;
}

static int heavier_first(const void *a, const void *b)
{
  const knit_folded_line *x = *(const knit_folded_line *const *)a;
  const knit_folded_line *y = *(const knit_folded_line *const *)b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* The metric's heaviest paths, "  SHARE  VALUE UNIT  path", one a line. */
static void write_top_paths(const knit_profile *p, int metric, const knit_folded *f, FILE *out)
{
  const knit_folded_line **order = malloc((f->count ? f->count : 1) * sizeof *order);
  if (order == NULL)
    return;
  for (size_t i = 0; i < f->count; i++)
    order[i] = &f->lines[i];
  qsort(order, f->count, sizeof *order, heavier_first);
  const knit_measurement *m = &p->measurement;
  fprintf(out, "    heaviest %s paths:\n", knit_metric_name(m, metric));
  for (size_t i = 0; i < f->count && i < KNIT_METRIC_SHARE_TOP_PATHS; i++) {
    char value[48];
    knit_metric_format(m, metric, order[i]->count, value, sizeof value);
    fprintf(out, "    %5.1f%%  %10s %s  %s\n", 100.0 * (double)order[i]->count / (double)f->total,
            value, knit_metric_unit_of(m, metric), order[i]->path);
  }
  if (f->count > KNIT_METRIC_SHARE_TOP_PATHS)
    fprintf(out, "    (%zu more)\n", f->count - KNIT_METRIC_SHARE_TOP_PATHS);
  free(order);
}

/* Checks one directive; returns 1 for a difference, 0 when it holds. */
static int check_one(const knit_metric_share *s, const knit_profile *p, FILE *diff, FILE *passed)
{
  const knit_measurement *m = &p->measurement;
  char err[256];
  int metric = knit_metric_resolve(m, s->metric, err, sizeof err);
  if (metric < 0) {
    if (diff != NULL)
      fprintf(diff, "- %s %s: %s\n", s->exact ? "metric-value" : "metric-share", s->text, err);
    return 1;
  }
  knit_folded f;
  if (knit_folded_of_metric(&p->tree, metric, &f) != 0) {
    if (diff != NULL)
      fprintf(diff, "- metric-share %s: out of memory\n", s->text);
    return 1;
  }
  int failed = 1;
  const char *kind = s->exact ? "metric-value" : "metric-share";
  if (f.total == 0) {
    if (diff != NULL)
      fprintf(diff, "- %s %s: no %s in the measurement\n", kind, s->text,
              knit_metric_name(m, metric));
  } else if (s->exact) {
    uint64_t amount = amount_under(&f, s->prefix);
    failed = amount != s->value;
    FILE *out = failed ? diff : passed;
    if (out != NULL)
      fprintf(out, "%c metric-value %s: measured %llu of the %llu of %s\n", failed ? '~' : ' ',
              s->text, (unsigned long long)amount, (unsigned long long)f.total,
              knit_metric_name(m, metric));
    if (failed && diff != NULL)
      write_top_paths(p, metric, &f, diff);
  } else {
    double share = share_under(&f, s->prefix);
    failed = s->at_most ? share > s->limit + SHARE_EPSILON : share < s->limit - SHARE_EPSILON;
    char total[48];
    knit_metric_format(m, metric, f.total, total, sizeof total);
    FILE *out = failed ? diff : passed;
    if (out != NULL)
      fprintf(out, "%c metric-share %s: measured %.1f%% of the %s %s of %s\n", failed ? '~' : ' ',
              s->text, 100.0 * share, total, knit_metric_unit_of(m, metric),
              knit_metric_name(m, metric));
    if (failed && diff != NULL)
      write_top_paths(p, metric, &f, diff);
  }
  knit_folded_free(&f);
  return failed;
}

size_t knit_metric_shares_check(const knit_metric_share *shares, size_t count,
                                const knit_profile *p, FILE *diff, FILE *passed)
{
  size_t differences = 0;
  for (size_t i = 0; i < count; i++)
    differences += (size_t)check_one(&shares[i], p, diff, passed);
  return differences;
}
