/* The callers tree; see bottom_up.h.
 *
 * Every node of the call tree with an exclusive value ends a sample path.
 * For each frame of that path, the frames above it, read upwards, are one
 * path of the callers tree under the frame's function: the path of its
 * last frame takes the exclusive values, every path takes the inclusive
 * ones, and a stamp per row keeps a row that two frames of one path reach
 * (recursion) from counting the path twice. */
#include "report/bottom_up.h"

#include <stdlib.h>
#include <string.h>

#include "report/row_table.h"
#include "report/rows.h"

#define NONE KNIT_ROW_NONE

typedef struct builder {
  knit_calltree *ct;
  const knit_calltree *td;
  int metric;
  knit_row_table index; /* rows by (parent, function, module, inlined) */
  uint32_t *stamp;      /* per row: the last path that counted in it */
  uint64_t *site_value; /* per row: the largest value its line came with */
  uint32_t *path;       /* call tree nodes of the path, outermost first */
  size_t path_cap;
} builder;

static uint64_t row_hash(uint32_t parent, const knit_calltree_node *v)
{
  uint64_t h = KNIT_ROW_HASH_SEED ^ ((uint64_t)parent << 8 | v->inlined);
  return knit_row_hash_mix(knit_row_hash_text(knit_row_hash_text(h, v->function), v->module_path));
}

static uint64_t hash_of_row(const void *context, uint32_t id)
{
  const builder *b = context;
  const knit_calltree_node *row = &b->ct->nodes[id];
  return row_hash(row->parent, row);
}

/* What a row is looked up by: its parent and the call tree node it is for. */
typedef struct row_key {
  uint32_t parent;
  const knit_calltree_node *v;
} row_key;

static int row_matches(const void *context, uint32_t id, const void *key)
{
  const builder *b = context;
  const knit_calltree_node *row = &b->ct->nodes[id];
  const row_key *k = key;
  return row->parent == k->parent && row->inlined == k->v->inlined &&
         strcmp(row->function, k->v->function) == 0 &&
         knit_rows_same_text(row->module_path, k->v->module_path);
}

static const knit_row_keys row_keys = {hash_of_row, row_matches};

static int add_row(builder *b, knit_calltree_node row)
{
  knit_calltree *ct = b->ct;
  if (ct->node_count == ct->node_cap) {
    size_t cap = knit_rows_grown_cap(ct->node_cap);
    if (knit_rows_resize(&ct->nodes, sizeof *ct->nodes, cap) != 0 ||
        knit_rows_resize(&b->stamp, sizeof *b->stamp, cap) != 0 ||
        knit_rows_resize(&b->site_value, sizeof *b->site_value, cap) != 0)
      return -1;
    ct->node_cap = cap;
  }
  b->stamp[ct->node_count] = 0;
  b->site_value[ct->node_count] = 0;
  ct->nodes[ct->node_count++] = row;
  return 0;
}

/* The row below parent for the function of call tree node v, created when
 * missing; NONE when out of memory. */
static uint32_t find_or_add(builder *b, uint32_t parent, const knit_calltree_node *v)
{
  uint64_t hash = row_hash(parent, v);
  uint32_t found = knit_row_table_find(&b->index, &row_keys, b, hash, &(row_key){parent, v});
  if (found != NONE)
    return found;
  knit_calltree_node row = {.parent = parent,
                            .function = v->function,
                            .module_path = v->module_path,
                            .module = v->module,
                            .kind = v->kind,
                            .inlined = v->inlined,
                            .offset = v->offset};
  uint32_t id = (uint32_t)b->ct->node_count;
  if (add_row(b, row) != 0 || knit_row_table_add(&b->index, &row_keys, b, hash, id) != 0)
    return NONE;
  return id;
}

/* The line a row shows: that of the call tree node that brought it the
 * most of the metric, the first of equals. */
static void offer_site(builder *b, uint32_t row, const knit_calltree_node *v, uint64_t value)
{
  knit_calltree_node *r = &b->ct->nodes[row];
  if (v->file == NULL || (r->file != NULL && value <= b->site_value[row]))
    return;
  r->file = v->file;
  r->line = v->line;
  b->site_value[row] = value;
}

/* Adds the sample path that ends at call tree node leaf, the stamp-th. */
static int add_path(builder *b, uint32_t leaf, uint32_t stamp)
{
  const knit_calltree *td = b->td;
  size_t depth = 0;
  for (uint32_t j = leaf; j != 0; j = td->nodes[j].parent)
    depth++;
  if (depth > b->path_cap) {
    if (knit_rows_resize(&b->path, sizeof *b->path, depth) != 0)
      return -1;
    b->path_cap = depth;
  }
  size_t k = depth;
  for (uint32_t j = leaf; j != 0; j = td->nodes[j].parent)
    b->path[--k] = j;
  const uint64_t *values = td->nodes[leaf].exclusive;
  uint64_t weight = values[b->metric];
  for (size_t i = depth; i > 0; i--) {
    /* The frame at i - 1 and its callers, innermost first. */
    uint32_t row = 0;
    for (size_t j = i; j > 0; j--) {
      const knit_calltree_node *v = &td->nodes[b->path[j - 1]];
      if ((row = find_or_add(b, row, v)) == NONE)
        return -1;
      knit_calltree_node *r = &b->ct->nodes[row];
      if (b->stamp[row] != stamp) {
        b->stamp[row] = stamp;
        knit_rows_sum(r->inclusive, values, &b->ct->saturated);
      }
      if (i == depth)
        knit_rows_sum(r->exclusive, values, &b->ct->saturated);
      offer_site(b, row, v, weight);
    }
  }
  return 0;
}

int knit_bottom_up_build(knit_calltree *out, const knit_calltree *td, knit_calltree_sort sort,
                         int metric)
{
  memset(out, 0, sizeof *out);
  if (metric < 0 || metric >= KNIT_METRIC_COUNT)
    metric = KNIT_METRIC_SAMPLES;
  builder b = {.ct = out, .td = td, .metric = metric};
  int rc = -1;
  knit_calltree_node root = td->node_count > 0 ? td->nodes[0] : (knit_calltree_node){0};
  root.parent = 0;
  root.function = "ROOT";
  memset(root.exclusive, 0, sizeof root.exclusive);
  root.file = NULL;
  if (add_row(&b, root) != 0)
    goto out;
  uint32_t stamp = 0;
  for (size_t i = 1; i < td->node_count; i++) {
    if (knit_rows_any(td->nodes[i].exclusive) && add_path(&b, (uint32_t)i, ++stamp) != 0)
      goto out;
  }
  out->saturated |= td->saturated;
  out->bottom_up = 1;
  if (knit_calltree_link(out, sort, metric) != 0)
    goto out;
  rc = 0;
out:
  knit_row_table_free(&b.index);
  free(b.stamp);
  free(b.site_value);
  free(b.path);
  if (rc != 0)
    knit_calltree_free(out);
  return rc;
}
