/* The text views; see view_tree.h.
 *
 * The tree is printed in two passes: the first collects the rows that pass
 * the --min filter (in pre-order, with an explicit stack so deep recursion
 * in the profiled program cannot overflow ours), the second prints them
 * with the source column aligned after the widest function cell. */
#include "report/view_tree.h"

#include <stdlib.h>
#include <string.h>

/* Function cells wider than this push their source column further right
 * instead of widening the column for every row. */
#define FUNCTION_COLUMN_MAX 64
#define INDENT 2

typedef struct row {
  uint32_t node;
  uint32_t depth;
} row;

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static int digits(uint64_t v)
{
  int n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

void knit_view_header(const knit_profile *p, FILE *out)
{
  char event[96];
  knit_profile_describe_event(p, event, sizeof event);
  const knit_measurement *m = &p->measurement;
  fprintf(out, "%s: %s, %zu thread%s, %llu samples, %llu partial unwinds\n", m->dir, event,
          m->thread_count, m->thread_count == 1 ? "" : "s",
          (unsigned long long)knit_profile_samples(p),
          (unsigned long long)knit_profile_stat(p, KNIT_STAT_PARTIAL));
  if (m->failed_count > 0)
    fprintf(out, "(%zu thread file%s could not be read and %s left out)\n",
            m->failed_count, m->failed_count == 1 ? "" : "s",
            m->failed_count == 1 ? "is" : "are");
  if (m->summary != NULL)
    fprintf(out, "log: %s\n", m->summary);
}

static void thread_kind(uint32_t flags, char *buf, size_t len)
{
  buf[0] = '\0';
  static const struct { uint32_t flag; const char *name; } kinds[] = {
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

void knit_view_threads(const knit_profile *p, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  fprintf(out, "%6s  %8s  %-18s  %9s  %8s  %8s  %7s  %9s\n", "thread", "tid", "kind",
          "samples", "partial", "blocked", "faults", "frames");
  for (size_t i = 0; i < m->thread_count; i++) {
    const knit_thread_file *t = &m->threads[i];
    uint64_t samples = 0;
    for (size_t k = 0; k < t->metric_count; k++)
      if (t->metrics[k].metric == KNIT_METRIC_SAMPLES)
        samples += t->metrics[k].value;
    char kind[32];
    thread_kind(t->header.thread_flags, kind, sizeof kind);
    fprintf(out, "%6u  %8u  %-18s  %9llu  %8llu  %8llu  %7llu  %9llu\n",
            t->header.thread_index, t->header.tid, kind, (unsigned long long)samples,
            (unsigned long long)t->stats[KNIT_STAT_PARTIAL],
            (unsigned long long)t->stats[KNIT_STAT_BLOCKED],
            (unsigned long long)t->stats[KNIT_STAT_FAULTS],
            (unsigned long long)t->stats[KNIT_STAT_FRAMES]);
  }
  fputc('\n', out);
}

/* Collects the rows to print; returns their number (the caller frees *rows)
 * and the number of subtrees hidden below the threshold. */
static size_t collect_rows(const knit_report_tree *t, uint64_t threshold, row **rows_out,
                           size_t *hidden)
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
  const knit_report_node *root = &t->nodes[0];
  for (uint32_t c = root->child_count; c > 0; c--)
    stack[top++] = (row){.node = t->children[root->first_child + c - 1], .depth = 0};
  while (top > 0) {
    row r = stack[--top];
    const knit_report_node *n = &t->nodes[r.node];
    if (n->inclusive[KNIT_METRIC_SAMPLES] < threshold) {
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

void knit_view_top_down(const knit_profile *p, double min_percent, FILE *out)
{
  const knit_report_tree *t = &p->tree;
  uint64_t total = knit_profile_samples(p);
  /* The smallest count at or above min_percent of the total. */
  uint64_t threshold = 0;
  if (min_percent > 0 && total > 0) {
    double exact = (double)total * min_percent / 100.0;
    threshold = (uint64_t)exact;
    if ((double)threshold < exact)
      threshold++;
  }
  size_t hidden = 0;
  row *rows = NULL;
  size_t count = collect_rows(t, threshold, &rows, &hidden);
  if (rows == NULL && t->node_count > 1) {
    fprintf(out, "(out of memory)\n");
    return;
  }

  int num = digits(total) > 7 ? digits(total) : 7;
  int fn_width = 8;
  for (size_t i = 0; i < count; i++) {
    int w = (int)(rows[i].depth * INDENT + strlen(t->nodes[rows[i].node].function));
    if (w > fn_width && w <= FUNCTION_COLUMN_MAX)
      fn_width = w;
  }
  fprintf(out, "%*s  %6s  %*s  %-*s  %s\n", num, "incl", "incl%", num, "excl", fn_width,
          "function", "source");
  for (size_t i = 0; i < count; i++) {
    const knit_report_node *n = &t->nodes[rows[i].node];
    uint64_t incl = n->inclusive[KNIT_METRIC_SAMPLES];
    double share = total ? 100.0 * (double)incl / (double)total : 0.0;
    int indent = (int)(rows[i].depth * INDENT);
    int pad = fn_width - indent - (int)strlen(n->function);
    fprintf(out, "%*llu  %5.1f%%  %*llu  %*s%s", num, (unsigned long long)incl, share, num,
            (unsigned long long)n->exclusive[KNIT_METRIC_SAMPLES], indent, "", n->function);
    if (n->file != NULL)
      fprintf(out, "%*s  %s:%u", pad > 0 ? pad : 0, "", base_name(n->file), n->line);
    fputc('\n', out);
  }
  if (count == 0)
    fprintf(out, "(no samples)\n");
  if (hidden > 0)
    fprintf(out, "(%zu call path%s below %.2g%% of samples hidden; --min=0 shows all)\n",
            hidden, hidden == 1 ? "" : "s", min_percent);
  free(rows);
}
