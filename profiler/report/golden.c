/* Golden files: parse, compare, rewrite; the rules are in golden.h. */
#include "report/golden.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/count.h"

/* Paths longer than this do not widen the diff's first column further. */
#define DIFF_PATH_WIDTH_MAX 72
#define UNEXPECTED_LABEL    "(paths not in the golden)"
#define RUNTIME_LABEL       "(the runtime's placeholders)"

/* "# levels: WORD...": which of the report's levels beside the frames
 * the golden's paths hold, loops and inlined calls, or none. */
static int parse_levels(knit_golden *g, const char *v, char *err, size_t errlen, unsigned lineno)
{
  g->loops = 0;
  g->inlined = 0;
  int words = 0, none = 0;
  for (;;) {
    v += strspn(v, " \t\r\n");
    size_t len = strcspn(v, " \t\r\n");
    if (len == 0)
      break;
    words++;
    if (len == 5 && strncmp(v, "loops", 5) == 0) {
      g->loops = 1;
    } else if (len == 6 && strncmp(v, "inline", 6) == 0) {
      g->inlined = 1;
    } else if (len == 4 && strncmp(v, "none", 4) == 0) {
      none = 1;
    } else {
      snprintf(err, errlen, "line %u: levels must be loops, inline (or both), or none", lineno);
      return -1;
    }
    v += len;
  }
  if (words == 0 || (none && words > 1)) {
    snprintf(err, errlen, "line %u: levels must be loops, inline (or both), or none", lineno);
    return -1;
  }
  return 0;
}

/* A metric-share directive, or a metric-value one (exact). */
static int add_metric_share(knit_golden *g, const char *text, int exact, char *err, size_t errlen,
                            unsigned lineno)
{
  knit_metric_share share;
  char reason[300];
  if ((exact ? knit_metric_value_parse : knit_metric_share_parse)(text, &share, reason,
                                                                  sizeof reason) != 0) {
    snprintf(err, errlen, "line %u: %s: %s", lineno, exact ? "metric-value" : "metric-share",
             reason);
    return -1;
  }
  knit_metric_share *grown = realloc(g->shares, (g->share_count + 1) * sizeof *grown);
  if (grown == NULL) {
    knit_metric_share_free(&share);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  g->shares = grown;
  g->shares[g->share_count++] = share;
  return 0;
}

/* Handles one '#' line; directives it does not know are plain comments. */
static int parse_comment(knit_golden *g, const char *line, char *err, size_t errlen,
                         unsigned lineno)
{
  char **grown = realloc(g->comments, (g->comment_count + 1) * sizeof *grown);
  if (grown == NULL || (grown[g->comment_count] = strdup(line)) == NULL) {
    if (grown != NULL)
      g->comments = grown;
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  g->comments = grown;
  g->comment_count++;

  const char *s = line + 1 + strspn(line + 1, " \t");
  if (strncmp(s, "tolerance:", 10) == 0) {
    if (knit_share_parse(s + 10, &g->tolerance) != 0) {
      snprintf(err, errlen, "line %u: tolerance must be a number from 0 to 1", lineno);
      return -1;
    }
  } else if (strncmp(s, "min-share:", 10) == 0) {
    if (knit_share_parse(s + 10, &g->min_share) != 0) {
      snprintf(err, errlen, "line %u: min-share must be a number from 0 to 1", lineno);
      return -1;
    }
  } else if (strncmp(s, "runtime-share:", 14) == 0) {
    if (knit_share_parse(s + 14, &g->runtime_share) != 0) {
      snprintf(err, errlen, "line %u: runtime-share must be a number from 0 to 1", lineno);
      return -1;
    }
  } else if (strncmp(s, "metric-share:", 13) == 0) {
    return add_metric_share(g, s + 13, 0, err, errlen, lineno);
  } else if (strncmp(s, "metric-value:", 13) == 0) {
    return add_metric_share(g, s + 13, 1, err, errlen, lineno);
  } else if (strncmp(s, "levels:", 7) == 0) {
    return parse_levels(g, s + 7, err, errlen, lineno);
  } else if (strncmp(s, "paths:", 6) == 0) {
    const char *v = s + 6 + strspn(s + 6, " \t");
    if (strcmp(v, "ignore") == 0) {
      g->paths_ignored = 1;
    } else if (strcmp(v, "compare") == 0) {
      g->paths_ignored = 0;
    } else {
      snprintf(err, errlen, "line %u: paths must be \"compare\" or \"ignore\"", lineno);
      return -1;
    }
  } else if (strncmp(s, "mode:", 5) == 0) {
    const char *v = s + 5 + strspn(s + 5, " \t");
    if (strcmp(v, "exact") == 0) {
      g->mode = KNIT_CHECK_EXACT;
    } else if (strcmp(v, "shares") == 0) {
      g->mode = KNIT_CHECK_SHARES;
    } else {
      snprintf(err, errlen, "line %u: mode must be \"exact\" or \"shares\"", lineno);
      return -1;
    }
  }
  return 0;
}

/* Handles one "path count" line; line has no trailing white space. */
static int parse_path_line(knit_golden *g, char *line, char *err, size_t errlen, unsigned lineno)
{
  char *space = strrchr(line, ' ');
  char *tab = strrchr(line, '\t');
  if (tab != NULL && (space == NULL || tab > space))
    space = tab;
  if (space == NULL || space == line) {
    snprintf(err, errlen, "line %u: expected \"frame;frame;... count\"", lineno);
    return -1;
  }
  const char *digits = space + 1;
  char *end;
  errno = 0;
  unsigned long long count = strtoull(digits, &end, 10);
  if (*digits < '0' || *digits > '9' || *end != '\0' || errno != 0) {
    snprintf(err, errlen, "line %u: the count \"%s\" is not a whole number", lineno, digits);
    return -1;
  }
  while (space > line && (space[-1] == ' ' || space[-1] == '\t'))
    space--;
  *space = '\0';
  /* Golden files are small; a scan finds a repeated path without sorting. */
  for (size_t i = 0; i < g->paths.count; i++) {
    if (strcmp(g->paths.lines[i].path, line) == 0) {
      snprintf(err, errlen, "line %u: the path %s is listed twice", lineno, line);
      return -1;
    }
  }
  if (knit_folded_add(&g->paths, line, count) != 0) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

int knit_golden_parse(const char *text, knit_golden *g, char *err, size_t errlen)
{
  memset(g, 0, sizeof *g);
  g->tolerance = KNIT_GOLDEN_DEFAULT_TOLERANCE;
  g->min_share = KNIT_GOLDEN_DEFAULT_MIN_SHARE;
  g->runtime_share = KNIT_GOLDEN_DEFAULT_RUNTIME_SHARE;
  unsigned lineno = 0;
  int rc = 0;
  for (const char *s = text; *s != '\0' && rc == 0;) {
    size_t len = strcspn(s, "\n");
    lineno++;
    char *line = strndup(s, len);
    if (line == NULL) {
      snprintf(err, errlen, "out of memory");
      rc = -1;
      break;
    }
    size_t end = strlen(line);
    while (end > 0 && strchr(" \t\r", line[end - 1]) != NULL)
      line[--end] = '\0';
    const char *first = line + strspn(line, " \t");
    if (*first == '#')
      rc = parse_comment(g, first, err, errlen, lineno);
    else if (*first != '\0')
      rc = parse_path_line(g, line + (first - line), err, errlen, lineno);
    free(line);
    s += len;
    if (*s == '\n')
      s++;
  }
  /* Paths listed under "paths: ignore" would look checked and never be. */
  if (rc == 0 && g->paths_ignored && g->paths.count > 0) {
    snprintf(err, errlen, "the golden says \"paths: ignore\" but lists %zu path%s", g->paths.count,
             g->paths.count == 1 ? "" : "s");
    rc = -1;
  }
  /* Shares are counts over the total: a total that saturated would make
   * every share wrong. */
  if (rc == 0 && g->paths.saturated) {
    snprintf(err, errlen, "the counts add up past 2^64-1");
    rc = -1;
  }
  if (rc == 0)
    knit_folded_finish(&g->paths);
  if (rc != 0)
    knit_golden_free(g);
  return rc;
}

int knit_golden_read(const char *path, knit_golden *g, char *err, size_t errlen)
{
  memset(g, 0, sizeof *g);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    snprintf(err, errlen, "cannot open golden %s: %s", path, strerror(errno));
    return -1;
  }
  size_t len = 0, cap = 4096;
  char *text = malloc(cap);
  size_t n;
  while (text != NULL && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len - 1 == 0) {
      char *grown = realloc(text, 2 * cap);
      if (grown == NULL) {
        free(text);
        text = NULL;
        break;
      }
      text = grown;
      cap *= 2;
    }
  }
  int failed = ferror(f);
  fclose(f);
  if (text == NULL || failed) {
    snprintf(err, errlen, "cannot read golden %s", path);
    free(text);
    return -1;
  }
  text[len] = '\0';
  char reason[400];
  int rc = knit_golden_parse(text, g, reason, sizeof reason);
  free(text);
  if (rc != 0)
    snprintf(err, errlen, "golden %s: %s", path, reason);
  return rc;
}

void knit_golden_free(knit_golden *g)
{
  knit_folded_free(&g->paths);
  for (size_t i = 0; i < g->share_count; i++)
    knit_metric_share_free(&g->shares[i]);
  free(g->shares);
  for (size_t i = 0; i < g->comment_count; i++)
    free(g->comments[i]);
  free(g->comments);
  memset(g, 0, sizeof *g);
}

/* A symbol's folded frame text and its readable name's. */
typedef struct rename_pair {
  char *raw;
  char *shown;
} rename_pair;

static int compare_pairs(const void *a, const void *b)
{
  return strcmp(((const rename_pair *)a)->raw, ((const rename_pair *)b)->raw);
}

static void free_pairs(rename_pair *pairs, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    free(pairs[i].raw);
    free(pairs[i].shown);
  }
  free(pairs);
}

/* The pairs of t's renamed nodes, sorted by raw text, one per raw text (a
 * symbol has one readable name); -1 out of memory. */
static int collect_pairs(const knit_report_tree *t, rename_pair **out, size_t *count)
{
  *out = NULL;
  *count = 0;
  size_t cap = 0;
  for (size_t i = 0; i < t->node_count; i++) {
    const knit_report_node *n = &t->nodes[i];
    if (n->raw_function == NULL || n->function == NULL)
      continue;
    char *raw = knit_folded_frame_text(n->raw_function);
    char *shown = knit_folded_frame_text(n->function);
    if (raw == NULL || shown == NULL || strcmp(raw, shown) == 0) {
      int failed = raw == NULL || shown == NULL;
      free(raw);
      free(shown);
      if (failed) {
        free_pairs(*out, *count);
        return -1;
      }
      continue;
    }
    if (*count == cap) {
      cap = cap ? 2 * cap : 16;
      rename_pair *grown = realloc(*out, cap * sizeof *grown);
      if (grown == NULL) {
        free(raw);
        free(shown);
        free_pairs(*out, *count);
        return -1;
      }
      *out = grown;
    }
    (*out)[(*count)++] = (rename_pair){.raw = raw, .shown = shown};
  }
  if (*count == 0)
    return 0;
  qsort(*out, *count, sizeof **out, compare_pairs);
  size_t kept = 0;
  for (size_t i = 0; i < *count; i++) {
    if (kept > 0 && strcmp((*out)[kept - 1].raw, (*out)[i].raw) == 0) {
      free((*out)[i].raw);
      free((*out)[i].shown);
    } else {
      (*out)[kept++] = (*out)[i];
    }
  }
  *count = kept;
  return 0;
}

/* path with each frame that is a pair's raw text replaced by its shown
 * text, newly allocated; NULL out of memory. */
static char *rename_path(const char *path, const rename_pair *pairs, size_t count)
{
  /* Every frame may be renamed: room for the longest growth per frame. */
  size_t growth = 0;
  for (size_t i = 0; i < count; i++)
    if (strlen(pairs[i].shown) > strlen(pairs[i].raw) + growth)
      growth = strlen(pairs[i].shown) - strlen(pairs[i].raw);
  size_t frames = 1;
  for (const char *c = path; *c != '\0'; c++)
    frames += *c == ';';
  char *out = malloc(strlen(path) + 1 + frames * growth);
  char *frame = strdup(path);
  if (out == NULL || frame == NULL) {
    free(out);
    free(frame);
    return NULL;
  }
  size_t len = 0;
  char *save = frame;
  for (char *end;; frame = end + 1) {
    end = strchr(frame, ';');
    if (end != NULL)
      *end = '\0';
    rename_pair key = {.raw = frame};
    const rename_pair *hit =
        count ? bsearch(&key, pairs, count, sizeof *pairs, compare_pairs) : NULL;
    const char *name = hit != NULL ? hit->shown : frame;
    if (len > 0)
      out[len++] = ';';
    memcpy(out + len, name, strlen(name));
    len += strlen(name);
    if (end == NULL)
      break;
  }
  out[len] = '\0';
  free(save);
  return out;
}

int knit_golden_use_names(knit_golden *g, const knit_report_tree *t)
{
  rename_pair *pairs;
  size_t count;
  if (collect_pairs(t, &pairs, &count) != 0)
    return -1;
  if (count == 0)
    return 0;
  int rc = 0;
  for (size_t i = 0; i < g->paths.count && rc == 0; i++) {
    char *renamed = rename_path(g->paths.lines[i].path, pairs, count);
    if (renamed == NULL) {
      rc = -1;
    } else {
      free(g->paths.lines[i].path);
      g->paths.lines[i].path = renamed;
    }
  }
  for (size_t i = 0; i < g->share_count && rc == 0; i++) {
    char *renamed = rename_path(g->shares[i].prefix, pairs, count);
    if (renamed == NULL) {
      rc = -1;
    } else {
      free(g->shares[i].prefix);
      g->shares[i].prefix = renamed;
    }
  }
  free_pairs(pairs, count);
  /* Renamed paths may sort elsewhere, or meet. */
  knit_folded_finish(&g->paths);
  return rc;
}

/* The width of the diff's path column: the longest path, up to a limit. */
static int path_width(const knit_golden *g, const knit_folded *m)
{
  size_t w = 4;
  for (size_t i = 0; i < g->paths.count; i++)
    if (strlen(g->paths.lines[i].path) > w)
      w = strlen(g->paths.lines[i].path);
  for (size_t i = 0; i < m->count; i++)
    if (strlen(m->lines[i].path) > w)
      w = strlen(m->lines[i].path);
  return (int)(w < DIFF_PATH_WIDTH_MAX ? w : DIFF_PATH_WIDTH_MAX);
}

/* Calls visit for every path of either side, in sorted order, with the
 * golden and measured counts (0 when absent) and whether each has it. */
typedef void (*visit_fn)(void *ctx, const char *path, const knit_folded_line *golden,
                         const knit_folded_line *measured);

static void walk_union(const knit_folded *golden, const knit_folded *measured, visit_fn visit,
                       void *ctx)
{
  size_t i = 0, j = 0;
  while (i < golden->count || j < measured->count) {
    int c;
    if (i == golden->count)
      c = 1;
    else if (j == measured->count)
      c = -1;
    else
      c = strcmp(golden->lines[i].path, measured->lines[j].path);
    if (c == 0) {
      visit(ctx, golden->lines[i].path, &golden->lines[i], &measured->lines[j]);
      i++;
      j++;
    } else if (c < 0) {
      visit(ctx, golden->lines[i].path, &golden->lines[i], NULL);
      i++;
    } else {
      visit(ctx, measured->lines[j].path, NULL, &measured->lines[j]);
      j++;
    }
  }
}

typedef struct compare_state {
  const knit_golden *g;
  FILE *out;
  int width;
  size_t differences;
  uint64_t measured_golden_total; /* measured samples on golden paths */
  uint64_t unexpected;            /* measured samples on other paths */
  uint64_t runtime;               /* ... of which in the runtime's placeholders */
  int list_unexpected;            /* shares mode: unexpected paths matter */
  int saturated;                  /* parts of measured->total, which says it first */
} compare_state;

static void say(compare_state *st, char mark, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(compare_state *st, char mark, const char *path, const char *fmt, ...)
{
  st->differences++;
  if (st->out == NULL)
    return;
  fprintf(st->out, "%c %-*s  ", mark, st->width, path);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(st->out, fmt, ap);
  va_end(ap);
  fputc('\n', st->out);
}

static void visit_exact(void *ctx, const char *path, const knit_folded_line *golden,
                        const knit_folded_line *measured)
{
  compare_state *st = ctx;
  unsigned long long gc = golden ? golden->count : 0, mc = measured ? measured->count : 0;
  if (golden == NULL)
    say(st, '+', path, "unexpected: measured %llu", mc);
  else if (measured == NULL)
    say(st, '-', path, "missing: golden %llu", gc);
  else if (gc != mc)
    say(st, '~', path, "count: golden %llu, measured %llu", gc, mc);
}

/* A path whose leaf is one of the runtime's placeholders (<omp-idle>,
 * <omp-barrier>, <omp-lock-wait>, <omp-overhead>): time the runtime spent
 * waiting or on its own work, which a timer sees and a golden of the
 * program's own paths does not list. */
static bool is_runtime_path(const char *path)
{
  const char *leaf = strrchr(path, ';');
  leaf = leaf ? leaf + 1 : path;
  return strncmp(leaf, "<omp-", 5) == 0;
}

static void sum_shares(void *ctx, const char *path, const knit_folded_line *golden,
                       const knit_folded_line *measured)
{
  (void)path;
  compare_state *st = ctx;
  if (measured == NULL)
    return;
  if (golden != NULL)
    st->measured_golden_total =
        knit_count_add(st->measured_golden_total, measured->count, &st->saturated);
  else if (is_runtime_path(path))
    st->runtime = knit_count_add(st->runtime, measured->count, &st->saturated);
  else
    st->unexpected = knit_count_add(st->unexpected, measured->count, &st->saturated);
}

static void visit_shares(void *ctx, const char *path, const knit_folded_line *golden,
                         const knit_folded_line *measured)
{
  compare_state *st = ctx;
  if (golden == NULL) {
    if (is_runtime_path(path))
      return; /* judged together, against runtime-share */
    if (st->list_unexpected)
      say(st, '+', path, "unexpected: measured %llu", (unsigned long long)measured->count);
    return;
  }
  double gs = st->g->paths.total ? (double)golden->count / (double)st->g->paths.total : 0.0;
  double ms = 0.0;
  if (measured != NULL && st->measured_golden_total > 0)
    ms = (double)measured->count / (double)st->measured_golden_total;
  /* A small epsilon keeps shares that print equal to the limit from failing. */
  int off = fabs(ms - gs) > st->g->tolerance + 1e-9;
  if (measured == NULL && (off || gs >= st->g->min_share))
    say(st, '-', path, "missing: golden share %.1f%%", 100.0 * gs);
  else if (off)
    say(st, '~', path, "share: golden %.1f%%, measured %.1f%% (tolerance %.1f%%)", 100.0 * gs,
        100.0 * ms, 100.0 * st->g->tolerance);
}

size_t knit_golden_compare(const knit_golden *g, const knit_folded *measured, knit_check_mode mode,
                           FILE *out)
{
  compare_state st = {.g = g, .out = out, .width = path_width(g, measured)};
  if (mode == KNIT_CHECK_EXACT) {
    walk_union(&g->paths, measured, visit_exact, &st);
    return st.differences;
  }
  if (measured->total == 0) {
    st.width = 0;
    say(&st, '-', "", "the measurement holds no samples");
    return st.differences;
  }
  walk_union(&g->paths, measured, sum_shares, &st);
  double unexpected_share = (double)st.unexpected / (double)measured->total;
  st.list_unexpected = unexpected_share > g->min_share + 1e-9;
  if (st.list_unexpected && st.width < (int)strlen(UNEXPECTED_LABEL))
    st.width = (int)strlen(UNEXPECTED_LABEL);
  walk_union(&g->paths, measured, visit_shares, &st);
  if (st.list_unexpected)
    say(&st, '+', UNEXPECTED_LABEL, "together %.1f%% of all samples (min-share %.1f%%)",
        100.0 * unexpected_share, 100.0 * g->min_share);
  double runtime_share = (double)st.runtime / (double)measured->total;
  if (runtime_share > g->runtime_share + 1e-9)
    say(&st, '+', RUNTIME_LABEL, "together %.1f%% of all samples (runtime-share %.1f%%)",
        100.0 * runtime_share, 100.0 * g->runtime_share);
  return st.differences;
}

int knit_golden_write(const char *path, const knit_golden *old, const knit_folded *measured,
                      char *err, size_t errlen)
{
  size_t len = strlen(path) + sizeof ".tmp";
  char *tmp = malloc(len);
  if (tmp == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  snprintf(tmp, len, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL) {
    snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  for (size_t i = 0; old != NULL && i < old->comment_count; i++)
    fprintf(f, "%s\n", old->comments[i]);
  if (old == NULL || !old->paths_ignored)
    knit_folded_write(measured, f);
  int failed = ferror(f);
  if (fclose(f) != 0)
    failed = 1;
  if (failed || rename(tmp, path) != 0) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}
