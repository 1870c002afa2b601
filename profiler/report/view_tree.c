/* The text views; see view_tree.h.
 *
 * The tree is printed in two passes: the first collects the rows that pass
 * the --min filter (in pre-order, with an explicit stack so deep recursion
 * in the profiled program cannot overflow ours), the second prints them
 * with the source column aligned after the widest function cell. */
#include "report/view_tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "measure/count.h"
#include "measure/read_printable.h"
#include "report/metrics.h"
#include "report/view_metrics.h"
#include "report/view_steps.h"

/* Function cells wider than this push their source column further right
 * instead of widening the column for every row. */
#define FUNCTION_COLUMN_MAX 64
#define INDENT              2

typedef struct row {
  uint32_t node;
  uint32_t depth;
} row;

/* Where the metric columns go and how wide they are. */
typedef struct columns {
  const knit_measurement *m;
  knit_metric_columns shown;
  int sort_metric;                           /* its inclusive value is followed by its share */
  int by_exclusive;                          /* 1: the share follows the exclusive value */
  int grouped;                               /* 1: a line of metric names heads the columns */
  int width[KNIT_METRIC_COUNT];              /* of each shown metric's two value columns */
  const char *incl_title[KNIT_METRIC_COUNT]; /* of each shown metric, in its unit */
  const char *excl_title[KNIT_METRIC_COUNT];
} columns;

/* The share column, "100.0%", and the space between columns. */
#define SHARE_WIDTH 6
#define GAP         2

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static const char *plural(uint64_t n)
{
  return n == 1 ? "" : "s";
}

/* What the profile lacks, when it lacks anything: signals that came while
 * the thread could take no sample (each at least a period of time that is
 * nowhere in the tree), and paths longer than the unwinder's frame limit
 * (their outermost frames are missing). A profile that lost samples says
 * so, and how much. */
static void lost_line(const knit_profile *p, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  uint64_t blocked = knit_profile_stat(p, KNIT_STAT_BLOCKED);
  uint64_t truncated = knit_profile_stat(p, KNIT_STAT_TRUNCATED);
  if (blocked == 0 && truncated == 0)
    return;
  bool probe = strcmp(m->event, "PROBE") == 0;
  fputs("lost:", out);
  if (blocked > 0) {
    fprintf(out, " %llu %s%s blocked", (unsigned long long)blocked, probe ? "probe" : "signal",
            plural(blocked));
    if (!probe && knit_metric_shows_time(m))
      fprintf(out, " (at least %.1f ms not in the tree)",
              knit_metric_value(m, KNIT_METRIC_SAMPLES, blocked));
  }
  if (truncated > 0)
    fprintf(out, "%s %llu path%s cut at the frame limit (outermost frames missing)",
            blocked > 0 ? ";" : "", (unsigned long long)truncated, plural(truncated));
  fputc('\n', out);
}

/* How the run ended, when not by its own exit, and what it could not
 * write: a profile that is missing data says so. */
static void ending_lines(const knit_measurement *m, FILE *out)
{
  if (m->summary == NULL && m->log_read)
    fprintf(out, "ended: abnormally: the log has no SUMMARY (the program was killed, by "
                 "SIGKILL say); this is what its threads had written, at their end or in "
                 "their last snapshot\n");
  else if (m->ending != NULL && strcmp(m->ending, "exit") != 0)
    fprintf(out, "ended: by %s\n", m->ending);
  if (m->unwritten != NULL)
    fprintf(out, "incomplete: %s\n", m->unwritten);
}

void knit_view_header(const knit_profile *p, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  uint64_t samples = knit_profile_stat(p, KNIT_STAT_SAMPLES);
  uint64_t periods = knit_profile_samples(p);
  uint64_t partial = knit_profile_stat(p, KNIT_STAT_PARTIAL);
  char event[192];
  knit_profile_describe_event(p, event, sizeof event);
  if (strcmp(m->event, "PROBE") == 0) {
    fprintf(out, "%s: %llu probe%s", event, (unsigned long long)samples, plural(samples));
  } else {
    fprintf(out, "%s: %llu sample%s (%llu period%s", event, (unsigned long long)samples,
            plural(samples), (unsigned long long)periods, plural(periods));
    if (knit_metric_shows_time(m))
      fprintf(out, ", %.1f ms", knit_metric_value(m, KNIT_METRIC_SAMPLES, periods));
    fputc(')', out);
  }
  fprintf(out, ", %zu thread%s, %llu partial unwind%s\n", m->thread_count, plural(m->thread_count),
          (unsigned long long)partial, plural(partial));
  lost_line(p, out);
  if (p->saturated)
    fprintf(out, "saturated: %s\n", KNIT_SATURATED_TEXT);
  knit_view_steps_line(p, out);
  knit_view_blame_line(p, out);
  knit_view_device_line(p, out);
  char *dir = m->dir != NULL ? knit_printable_dup(m->dir) : NULL;
  fprintf(out, "dir: %s\n", dir != NULL ? dir : "?");
  free(dir);
  if (m->failed_count > 0)
    fprintf(out, "(%zu thread file%s could not be read and %s left out)\n", m->failed_count,
            plural(m->failed_count), m->failed_count == 1 ? "is" : "are");
  if (m->summary != NULL)
    fprintf(out, "log: %s\n", m->summary);
  ending_lines(m, out);
}

static void thread_kind(uint32_t flags, char *buf, size_t len)
{
  buf[0] = '\0';
  static const struct {
    uint32_t flag;
    const char *name;
  } kinds[] = {
      {KNIT_THREAD_MAIN, "main"},
      {KNIT_THREAD_OPENMP, "openmp"},
      {KNIT_THREAD_RUNTIME, "runtime"},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    if (flags & kinds[i].flag) {
      if (buf[0] != '\0')
        strncat(buf, ",", len - strlen(buf) - 1);
      strncat(buf, kinds[i].name, len - strlen(buf) - 1);
    }
  }
  if (buf[0] == '\0')
    snprintf(buf, len, "other");
}

/* A thread's total of each metric, as stored. */
static void thread_totals(const knit_thread_file *t, uint64_t *totals)
{
  int saturated = 0; /* the tree's sum of the same values says it too */
  memset(totals, 0, KNIT_METRIC_COUNT * sizeof *totals);
  for (size_t k = 0; k < t->metric_count; k++)
    if (t->metrics[k].metric < KNIT_METRIC_COUNT)
      totals[t->metrics[k].metric] =
          knit_count_add(totals[t->metrics[k].metric], t->metrics[k].value, &saturated);
}

void knit_view_threads(const knit_profile *p, const knit_metric_columns *columns, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  knit_metric_columns shown = {.count = 0};
  if (columns != NULL)
    shown = *columns;
  if (shown.count == 0)
    knit_metric_columns_default(p, &shown);
  /* Each metric's column, as wide as its name and the measurement's total. */
  int width[KNIT_METRIC_COUNT];
  const uint64_t *totals = p->tree.node_count ? p->tree.nodes[0].inclusive : NULL;
  for (size_t i = 0; i < shown.count; i++) {
    char value[48];
    int w = knit_metric_format(m, shown.metric[i], totals ? totals[shown.metric[i]] : 0, value,
                               sizeof value);
    int name = (int)strlen(knit_metric_name(m, shown.metric[i]));
    width[i] = w > name ? w : name;
  }
  /* Blame statistics are mutex wait, shown in the unit of the metrics. */
  int ms = knit_metric_shows_time(m);
  fprintf(out, "%6s  %8s  %-18s  %9s  %9s", "thread", "tid", "kind", "samples", "periods");
  for (size_t i = 0; i < shown.count; i++)
    fprintf(out, "  %*s", width[i], knit_metric_name(m, shown.metric[i]));
  fprintf(out, "  %8s  %8s  %7s  %9s  %13s  %12s\n", "partial", "blocked", "faults", "frames",
          ms ? "blame lost ms" : "blame lost", ms ? "unclaimed ms" : "unclaimed");
  for (size_t i = 0; i < m->thread_count; i++) {
    const knit_thread_file *t = &m->threads[i];
    uint64_t sums[KNIT_METRIC_COUNT];
    thread_totals(t, sums);
    char kind[32];
    thread_kind(t->header.thread_flags, kind, sizeof kind);
    char lost[48], unclaimed[48];
    knit_metric_format(m, KNIT_METRIC_OMP_MUTEX_WAIT, t->stats[KNIT_STAT_BLAME_LOST], lost,
                       sizeof lost);
    knit_metric_format(m, KNIT_METRIC_OMP_MUTEX_WAIT, t->stats[KNIT_STAT_BLAME_UNCLAIMED],
                       unclaimed, sizeof unclaimed);
    fprintf(out, "%6u  %8u  %-18s  %9llu  %9llu", t->header.thread_index, t->header.tid, kind,
            (unsigned long long)t->stats[KNIT_STAT_SAMPLES],
            (unsigned long long)sums[KNIT_METRIC_SAMPLES]);
    for (size_t c = 0; c < shown.count; c++) {
      char value[48];
      knit_metric_format(m, shown.metric[c], sums[shown.metric[c]], value, sizeof value);
      fprintf(out, "  %*s", width[c], value);
    }
    fprintf(out, "  %8llu  %8llu  %7llu  %9llu  %13s  %12s\n",
            (unsigned long long)t->stats[KNIT_STAT_PARTIAL],
            (unsigned long long)t->stats[KNIT_STAT_BLOCKED],
            (unsigned long long)t->stats[KNIT_STAT_FAULTS],
            (unsigned long long)t->stats[KNIT_STAT_FRAMES], lost, unclaimed);
  }
  fputc('\n', out);
}

/* Collects the rows to print; returns their number (the caller frees *rows)
 * and the number of subtrees hidden below the threshold of the metric. */
static size_t collect_rows(const knit_calltree *t, int metric, int by_exclusive, uint64_t threshold,
                           row **rows_out, size_t *hidden)
{
  row *rows = malloc(t->node_count * sizeof *rows);
  row *stack = malloc(t->node_count * sizeof *stack);
  size_t count = 0, top = 0;
  *hidden = 0;
  if (rows == NULL || stack == NULL) {
    free(rows);
    free(stack);
    *rows_out = NULL;
    return 0;
  }
  /* The root is not a frame: its children are the top-level rows. */
  const knit_calltree_node *root = &t->nodes[0];
  for (uint32_t c = root->child_count; c > 0; c--)
    stack[top++] = (row){.node = t->children[root->first_child + c - 1], .depth = 0};
  while (top > 0) {
    row r = stack[--top];
    const knit_calltree_node *n = &t->nodes[r.node];
    if ((by_exclusive ? n->exclusive[metric] : n->inclusive[metric]) < threshold) {
      (*hidden)++;
      continue;
    }
    rows[count++] = r;
    for (uint32_t c = n->child_count; c > 0; c--)
      stack[top++] = (row){.node = t->children[n->first_child + c - 1], .depth = r.depth + 1};
  }
  free(stack);
  *rows_out = rows;
  return count;
}

/* The columns of the view: the chosen ones and the sort metric, each as
 * wide as its total (no value exceeds it) and its titles, and, under a
 * line of names, as wide as its name. */
static columns layout_columns(const knit_profile *p, const knit_view_options *o,
                              const knit_calltree *t, int by_exclusive)
{
  columns c = {.m = &p->measurement,
               .shown = o->columns,
               .sort_metric = o->tree.metric,
               .by_exclusive = by_exclusive};
  if (c.shown.count == 0)
    knit_metric_columns_default(p, &c.shown);
  knit_metric_columns_add(&c.shown, c.sort_metric);
  c.grouped = !knit_metric_columns_plain(&c.shown);
  for (size_t i = 0; i < c.shown.count; i++) {
    int metric = c.shown.metric[i];
    c.incl_title[i] = knit_metric_title(c.m, metric, 0);
    c.excl_title[i] = knit_metric_title(c.m, metric, 1);
    char value[64];
    int w = knit_metric_format(c.m, metric, t->nodes[0].inclusive[metric], value, sizeof value);
    if (w < (int)strlen(c.incl_title[i]))
      w = (int)strlen(c.incl_title[i]);
    int share = metric == c.sort_metric ? GAP + SHARE_WIDTH : 0;
    int name = (int)strlen(knit_metric_name(c.m, metric));
    if (c.grouped && 2 * w + GAP + share < name)
      w = (name - GAP - share + 1) / 2;
    c.width[i] = w;
  }
  return c;
}

static void print_titles(const columns *c, int fn_width, FILE *out)
{
  if (c->grouped) {
    for (size_t i = 0; i < c->shown.count; i++) {
      int share = c->shown.metric[i] == c->sort_metric ? GAP + SHARE_WIDTH : 0;
      int group = 2 * c->width[i] + GAP + share;
      const char *name = knit_metric_name(c->m, c->shown.metric[i]);
      if (i + 1 < c->shown.count)
        fprintf(out, "%-*s%*s", group, name, GAP, "");
      else
        fprintf(out, "%s\n", name);
    }
  }
  for (size_t i = 0; i < c->shown.count; i++) {
    int share = c->shown.metric[i] == c->sort_metric;
    fprintf(out, "%*s%*s", i ? GAP : 0, "", c->width[i], c->incl_title[i]);
    if (share && !c->by_exclusive)
      fprintf(out, "%*s%*s", GAP, "", SHARE_WIDTH, "incl%");
    fprintf(out, "%*s%*s", GAP, "", c->width[i], c->excl_title[i]);
    if (share && c->by_exclusive)
      fprintf(out, "%*s%*s", GAP, "", SHARE_WIDTH, "excl%");
  }
  fprintf(out, "%*s%-*s  %s\n", GAP, "", fn_width, "function", "source");
}

static void print_values(const columns *c, const knit_calltree_node *n, const uint64_t *total,
                         FILE *out)
{
  char value[64];
  for (size_t i = 0; i < c->shown.count; i++) {
    int metric = c->shown.metric[i];
    uint64_t shared = c->by_exclusive ? n->exclusive[metric] : n->inclusive[metric];
    double share = total[metric] ? 100.0 * (double)shared / (double)total[metric] : 0.0;
    knit_metric_format(c->m, metric, n->inclusive[metric], value, sizeof value);
    fprintf(out, "%*s%*s", i ? GAP : 0, "", c->width[i], value);
    if (metric == c->sort_metric && !c->by_exclusive)
      fprintf(out, "%*s%5.1f%%", GAP, "", share);
    knit_metric_format(c->m, metric, n->exclusive[metric], value, sizeof value);
    fprintf(out, "%*s%*s", GAP, "", c->width[i], value);
    if (metric == c->sort_metric && c->by_exclusive)
      fprintf(out, "%*s%5.1f%%", GAP, "", share);
  }
}

#define INLINED_MARK " [inlined]"

/* The width of the marks after a name: " [inlined]" for a call the
 * compiler inlined, " [xN]" for the recursion a folded node stands for. */
static int marks_width(const knit_calltree_node *n)
{
  int w = n->inlined == 1 ? (int)strlen(INLINED_MARK) : 0;
  if (n->recursion <= 1)
    return w;
  char buf[24];
  return w + snprintf(buf, sizeof buf, " [x%u]", n->recursion);
}

static void print_rows(const knit_calltree *t, const row *rows, size_t count, const columns *c,
                       FILE *out)
{
  int fn_width = 8;
  for (size_t i = 0; i < count; i++) {
    const knit_calltree_node *n = &t->nodes[rows[i].node];
    int w = (int)(rows[i].depth * INDENT + strlen(n->function) + marks_width(n));
    if (w > fn_width && w <= FUNCTION_COLUMN_MAX)
      fn_width = w;
  }
  print_titles(c, fn_width, out);
  for (size_t i = 0; i < count; i++) {
    const knit_calltree_node *n = &t->nodes[rows[i].node];
    print_values(c, n, t->nodes[0].inclusive, out);
    int indent = (int)(rows[i].depth * INDENT);
    fprintf(out, "%*s%*s%s", GAP, "", indent, "", n->function);
    if (n->inlined == 1)
      fputs(INLINED_MARK, out);
    if (n->recursion > 1)
      fprintf(out, " [x%u]", n->recursion);
    if (n->file != NULL) {
      int pad = fn_width - indent - (int)strlen(n->function) - marks_width(n);
      fprintf(out, "%*s  %s:%u", pad > 0 ? pad : 0, "", base_name(n->file), n->line);
      if (n->other_sites > 0)
        fprintf(out, " +%u", n->other_sites);
    }
    fputc('\n', out);
  }
}

void knit_view_top_down(const knit_profile *p, const knit_view_options *options, FILE *out)
{
  knit_view_options checked = *options;
  if (checked.tree.metric < 0 || checked.tree.metric >= KNIT_METRIC_COUNT)
    checked.tree.metric = KNIT_METRIC_SAMPLES;
  knit_calltree t;
  if (knit_calltree_build(&t, &p->tree, &checked.tree) != 0) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  knit_view_calltree(p, &checked, &t, 0, out);
  knit_calltree_free(&t);
}

void knit_view_calltree(const knit_profile *p, const knit_view_options *options,
                        const knit_calltree *tree, int by_exclusive, FILE *out)
{
  knit_view_options checked = *options;
  if (checked.tree.metric < 0 || checked.tree.metric >= KNIT_METRIC_COUNT)
    checked.tree.metric = KNIT_METRIC_SAMPLES;
  const knit_view_options *o = &checked;
  const knit_calltree t = *tree;
  int metric = o->tree.metric;
  uint64_t total = t.nodes[0].inclusive[metric];
  /* The smallest value at or above min_percent of the total. */
  uint64_t threshold = 0;
  if (o->min_percent > 0 && total > 0) {
    double exact = (double)total * o->min_percent / 100.0;
    threshold = (uint64_t)exact;
    if ((double)threshold < exact)
      threshold++;
  }
  size_t hidden = 0;
  row *rows = NULL;
  size_t count = collect_rows(&t, metric, by_exclusive, threshold, &rows, &hidden);
  if (rows == NULL) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  columns c = layout_columns(p, o, &t, by_exclusive);
  print_rows(&t, rows, count, &c, out);
  if (count == 0)
    fprintf(out, "(no samples)\n");
  /* Folded recursion adds a path's values up in ways the header's check of
   * the measurement's sums does not cover. */
  if (t.saturated && !p->saturated)
    fprintf(out, "(%s)\n", KNIT_SATURATED_TEXT);
  if (hidden > 0) {
    /* The time metric's total is "the total", as it always was. */
    char of[64] = "the total";
    if (metric != KNIT_METRIC_SAMPLES)
      snprintf(of, sizeof of, "the %s total", knit_metric_name(&p->measurement, metric));
    fprintf(out,
            "(%zu node%s below %.2g%% of %s hidden with their %s; "
            "--min=0 shows all)\n",
            hidden, plural(hidden), o->min_percent, of, tree->bottom_up ? "callers" : "callees");
  }
  free(rows);
}
