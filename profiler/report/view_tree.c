/* The text views; see view_tree.h.
 *
 * The tree is printed in two passes: the first collects the rows that pass
 * the --min filter (in pre-order, with an explicit stack so deep recursion
 * in the profiled program cannot overflow ours), the second prints them
 * with the source column aligned after the widest function cell. */
#include "report/view_tree.h"

#include <stdlib.h>
#include <string.h>

#include "report/view_steps.h"

/* Function cells wider than this push their source column further right
 * instead of widening the column for every row. */
#define FUNCTION_COLUMN_MAX 64
#define INDENT 2

typedef struct row {
  uint32_t node;
  uint32_t depth;
} row;

/* How values (event periods) are shown. */
typedef struct units {
  int time;              /* 1: milliseconds, 0: counts */
  double ms_per_period;
  const char *incl_title;
  const char *excl_title;
} units;

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static const char *plural(uint64_t n)
{
  return n == 1 ? "" : "s";
}

/* Only timers have a period that is time; a PROBE fires once per probe. */
static int is_timer(const knit_measurement *m)
{
  return m->period > 0 &&
         (strcmp(m->event, "CPUTIME") == 0 || strcmp(m->event, "REALTIME") == 0);
}

static units units_of(const knit_measurement *m)
{
  if (is_timer(m))
    return (units){.time = 1,
                   .ms_per_period = (double)m->period / 1e6,
                   .incl_title = "incl ms",
                   .excl_title = "excl ms"};
  return (units){.time = 0, .incl_title = "incl", .excl_title = "excl"};
}

/* Formats periods into buf; returns its length. */
static int format_value(const units *u, uint64_t periods, char *buf, size_t len)
{
  if (u->time)
    return snprintf(buf, len, "%.1f", (double)periods * u->ms_per_period);
  return snprintf(buf, len, "%llu", (unsigned long long)periods);
}

void knit_view_header(const knit_profile *p, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  uint64_t samples = knit_profile_stat(p, KNIT_STAT_SAMPLES);
  uint64_t periods = knit_profile_samples(p);
  uint64_t partial = knit_profile_stat(p, KNIT_STAT_PARTIAL);
  char event[96];
  knit_profile_describe_event(p, event, sizeof event);
  if (strcmp(m->event, "PROBE") == 0) {
    fprintf(out, "%s: %llu probe%s", event, (unsigned long long)samples, plural(samples));
  } else {
    fprintf(out, "%s: %llu sample%s (%llu period%s", event, (unsigned long long)samples,
            plural(samples), (unsigned long long)periods, plural(periods));
    if (is_timer(m))
      fprintf(out, ", %.1f ms", (double)periods * (double)m->period / 1e6);
    fputc(')', out);
  }
  fprintf(out, ", %zu thread%s, %llu partial unwind%s\n", m->thread_count,
          plural(m->thread_count), (unsigned long long)partial, plural(partial));
  knit_view_steps_line(p, out);
  fprintf(out, "dir: %s\n", m->dir != NULL ? m->dir : "?");
  if (m->failed_count > 0)
    fprintf(out, "(%zu thread file%s could not be read and %s left out)\n",
            m->failed_count, plural(m->failed_count), m->failed_count == 1 ? "is" : "are");
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
  fprintf(out, "%6s  %8s  %-18s  %9s  %9s  %8s  %8s  %7s  %9s\n", "thread", "tid", "kind",
          "samples", "periods", "partial", "blocked", "faults", "frames");
  for (size_t i = 0; i < m->thread_count; i++) {
    const knit_thread_file *t = &m->threads[i];
    uint64_t periods = 0;
    for (size_t k = 0; k < t->metric_count; k++)
      if (t->metrics[k].metric == KNIT_METRIC_SAMPLES)
        periods += t->metrics[k].value;
    char kind[32];
    thread_kind(t->header.thread_flags, kind, sizeof kind);
    fprintf(out, "%6u  %8u  %-18s  %9llu  %9llu  %8llu  %8llu  %7llu  %9llu\n",
            t->header.thread_index, t->header.tid, kind,
            (unsigned long long)t->stats[KNIT_STAT_SAMPLES], (unsigned long long)periods,
            (unsigned long long)t->stats[KNIT_STAT_PARTIAL],
            (unsigned long long)t->stats[KNIT_STAT_BLOCKED],
            (unsigned long long)t->stats[KNIT_STAT_FAULTS],
            (unsigned long long)t->stats[KNIT_STAT_FRAMES]);
  }
  fputc('\n', out);
}

/* Collects the rows to print; returns their number (the caller frees *rows)
 * and the number of subtrees hidden below the threshold. */
static size_t collect_rows(const knit_calltree *t, uint64_t threshold, row **rows_out,
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
  const knit_calltree_node *root = &t->nodes[0];
  for (uint32_t c = root->child_count; c > 0; c--)
    stack[top++] = (row){.node = t->children[root->first_child + c - 1], .depth = 0};
  while (top > 0) {
    row r = stack[--top];
    const knit_calltree_node *n = &t->nodes[r.node];
    if (n->inclusive < threshold) {
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

static void print_rows(const knit_calltree *t, const row *rows, size_t count,
                       const units *u, FILE *out)
{
  uint64_t total = t->nodes[0].inclusive;
  char value[64];
  /* No value exceeds the total, so its width bounds the column's. */
  int num = format_value(u, total, value, sizeof value);
  int title = (int)strlen(u->incl_title);
  if (num < title)
    num = title;
  int fn_width = 8;
  for (size_t i = 0; i < count; i++) {
    int w = (int)(rows[i].depth * INDENT + strlen(t->nodes[rows[i].node].function));
    if (w > fn_width && w <= FUNCTION_COLUMN_MAX)
      fn_width = w;
  }
  fprintf(out, "%*s  %6s  %*s  %-*s  %s\n", num, u->incl_title, "incl%", num, u->excl_title,
          fn_width, "function", "source");
  for (size_t i = 0; i < count; i++) {
    const knit_calltree_node *n = &t->nodes[rows[i].node];
    double share = total ? 100.0 * (double)n->inclusive / (double)total : 0.0;
    format_value(u, n->inclusive, value, sizeof value);
    fprintf(out, "%*s  %5.1f%%  ", num, value, share);
    format_value(u, n->exclusive, value, sizeof value);
    int indent = (int)(rows[i].depth * INDENT);
    fprintf(out, "%*s  %*s%s", num, value, indent, "", n->function);
    if (n->file != NULL) {
      int pad = fn_width - indent - (int)strlen(n->function);
      fprintf(out, "%*s  %s:%u", pad > 0 ? pad : 0, "", base_name(n->file), n->line);
      if (n->other_sites > 0)
        fprintf(out, " +%u", n->other_sites);
    }
    fputc('\n', out);
  }
}

void knit_view_top_down(const knit_profile *p, const knit_view_options *o, FILE *out)
{
  knit_calltree t;
  if (knit_calltree_build(&t, &p->tree, &o->tree) != 0) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  uint64_t total = t.nodes[0].inclusive;
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
  size_t count = collect_rows(&t, threshold, &rows, &hidden);
  if (rows == NULL) {
    fprintf(out, "(out of memory)\n");
    knit_calltree_free(&t);
    return;
  }
  units u = units_of(&p->measurement);
  print_rows(&t, rows, count, &u, out);
  if (count == 0)
    fprintf(out, "(no samples)\n");
  if (hidden > 0)
    fprintf(out, "(%zu node%s below %.2g%% of the total hidden with their callees; "
            "--min=0 shows all)\n", hidden, plural(hidden), o->min_percent);
  free(rows);
  knit_calltree_free(&t);
}
