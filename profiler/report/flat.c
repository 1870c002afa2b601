/* The flat view's rows; see flat.h.
 *
 * Each node with an exclusive value ends one sample path. The path's
 * frames are walked once; every row a frame names takes the path's values
 * into its inclusive value unless the path counted there already (a stamp
 * per row remembers the last path that did), and the rows of the path's
 * last frame take them into their exclusive value. By function and by
 * module the paths are the function-level tree's (calltree.h), so the
 * names are the tree's; by line they are the recorded tree's, whose nodes
 * keep their own lines where the function-level tree merged them. */
#define _GNU_SOURCE /* qsort_r */
#include "report/flat.h"

#include <stdlib.h>
#include <string.h>

#include "report/folded.h"
#include "report/row_table.h"
#include "report/rows.h"
#include "report/sample_path.h"

typedef struct builder {
  knit_flat *f;
  knit_row_table index; /* rows by all but their values */
  uint32_t *stamp;      /* per row */
  size_t stamp_cap;
  uint32_t current; /* the path being added */
  const uint64_t *values;
  knit_sample_path path; /* by line: the path being added */
} builder;

static uint64_t row_hash(const knit_flat_row *r)
{
  uint64_t h = KNIT_ROW_HASH_SEED ^ ((uint64_t)r->line << 8 | r->inlined);
  h = knit_row_hash_text(knit_row_hash_text(knit_row_hash_text(h, r->name), r->function),
                         r->module);
  return knit_row_hash_mix(h);
}

static uint64_t hash_of_row(const void *context, uint32_t id)
{
  return row_hash(&((const builder *)context)->f->rows[id]);
}

static int row_matches(const void *context, uint32_t id, const void *key)
{
  const knit_flat_row *a = &((const builder *)context)->f->rows[id], *b = key;
  return a->line == b->line && a->inlined == b->inlined && knit_rows_same_text(a->name, b->name) &&
         knit_rows_same_text(a->function, b->function) && knit_rows_same_text(a->module, b->module);
}

static const knit_row_keys row_keys = {hash_of_row, row_matches};

/* Counts the current path in the row key names (inclusive, and exclusive
 * when exclusive is 1). Returns 0, or -1 out of memory. */
static int count_in(builder *b, knit_flat_row key, int exclusive)
{
  knit_flat *f = b->f;
  uint64_t hash = row_hash(&key);
  uint32_t r = knit_row_table_find(&b->index, &row_keys, b, hash, &key);
  if (r == KNIT_ROW_NONE) {
    if (f->count == f->cap) {
      size_t cap = knit_rows_grown_cap(f->cap);
      if (knit_rows_resize(&f->rows, sizeof *f->rows, cap) != 0 ||
          knit_rows_resize(&b->stamp, sizeof *b->stamp, cap) != 0)
        return -1;
      f->cap = cap;
    }
    memset(key.inclusive, 0, sizeof key.inclusive);
    memset(key.exclusive, 0, sizeof key.exclusive);
    r = (uint32_t)f->count;
    if (knit_row_table_add(&b->index, &row_keys, b, hash, r) != 0)
      return -1;
    b->stamp[r] = 0;
    f->rows[f->count++] = key;
  }
  if (b->stamp[r] != b->current) {
    b->stamp[r] = b->current;
    knit_rows_sum(f->rows[r].inclusive, b->values, &f->saturated);
  }
  if (exclusive)
    knit_rows_sum(f->rows[r].exclusive, b->values, &f->saturated);
  return 0;
}

/* By function or module: the function-level tree's paths. */
static int add_tree_paths(builder *b, const knit_calltree *ct, knit_flat_key key)
{
  for (size_t leaf = 1; leaf < ct->node_count; leaf++) {
    const uint64_t *values = ct->nodes[leaf].exclusive;
    if (!knit_rows_any(values))
      continue;
    b->current++;
    b->values = values;
    knit_rows_sum(b->f->total, values, &b->f->saturated);
    for (uint32_t j = (uint32_t)leaf; j != 0; j = ct->nodes[j].parent) {
      const knit_calltree_node *n = &ct->nodes[j];
      knit_flat_row row = {0};
      if (key == KNIT_FLAT_MODULE) {
        row.name = n->module_path;
      } else {
        row.name = n->function;
        row.inlined = n->inlined;
        row.module = n->module_path;
      }
      if (count_in(b, row, j == leaf) != 0)
        return -1;
    }
  }
  return 0;
}

/* By line: the recorded tree's paths, each node's own line and the lines
 * of the inlined calls at its address. */
static int add_line_paths(builder *b, const knit_report_tree *t, const knit_calltree_options *o)
{
  for (size_t leaf = 1; leaf < t->node_count; leaf++) {
    const uint64_t *values = t->nodes[leaf].exclusive;
    if (!knit_rows_any(values))
      continue;
    if (knit_sample_path_of(&b->path, t, (uint32_t)leaf) != 0)
      return -1;
    size_t depth = b->path.depth;
    b->current++;
    b->values = values;
    knit_rows_sum(b->f->total, values, &b->f->saturated);
    for (size_t k = o->all_frames ? 0 : knit_folded_path_start(b->path.frames, depth); k < depth;
         k++) {
      const knit_report_node *n = &t->nodes[b->path.nodes[k]];
      for (uint32_t i = 0; i < n->inlined_count && !o->no_inline; i++) {
        const knit_inline_level *l = &n->inlined[i];
        if (l->loop || l->call_file == NULL)
          continue;
        if (count_in(b, (knit_flat_row){.name = l->call_file, .line = l->call_line}, 0) != 0)
          return -1;
      }
      knit_flat_row row = {.name = n->file, .line = n->file != NULL ? n->line : 0};
      if (n->file == NULL)
        row.function = knit_sample_path_name(n);
      if (count_in(b, row, k == depth - 1) != 0)
        return -1;
    }
  }
  return 0;
}

int knit_flat_build(knit_flat *out, const knit_report_tree *t, const knit_calltree_options *o,
                    knit_flat_key key)
{
  memset(out, 0, sizeof *out);
  builder b = {.f = out};
  int rc = -1;
  if (key == KNIT_FLAT_LINE) {
    rc = add_line_paths(&b, t, o);
  } else {
    knit_calltree_options tree = *o;
    tree.lines = 0;
    knit_calltree ct;
    if (knit_calltree_build(&ct, t, &tree) != 0)
      goto out;
    rc = add_tree_paths(&b, &ct, key);
    out->saturated |= ct.saturated;
    knit_calltree_free(&ct);
  }
out:
  knit_row_table_free(&b.index);
  free(b.stamp);
  knit_sample_path_free(&b.path);
  if (rc != 0)
    knit_flat_free(out);
  return rc;
}

typedef struct sort_context {
  knit_calltree_sort sort;
  int metric;
} sort_context;

static int compare_desc(uint64_t a, uint64_t b)
{
  return a == b ? 0 : a > b ? -1 : 1;
}

static int compare_text(const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    return (a == NULL) - (b == NULL); /* the unnamed last */
  return strcmp(a, b);
}

static int compare_names(const knit_flat_row *x, const knit_flat_row *y)
{
  int c = compare_text(x->name, y->name);
  if (c == 0 && x->line != y->line)
    c = x->line < y->line ? -1 : 1;
  if (c == 0)
    c = compare_text(x->function, y->function);
  if (c == 0)
    c = (int)x->inlined - (int)y->inlined;
  if (c == 0)
    c = compare_text(x->module, y->module);
  return c;
}

static int compare_rows(const void *pa, const void *pb, void *arg)
{
  const sort_context *ctx = arg;
  const knit_flat_row *x = pa, *y = pb;
  int m = ctx->metric, c = 0;
  switch (ctx->sort) {
  case KNIT_SORT_EXCLUSIVE:
    if ((c = compare_desc(x->exclusive[m], y->exclusive[m])) == 0)
      c = compare_desc(x->inclusive[m], y->inclusive[m]);
    break;
  case KNIT_SORT_NAME: c = compare_names(x, y); break;
  case KNIT_SORT_INCLUSIVE:
  default:
    if ((c = compare_desc(x->inclusive[m], y->inclusive[m])) == 0)
      c = compare_desc(x->exclusive[m], y->exclusive[m]);
    break;
  }
  return c != 0 ? c : compare_names(x, y);
}

void knit_flat_sort(knit_flat *f, knit_calltree_sort sort, int metric)
{
  if (metric < 0 || metric >= KNIT_METRIC_COUNT)
    metric = KNIT_METRIC_SAMPLES;
  sort_context ctx = {.sort = sort, .metric = metric};
  if (f->count > 0)
    qsort_r(f->rows, f->count, sizeof *f->rows, compare_rows, &ctx);
}

void knit_flat_free(knit_flat *f)
{
  free(f->rows);
  memset(f, 0, sizeof *f);
}
