/* Merging thread trees into one; see tree.h.
 *
 * Children are found through one open-addressing hash table over the whole
 * tree, keyed by (parent, module, offset, kind): a thread's nodes come in
 * parent-first order (the reader guarantees it), so each node's merged parent
 * is known when the node is looked up. */
#define _GNU_SOURCE /* qsort_r */
#include "report/tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "measure/count.h"

#define EMPTY_SLOT KNIT_ROW_NONE

static uint64_t hash_key(uint32_t parent, uint32_t module, uint64_t offset, uint8_t kind)
{
  uint64_t h = offset * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)parent << 32 | module) + kind + (h << 6) + (h >> 2);
  return knit_row_hash_mix(h);
}

/* A child is looked up by its parent and its key in the thread file. */
typedef struct node_key {
  uint32_t parent;
  uint32_t module;
  uint64_t offset;
  uint8_t kind;
} node_key;

static uint64_t hash_of_node(const void *context, uint32_t id)
{
  const knit_report_node *n = &((const knit_report_tree *)context)->nodes[id];
  return hash_key(n->parent, n->module, n->offset, n->kind);
}

static int node_matches(const void *context, uint32_t id, const void *key)
{
  const knit_report_node *n = &((const knit_report_tree *)context)->nodes[id];
  const node_key *k = key;
  return n->parent == k->parent && n->module == k->module && n->offset == k->offset &&
         n->kind == k->kind;
}

/* The root has no key: it is never looked up as anyone's child. */
static const knit_row_keys node_keys = {hash_of_node, node_matches};

int knit_report_tree_init(knit_report_tree *t)
{
  memset(t, 0, sizeof *t);
  t->node_cap = 1024;
  t->nodes = calloc(t->node_cap, sizeof *t->nodes);
  if (t->nodes == NULL) {
    knit_report_tree_free(t);
    return -1;
  }
  t->nodes[0] = (knit_report_node){.parent = 0,
                                   .module = KNIT_MODULE_PLACEHOLDER,
                                   .kind = KNIT_NODE_PLACEHOLDER,
                                   .offset = KNIT_PH_ROOT};
  t->node_count = 1;
  return 0;
}

/* The merged child of parent with this key, created when missing; returns
 * its index, or EMPTY_SLOT when out of memory. */
static uint32_t find_or_add(knit_report_tree *t, uint32_t parent, uint32_t module, uint64_t offset,
                            uint8_t kind)
{
  uint64_t hash = hash_key(parent, module, offset, kind);
  node_key key = {parent, module, offset, kind};
  uint32_t found = knit_row_table_find(&t->index, &node_keys, t, hash, &key);
  if (found != EMPTY_SLOT)
    return found;
  if (t->node_count == t->node_cap) {
    knit_report_node *grown = realloc(t->nodes, 2 * t->node_cap * sizeof *grown);
    if (grown == NULL)
      return EMPTY_SLOT;
    t->nodes = grown;
    t->node_cap *= 2;
  }
  uint32_t index = (uint32_t)t->node_count;
  if (knit_row_table_add(&t->index, &node_keys, t, hash, index) != 0)
    return EMPTY_SLOT;
  t->nodes[index] =
      (knit_report_node){.parent = parent, .module = module, .kind = kind, .offset = offset};
  t->node_count++;
  return index;
}

static uint32_t intern_module(knit_report_tree *t, const char *path)
{
  for (size_t i = 0; i < t->module_count; i++)
    if (strcmp(t->modules[i], path) == 0)
      return (uint32_t)i;
  char **grown = realloc(t->modules, (t->module_count + 1) * sizeof *grown);
  if (grown == NULL)
    return EMPTY_SLOT;
  t->modules = grown;
  t->modules[t->module_count] = strdup(path);
  if (t->modules[t->module_count] == NULL)
    return EMPTY_SLOT;
  return (uint32_t)t->module_count++;
}

int knit_report_tree_add_thread(knit_report_tree *t, const knit_thread_file *f)
{
  if (f->node_count == 0)
    return 0;
  uint32_t *module_map = malloc((f->module_count ? f->module_count : 1) * sizeof *module_map);
  uint32_t *node_map = malloc(f->node_count * sizeof *node_map);
  int rc = -1;
  if (module_map == NULL || node_map == NULL)
    goto out;
  for (size_t i = 0; i < f->module_count; i++)
    if ((module_map[i] = intern_module(t, f->modules[i].path)) == EMPTY_SLOT)
      goto out;
  /* Every thread's root is the merged root, whatever the file calls it. */
  node_map[0] = 0;
  for (size_t i = 1; i < f->node_count; i++) {
    const knit_read_node *n = &f->nodes[i];
    uint32_t module = n->module;
    if (module != KNIT_MODULE_PLACEHOLDER && module != KNIT_MODULE_UNKNOWN)
      module = module_map[module];
    node_map[i] = find_or_add(t, node_map[n->parent], module, n->offset, n->kind);
    if (node_map[i] == EMPTY_SLOT)
      goto out;
  }
  for (size_t i = 0; i < f->metric_count; i++) {
    const knit_read_metric *m = &f->metrics[i];
    if (m->metric < KNIT_METRIC_COUNT) {
      uint64_t *sum = &t->nodes[node_map[m->node]].exclusive[m->metric];
      *sum = knit_count_add(*sum, m->value, &t->saturated);
    }
  }
  rc = 0;
out:
  free(module_map);
  free(node_map);
  return rc;
}

/* The merged child of parent with this key, or EMPTY_SLOT. */
static uint32_t find(const knit_report_tree *t, uint32_t parent, uint32_t module, uint64_t offset,
                     uint8_t kind)
{
  node_key key = {parent, module, offset, kind};
  return knit_row_table_find(&t->index, &node_keys, t, hash_key(parent, module, offset, kind),
                             &key);
}

int knit_report_tree_map_thread(const knit_report_tree *t, const knit_thread_file *f, uint32_t *map)
{
  if (f->node_count == 0)
    return 0;
  uint32_t *module_map = malloc((f->module_count ? f->module_count : 1) * sizeof *module_map);
  if (module_map == NULL)
    return -1;
  for (size_t i = 0; i < f->module_count; i++) {
    module_map[i] = EMPTY_SLOT;
    for (size_t k = 0; k < t->module_count; k++)
      if (strcmp(t->modules[k], f->modules[i].path) == 0)
        module_map[i] = (uint32_t)k;
  }
  map[0] = 0;
  for (size_t i = 1; i < f->node_count; i++) {
    const knit_read_node *n = &f->nodes[i];
    uint32_t module = n->module;
    /* KNIT_MODULE_PLACEHOLDER is EMPTY_SLOT's value too: only a module the
     * tree lacks, not a placeholder, leaves the node out. */
    bool known = true;
    if (module != KNIT_MODULE_PLACEHOLDER && module != KNIT_MODULE_UNKNOWN) {
      module = module_map[module];
      known = module != EMPTY_SLOT;
    }
    uint32_t parent = map[n->parent];
    map[i] =
        parent == EMPTY_SLOT || !known ? EMPTY_SLOT : find(t, parent, module, n->offset, n->kind);
  }
  free(module_map);
  return 0;
}

static int compare_children(const void *a, const void *b, void *arg)
{
  const knit_report_node *nodes = arg;
  const knit_report_node *x = &nodes[*(const uint32_t *)a];
  const knit_report_node *y = &nodes[*(const uint32_t *)b];
  uint64_t xi = x->inclusive[KNIT_METRIC_SAMPLES], yi = y->inclusive[KNIT_METRIC_SAMPLES];
  if (xi != yi)
    return xi > yi ? -1 : 1;
  int c = strcmp(x->function ? x->function : "", y->function ? y->function : "");
  if (c != 0)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->module != y->module)
    return x->module < y->module ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return (int)x->kind - (int)y->kind;
}

int knit_report_tree_link(knit_report_tree *t)
{
  knit_report_node *nodes = t->nodes;
  free(t->children);
  t->children = malloc(t->node_count * sizeof *t->children);
  if (t->children == NULL)
    return -1;
  for (size_t i = 0; i < t->node_count; i++) {
    memcpy(nodes[i].inclusive, nodes[i].exclusive, sizeof nodes[i].inclusive);
    nodes[i].child_count = 0;
  }
  /* Children have larger indexes than their parents, so one backward pass
   * finishes every child before its parent adds it up. */
  for (size_t i = t->node_count - 1; i > 0; i--) {
    knit_report_node *p = &nodes[nodes[i].parent];
    for (int m = 0; m < KNIT_METRIC_COUNT; m++)
      p->inclusive[m] = knit_count_add(p->inclusive[m], nodes[i].inclusive[m], &t->saturated);
    p->child_count++;
  }
  uint32_t next = 0;
  for (size_t i = 0; i < t->node_count; i++) {
    nodes[i].first_child = next;
    next += nodes[i].child_count;
    nodes[i].child_count = 0;
  }
  for (size_t i = 1; i < t->node_count; i++) {
    knit_report_node *p = &nodes[nodes[i].parent];
    t->children[p->first_child + p->child_count++] = (uint32_t)i;
  }
  for (size_t i = 0; i < t->node_count; i++)
    qsort_r(t->children + nodes[i].first_child, nodes[i].child_count, sizeof *t->children,
            compare_children, nodes);
  return 0;
}

void knit_report_tree_free(knit_report_tree *t)
{
  for (size_t i = 0; i < t->module_count; i++)
    free(t->modules[i]);
  free(t->modules);
  free(t->nodes);
  free(t->children);
  knit_row_table_free(&t->index);
  memset(t, 0, sizeof *t);
}

const char *knit_report_node_module(const knit_report_tree *t, const knit_report_node *n)
{
  if (n->module == KNIT_MODULE_PLACEHOLDER || n->module == KNIT_MODULE_UNKNOWN ||
      n->module >= t->module_count)
    return NULL;
  return t->modules[n->module];
}
