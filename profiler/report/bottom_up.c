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

#include "measure/count.h"

#define NONE UINT32_MAX

typedef struct builder {
  knit_calltree *ct;
  const knit_calltree *td;
  int metric;
  uint32_t *slots; /* rows by (parent, function, module, inlined) */
  size_t slot_count;
  uint32_t *stamp;      /* per row: the last path that counted in it */
  uint64_t *site_value; /* per row: the largest value its line came with */
  size_t row_cap;
  uint32_t *path; /* call tree nodes of the path, outermost first */
  size_t path_cap;
} builder;

static uint64_t row_hash(uint32_t parent, const knit_calltree_node *v)
{
  uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)parent << 8 | v->inlined);
  for (const char *c = v->function; *c != '\0'; c++) /* FNV-1a over the name */
    h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  for (const char *c = v->module_path; c != NULL && *c != '\0'; c++)
    h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ull;
  return h ^ h >> 27;
}

static int same_module(const char *a, const char *b)
{
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int same_row(const knit_calltree_node *row, uint32_t parent, const knit_calltree_node *v)
{
  return row->parent == parent && row->inlined == v->inlined &&
         strcmp(row->function, v->function) == 0 && same_module(row->module_path, v->module_path);
}

static int grow_slots(builder *b)
{
  size_t count = b->slot_count ? 2 * b->slot_count : 256;
  uint32_t *slots = malloc(count * sizeof *slots);
  if (slots == NULL)
    return -1;
  memset(slots, 0xff, count * sizeof *slots);
  free(b->slots);
  b->slots = slots;
  b->slot_count = count;
  for (size_t i = 1; i < b->ct->node_count; i++) {
    const knit_calltree_node *row = &b->ct->nodes[i];
    size_t s = (size_t)row_hash(row->parent, row) & (count - 1);
    while (b->slots[s] != NONE)
      s = (s + 1) & (count - 1);
    b->slots[s] = (uint32_t)i;
  }
  return 0;
}

static int add_row(builder *b, knit_calltree_node row)
{
  knit_calltree *ct = b->ct;
  if (ct->node_count == ct->node_cap) {
    size_t cap = ct->node_cap ? 2 * ct->node_cap : 256;
    knit_calltree_node *nodes = realloc(ct->nodes, cap * sizeof *nodes);
    if (nodes == NULL)
      return -1;
    ct->nodes = nodes;
    ct->node_cap = cap;
  }
  if (ct->node_count == b->row_cap) {
    size_t cap = b->row_cap ? 2 * b->row_cap : 256;
    uint32_t *stamp = realloc(b->stamp, cap * sizeof *stamp);
    if (stamp == NULL)
      return -1;
    b->stamp = stamp;
    uint64_t *site_value = realloc(b->site_value, cap * sizeof *site_value);
    if (site_value == NULL)
      return -1;
    b->site_value = site_value;
    b->row_cap = cap;
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
  if (2 * (b->ct->node_count + 1) > b->slot_count && grow_slots(b) != 0)
    return NONE;
  size_t s = (size_t)row_hash(parent, v) & (b->slot_count - 1);
  for (; b->slots[s] != NONE; s = (s + 1) & (b->slot_count - 1))
    if (same_row(&b->ct->nodes[b->slots[s]], parent, v))
      return b->slots[s];
  knit_calltree_node row = {.parent = parent,
                            .function = v->function,
                            .module_path = v->module_path,
                            .module = v->module,
                            .kind = v->kind,
                            .inlined = v->inlined,
                            .offset = v->offset};
  if (add_row(b, row) != 0)
    return NONE;
  b->slots[s] = (uint32_t)(b->ct->node_count - 1);
  return b->slots[s];
}

static void add_values(knit_calltree *ct, uint64_t *sums, const uint64_t *values)
{
  for (int m = 0; m < KNIT_METRIC_COUNT; m++)
    sums[m] = knit_count_add(sums[m], values[m], &ct->saturated);
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
    uint32_t *path = realloc(b->path, depth * sizeof *path);
    if (path == NULL)
      return -1;
    b->path = path;
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
        add_values(b->ct, r->inclusive, values);
      }
      if (i == depth)
        add_values(b->ct, r->exclusive, values);
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
  if (add_row(&b, root) != 0 || grow_slots(&b) != 0)
    goto out;
  uint32_t stamp = 0;
  for (size_t i = 1; i < td->node_count; i++) {
    int any = 0;
    for (int m = 0; m < KNIT_METRIC_COUNT; m++)
      any |= td->nodes[i].exclusive[m] != 0;
    if (any && add_path(&b, (uint32_t)i, ++stamp) != 0)
      goto out;
  }
  out->saturated |= td->saturated;
  out->bottom_up = 1;
  if (knit_calltree_link(out, sort, metric) != 0)
    goto out;
  rc = 0;
out:
  free(b.slots);
  free(b.stamp);
  free(b.site_value);
  free(b.path);
  if (rc != 0)
    knit_calltree_free(out);
  return rc;
}
