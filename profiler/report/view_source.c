/* The source view; see view_source.h. */
#include "report/view_source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/folded.h"
#include "report/metrics.h"

/* One line's values. */
typedef struct line_value {
  uint64_t inclusive, exclusive;
} line_value;

/* A function's lines, in one file. */
typedef struct listing {
  const char *file;
  line_value *lines; /* index: line number */
  unsigned cap;
  unsigned lo, hi; /* the lines with a value, [lo, hi] */
} listing;

static int names(const knit_report_node *n, const char *function)
{
  return (n->function != NULL && strcmp(n->function, function) == 0) ||
         (n->raw_function != NULL && strcmp(n->raw_function, function) == 0);
}

/* The function a frame's code is part of in the source: its own, or, for
 * an outlined OpenMP body (a region's, a task's), the function the
 * construct is written in, which opened it: the frame above it, through
 * nested constructs. The index of that frame's node. */
static size_t owner_of(const knit_report_tree *t, size_t n)
{
  while (n != 0 && t->nodes[n].parent != 0) {
    const knit_report_node *x = &t->nodes[n];
    const char *raw = x->raw_function ? x->raw_function : x->function;
    if (raw == NULL || !knit_folded_is_wrapper(raw))
      break;
    n = x->parent;
  }
  return n;
}

static int add(listing *l, unsigned line, uint64_t inclusive, uint64_t exclusive)
{
  if (line >= l->cap) {
    unsigned cap = line + 64;
    line_value *v = realloc(l->lines, cap * sizeof *v);
    if (v == NULL)
      return -1;
    memset(v + l->cap, 0, (cap - l->cap) * sizeof *v);
    l->lines = v;
    l->cap = cap;
  }
  l->lines[line].inclusive += inclusive;
  l->lines[line].exclusive += exclusive;
  if (l->lo == 0 || line < l->lo)
    l->lo = line;
  if (line > l->hi)
    l->hi = line;
  return 0;
}

/* Whether node n is inside a frame of the function above it (recursion:
 * the outer frame's line already counts the inner one's time). */
static int under_same(const knit_report_tree *t, size_t n, const char *function)
{
  for (size_t j = t->nodes[n].parent; j != 0; j = t->nodes[j].parent)
    if (names(&t->nodes[j], function))
      return 1;
  return 0;
}

static void print_listing(const knit_profile *p, const listing *l, int metric, FILE *out)
{
  FILE *src = l->file ? fopen(l->file, "r") : NULL;
  char text[1024];
  unsigned at = 1;
  char incl[32], excl[32];
  fprintf(out, "%s%s\n", l->file ? l->file : "(no file)",
          src ? "" : " (not readable here: lines without their text)");
  fprintf(out, "%10s %10s  %6s  %s\n", "incl", "excl", "line", "source");
  /* Two lines of context around the lines with a value. */
  unsigned first = l->lo > 2 ? l->lo - 2 : 1, last = l->hi + 2;
  for (unsigned line = first; line <= last; line++) {
    const char *t = "";
    if (src != NULL) {
      while (at < line && fgets(text, sizeof text, src) != NULL)
        if (strchr(text, '\n') != NULL)
          at++;
      if (at == line && fgets(text, sizeof text, src) != NULL) {
        at++;
        text[strcspn(text, "\n")] = '\0';
        t = text;
      }
    }
    if (line > l->hi && t[0] == '\0')
      break; /* past the end of the file */
    const line_value *v = line < l->cap ? &l->lines[line] : &(line_value){0, 0};
    if (v->inclusive == 0 && v->exclusive == 0) {
      fprintf(out, "%10s %10s  %6u  %s\n", "", "", line, t);
      continue;
    }
    knit_metric_format(&p->measurement, metric, v->inclusive, incl, sizeof incl);
    knit_metric_format(&p->measurement, metric, v->exclusive, excl, sizeof excl);
    fprintf(out, "%10s %10s  %6u  %s\n", incl, excl, line, t);
  }
  if (src)
    fclose(src);
}

/* Adds a line's values to its file's listing, made when new. */
static int listing_add(listing **ls, size_t *count, const char *file, unsigned line,
                       uint64_t inclusive, uint64_t exclusive)
{
  size_t k = 0;
  while (k < *count &&
         !((*ls)[k].file == file || ((*ls)[k].file && file && !strcmp((*ls)[k].file, file))))
    k++;
  if (k == *count) {
    listing *g = realloc(*ls, (*count + 1) * sizeof *g);
    if (g == NULL)
      return -1;
    *ls = g;
    (*ls)[(*count)++] = (listing){.file = file};
  }
  return add(&(*ls)[k], line, inclusive, exclusive);
}

/* Adds node n's values to the lines of one function's code in it: the
 * node's function (first 0) or the call inlined at n->inlined[first - 1].
 * The line that stands for the node there is the call of the next inlined
 * call, or the node's own line; the loops of that code around it hold
 * its value too, on their lines, each line once. */
static int add_scope(listing **ls, size_t *count, const knit_report_node *n, uint32_t first,
                     int metric)
{
  const char *file = n->file;
  unsigned line = n->line;
  uint32_t end = first;
  while (end < n->inlined_count && n->inlined[end].loop)
    end++;
  if (end < n->inlined_count) {
    file = n->inlined[end].call_file;
    line = n->inlined[end].call_line;
  }
  if (line == 0)
    return 0;
  int rc = listing_add(ls, count, file, line, n->inclusive[metric], n->exclusive[metric]);
  for (uint32_t l = first; l < end && rc == 0; l++) {
    unsigned at = n->inlined[l].call_line;
    int seen = at == 0 || at == line;
    for (uint32_t k = first; k < l && !seen; k++)
      seen = n->inlined[k].call_line == at;
    if (!seen)
      rc = listing_add(ls, count, n->inlined[l].call_file, at, n->inclusive[metric], 0);
  }
  return rc;
}

int knit_view_source(const knit_profile *p, const char *function, int metric, FILE *out, char *err,
                     size_t errlen)
{
  const knit_report_tree *t = &p->tree;
  listing *ls = NULL;
  size_t count = 0;
  int rc = 0;
  for (size_t i = 1; i < t->node_count && rc == 0; i++) {
    const knit_report_node *n = &t->nodes[i];
    size_t owner = owner_of(t, i);
    if (names(&t->nodes[owner], function) && !under_same(t, owner, function)) {
      rc = add_scope(&ls, &count, n, 0, metric);
      continue;
    }
    /* Or code of the function inlined into the node's: the first such
     * call in the chain (a function inlined into itself is rare). */
    for (uint32_t j = 0; j < n->inlined_count; j++) {
      const knit_inline_level *l = &n->inlined[j];
      if (!l->loop && ((l->function && !strcmp(l->function, function)) ||
                       (l->raw_function && !strcmp(l->raw_function, function)))) {
        rc = add_scope(&ls, &count, n, j + 1, metric);
        break;
      }
    }
  }
  if (rc == 0 && count == 0) {
    snprintf(err, errlen, "no sampled function is named '%s'", function);
    rc = -1;
  } else if (rc != 0) {
    snprintf(err, errlen, "out of memory");
  }
  for (size_t k = 0; rc == 0 && k < count; k++) {
    if (k > 0)
      fputc('\n', out);
    print_listing(p, &ls[k], metric, out);
  }
  for (size_t k = 0; k < count; k++)
    free(ls[k].lines);
  free(ls);
  return rc;
}
