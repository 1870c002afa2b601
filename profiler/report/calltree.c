/* The display tree; see calltree.h.
 *
 * The tree is built path by path rather than node by node: where a path
 * starts depends on the whole path (whether it reaches `main`, and rule (a)
 * keeps at least its innermost frame), so each CCT node with an exclusive
 * value of any metric contributes its own path from the root, trimmed, as
 * one insertion into a trie keyed per mode. Summing the values along every
 * inserted path gives inclusive values, and the value of the chosen metric
 * each CCT node passes on lands on the source line it stands for, which is
 * how a merged node learns which of its lines weighs most. This walks each
 * sampled path once, as the folded form does.
 *
 * Siblings are found through one open-addressing hash table over the whole
 * tree keyed by (parent, identity), so nodes with thousands of children (a
 * `<partial>` placeholder, say) cost no more than others.
 *
 * A CCT node at an address inside inlined code is inserted as several
 * levels: the function its symbol names, then each inlined call in turn
 * (symbolize.h), each a child of the one before it. Every level is a node
 * keyed like any other, by function among its siblings, with the inlined
 * flag in the key, so the samples of one inlined callee share its node
 * whichever address they were taken at. In lines mode the symbol's level
 * stays keyed by address, as recorded, and its inlined levels by function
 * under it. */
#define _GNU_SOURCE /* qsort_r */
#include "report/calltree.h"

#include <stdlib.h>
#include <string.h>

#include "measure/count.h"
#include "report/folded.h"
#include "report/row_table.h"
#include "report/rows.h"
#include "report/sample_path.h"

#define NONE KNIT_ROW_NONE

/* One distinct source line of a node, and the periods that passed it. */
typedef struct site {
  const char *file;
  unsigned line;
  uint64_t value;
  uint32_t next; /* the node's next site, or NONE */
} site;

/* One level of a CCT node's frame: its function, or a call inlined in it. */
typedef struct level {
  const char *function;
  uint32_t module;
  uint8_t kind;
  uint8_t inlined;
  uint64_t offset;
  const char *file; /* the line that stands for the level */
  unsigned line;
} level;

typedef struct builder {
  knit_calltree *ct;
  const knit_report_tree *t;
  int lines;
  int inline_levels;    /* inlined calls become levels of their own */
  int fold;             /* recursion folded (knit_calltree_options) */
  int metric;           /* the metric sites are weighed by */
  knit_row_table index; /* view nodes by (parent, identity) */
  site *sites;
  size_t site_count;
  size_t site_cap;
  uint32_t *site_head; /* per view node; grown with the nodes */
  /* The path being inserted; its nodes, once trimmed and folded, are the
   * kept frames. */
  knit_sample_path path;
  uint32_t *recursion; /* per kept frame of the path: levels folded into it, 1 + */
  /* Per kept frame: the CCT node whose inlined calls it shows, the last
   * one folded into it (the path goes on from there). */
  uint32_t *inlined_from;
  size_t kept_cap;
} builder;

static uint64_t key_hash(int lines, uint32_t parent, uint32_t module, uint64_t offset, uint8_t kind,
                         uint8_t inlined, const char *function)
{
  uint64_t h = knit_row_hash_mix((uint64_t)parent << 32 | module);
  if (lines && !inlined)
    return knit_row_hash_mix(h ^ knit_row_hash_mix(offset * 4 + kind));
  return knit_row_hash_mix(knit_row_hash_text(h ^ inlined, function));
}

static uint64_t node_hash(const void *context, uint32_t id)
{
  const builder *b = context;
  const knit_calltree_node *v = &b->ct->nodes[id];
  return key_hash(b->lines, v->parent, v->module, v->offset, v->kind, v->inlined, v->function);
}

/* What a child is looked up by: its parent and its level. */
typedef struct node_key {
  uint32_t parent;
  const level *l;
} node_key;

static int same_identity(int lines, const knit_calltree_node *v, uint32_t parent, const level *l)
{
  if (v->parent != parent || v->module != l->module || v->inlined != l->inlined)
    return 0;
  if (lines && !l->inlined)
    return v->offset == l->offset && v->kind == l->kind;
  return strcmp(v->function, l->function) == 0;
}

static int node_matches(const void *context, uint32_t id, const void *key)
{
  const builder *b = context;
  const node_key *k = key;
  return same_identity(b->lines, &b->ct->nodes[id], k->parent, k->l);
}

static const knit_row_keys node_keys = {node_hash, node_matches};

static int add_node(builder *b, knit_calltree_node v)
{
  knit_calltree *ct = b->ct;
  if (ct->node_count == ct->node_cap) {
    size_t cap = knit_rows_grown_cap(ct->node_cap);
    if (knit_rows_resize(&ct->nodes, sizeof *ct->nodes, cap) != 0 ||
        knit_rows_resize(&b->site_head, sizeof *b->site_head, cap) != 0)
      return -1;
    ct->node_cap = cap;
  }
  b->site_head[ct->node_count] = NONE;
  ct->nodes[ct->node_count++] = v;
  return 0;
}

/* The child of parent that level l of a CCT node (whose module path is
 * module_path) belongs to, created when missing; NONE when out of memory. */
static uint32_t find_or_add(builder *b, uint32_t parent, const level *l, const char *module_path)
{
  uint64_t hash =
      key_hash(b->lines, parent, l->module, l->offset, l->kind, l->inlined, l->function);
  uint32_t found = knit_row_table_find(&b->index, &node_keys, b, hash, &(node_key){parent, l});
  if (found != NONE)
    return found;
  knit_calltree_node v = {.parent = parent,
                          .function = l->function,
                          .module_path = module_path,
                          .module = l->module,
                          .kind = l->kind,
                          .inlined = l->inlined,
                          .offset = l->offset};
  uint32_t id = (uint32_t)b->ct->node_count;
  if (add_node(b, v) != 0 || knit_row_table_add(&b->index, &node_keys, b, hash, id) != 0)
    return NONE;
  return id;
}

static int add_site(builder *b, uint32_t v, const level *l, uint64_t value)
{
  unsigned line = l->file != NULL ? l->line : 0;
  for (uint32_t s = b->site_head[v]; s != NONE; s = b->sites[s].next) {
    if (b->sites[s].line == line && knit_rows_same_text(b->sites[s].file, l->file)) {
      b->sites[s].value = knit_count_add(b->sites[s].value, value, &b->ct->saturated);
      return 0;
    }
  }
  if (b->site_count == b->site_cap) {
    size_t cap = knit_rows_grown_cap(b->site_cap);
    if (knit_rows_resize(&b->sites, sizeof *b->sites, cap) != 0)
      return -1;
    b->site_cap = cap;
  }
  b->sites[b->site_count] =
      (site){.file = l->file, .line = line, .value = value, .next = b->site_head[v]};
  b->site_head[v] = (uint32_t)b->site_count++;
  return 0;
}

/* With recursion folded: 1 + the index among the first kept frames of the
 * path (b->path) of the frame that CCT node n folds into, the nearest one
 * above it of the same function with only wrappers between; 0 for none. */
/* The length of name's function part: gcc names an outlined body after
 * the function it came from (`fib._omp_fn.1`, readable `fib [omp_fn.1]`,
 * report/names.h), and a task body that inlined its function (C++
 * templates, say) is that function's level of the recursion. */
static size_t fold_key_length(const char *name)
{
  const char *suffix = strstr(name, "._omp_fn.");
  if (suffix == NULL)
    suffix = strstr(name, " [omp_fn.");
  if (suffix == NULL)
    suffix = strstr(name, " [omp_outlined");
  return suffix != NULL ? (size_t)(suffix - name) : strlen(name);
}

static int same_fold_key(const char *a, const char *b)
{
  size_t n = fold_key_length(a);
  return n == fold_key_length(b) && strncmp(a, b, n) == 0;
}

static size_t folds_into(const builder *b, size_t kept, uint32_t n)
{
  const knit_report_node *x = &b->t->nodes[n];
  int x_wrapper = knit_folded_is_wrapper(knit_sample_path_name(x));
  for (size_t a = kept; a > 0; a--) {
    const knit_report_node *m = &b->t->nodes[b->path.nodes[a - 1]];
    /* An outlined body folds into an outlined body of the same function,
     * never into the function itself: a region's body under the function
     * that opened it is no recursion. */
    if (m->module == x->module && knit_folded_is_wrapper(knit_sample_path_name(m)) == x_wrapper &&
        same_fold_key(knit_sample_path_name(m), knit_sample_path_name(x)))
      return a;
    if (!knit_folded_is_wrapper(knit_sample_path_name(m)))
      return 0;
  }
  return 0;
}

/* Inserts the path from the root to CCT node leaf with its exclusive values. */
static int insert_path(builder *b, uint32_t leaf, int all_frames, const uint64_t *values)
{
  const knit_report_tree *t = b->t;
  if (knit_sample_path_of(&b->path, t, leaf) != 0)
    return -1;
  size_t depth = b->path.depth;
  if (depth > b->kept_cap) {
    if (knit_rows_resize(&b->recursion, sizeof *b->recursion, depth) != 0 ||
        knit_rows_resize(&b->inlined_from, sizeof *b->inlined_from, depth) != 0)
      return -1;
    b->kept_cap = depth;
  }
  size_t k;
  size_t kept = 0;
  int prev_wrapper = 0; /* the path's previous frame is an outlined body */
  for (k = all_frames ? 0 : knit_folded_path_start(b->path.frames, depth); k < depth; k++) {
    const char *name = knit_sample_path_name(&t->nodes[b->path.nodes[k]]);
    int wrapper = knit_folded_is_wrapper(name);
    size_t back = b->fold ? folds_into(b, kept, b->path.nodes[k]) : 0;
    if (back > 0) {
      /* The frames from the match on go: the path goes on at it. A level
       * of the recursion is counted once: at the function's own frame, or
       * at an outlined body that follows another (a task body that
       * inlined the function), not at the task body that leads to the
       * function's frame. */
      if (!wrapper || prev_wrapper)
        b->recursion[back - 1]++;
      b->inlined_from[back - 1] = b->path.nodes[k];
      kept = back;
      prev_wrapper = wrapper;
      continue;
    }
    prev_wrapper = wrapper;
    b->path.nodes[kept] = b->path.nodes[k];
    b->inlined_from[kept] = b->path.nodes[k];
    b->recursion[kept] = 1;
    kept++;
  }
  uint32_t v = 0;
  knit_rows_sum(b->ct->nodes[0].inclusive, values, &b->ct->saturated);
  for (k = 0; k < kept; k++) {
    const knit_report_node *n = &t->nodes[b->path.nodes[k]];
    const knit_report_node *from = &t->nodes[b->inlined_from[k]];
    /* The levels shown: the inlined calls (unless no_inline) and the
     * loops, in the order the symbolizer gives them. */
    const knit_inline_level *shown[64];
    uint32_t inlined = 0;
    for (uint32_t i = 0; i < from->inlined_count && inlined < 64; i++)
      if (b->inline_levels || from->inlined[i].loop)
        shown[inlined++] = &from->inlined[i];
    const char *module_path = knit_report_node_module(t, n);
    for (uint32_t i = 0; i <= inlined; i++) {
      level l = {.function = i == 0 ? knit_sample_path_name(n) : shown[i - 1]->function,
                 .module = n->module,
                 .kind = n->kind,
                 .inlined = i == 0               ? 0
                            : shown[i - 1]->loop ? 2
                                                 : 1,
                 .offset = n->offset,
                 .file = n->file,
                 .line = n->line};
      /* A level's line is where it calls the next (a loop's: its own);
       * the innermost's is the node's own. */
      if (i < inlined) {
        l.file = shown[i]->call_file;
        l.line = shown[i]->call_line;
      } else if (i > 0) {
        l.file = from->file;
        l.line = from->line;
      }
      if ((v = find_or_add(b, v, &l, module_path)) == NONE ||
          add_site(b, v, &l, values[b->metric]) != 0)
        return -1;
      knit_rows_sum(b->ct->nodes[v].inclusive, values, &b->ct->saturated);
      if (i == 0 && b->recursion[k] > b->ct->nodes[v].recursion)
        b->ct->nodes[v].recursion = b->recursion[k];
    }
  }
  knit_rows_sum(b->ct->nodes[v].exclusive, values, &b->ct->saturated);
  return 0;
}

/* Whether site a should stand for its node rather than site b: a known line
 * before an unknown one, then the larger value, then file and line so the
 * choice is the same on every run. */
static int better_site(const site *a, const site *b)
{
  if ((a->file != NULL) != (b->file != NULL))
    return a->file != NULL;
  if (a->value != b->value)
    return a->value > b->value;
  if (a->file != NULL) {
    int c = strcmp(a->file, b->file);
    if (c != 0)
      return c < 0;
  }
  return a->line < b->line;
}

static void choose_sites(builder *b)
{
  for (size_t i = 1; i < b->ct->node_count; i++) {
    knit_calltree_node *v = &b->ct->nodes[i];
    const site *best = NULL;
    uint32_t count = 0;
    for (uint32_t s = b->site_head[i]; s != NONE; s = b->sites[s].next, count++)
      if (best == NULL || better_site(&b->sites[s], best))
        best = &b->sites[s];
    if (best != NULL) {
      v->file = best->file;
      v->line = best->line;
      v->other_sites = count - 1;
    }
  }
}

static int compare_desc(uint64_t a, uint64_t b)
{
  return a == b ? 0 : a > b ? -1 : 1;
}

static int compare_strings(const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);
  return strcmp(a, b);
}

typedef struct sort_context {
  const knit_calltree_node *nodes;
  knit_calltree_sort sort;
  int metric;
} sort_context;

static int compare_children(const void *pa, const void *pb, void *arg)
{
  const sort_context *ctx = arg;
  const knit_calltree_node *x = &ctx->nodes[*(const uint32_t *)pa];
  const knit_calltree_node *y = &ctx->nodes[*(const uint32_t *)pb];
  int m = ctx->metric;
  int c = 0;
  switch (ctx->sort) {
  case KNIT_SORT_EXCLUSIVE:
    if ((c = compare_desc(x->exclusive[m], y->exclusive[m])) == 0)
      c = compare_desc(x->inclusive[m], y->inclusive[m]);
    break;
  case KNIT_SORT_NAME:
    if ((c = strcmp(x->function, y->function)) == 0)
      c = compare_desc(x->inclusive[m], y->inclusive[m]);
    break;
  case KNIT_SORT_INCLUSIVE:
  default: c = compare_desc(x->inclusive[m], y->inclusive[m]); break;
  }
  /* Among equals in the chosen metric, the time metric decides, so that a
   * tree sorted by a sparse blame metric still puts the busy paths first. */
  if (c == 0 && m != KNIT_METRIC_SAMPLES)
    c = compare_desc(x->inclusive[KNIT_METRIC_SAMPLES], y->inclusive[KNIT_METRIC_SAMPLES]);
  /* Siblings differ in their identity, so these settle every tie and the
   * order is the same on every run. */
  if (c == 0)
    c = strcmp(x->function, y->function);
  if (c == 0)
    c = compare_strings(x->module_path, y->module_path);
  if (c == 0 && x->line != y->line)
    c = x->line < y->line ? -1 : 1;
  if (c == 0 && x->offset != y->offset)
    c = x->offset < y->offset ? -1 : 1;
  if (c == 0)
    c = (int)x->kind - (int)y->kind;
  if (c == 0)
    c = (int)x->inlined - (int)y->inlined;
  return c;
}

int knit_calltree_link(knit_calltree *ct, knit_calltree_sort sort, int metric)
{
  knit_calltree_node *nodes = ct->nodes;
  free(ct->children);
  for (size_t i = 0; i < ct->node_count; i++)
    nodes[i].child_count = 0;
  ct->children = malloc((ct->node_count ? ct->node_count : 1) * sizeof *ct->children);
  if (ct->children == NULL)
    return -1;
  /* Parents come before their children, as in the report tree. */
  for (size_t i = 1; i < ct->node_count; i++)
    nodes[nodes[i].parent].child_count++;
  uint32_t next = 0;
  for (size_t i = 0; i < ct->node_count; i++) {
    nodes[i].first_child = next;
    next += nodes[i].child_count;
    nodes[i].child_count = 0;
  }
  for (size_t i = 1; i < ct->node_count; i++) {
    knit_calltree_node *p = &nodes[nodes[i].parent];
    ct->children[p->first_child + p->child_count++] = (uint32_t)i;
  }
  sort_context ctx = {.nodes = nodes, .sort = sort, .metric = metric};
  for (size_t i = 0; i < ct->node_count; i++)
    qsort_r(ct->children + nodes[i].first_child, nodes[i].child_count, sizeof *ct->children,
            compare_children, &ctx);
  return 0;
}

int knit_calltree_build(knit_calltree *ct, const knit_report_tree *t,
                        const knit_calltree_options *o)
{
  memset(ct, 0, sizeof *ct);
  int metric = o->metric >= 0 && o->metric < KNIT_METRIC_COUNT ? o->metric : 0;
  builder b = {.ct = ct,
               .t = t,
               .lines = o->lines,
               .inline_levels = !o->no_inline,
               .fold = o->fold_recursion && !o->lines,
               .metric = metric};
  int rc = -1;
  knit_calltree_node root = {.parent = 0,
                             .function = "ROOT",
                             .module = KNIT_MODULE_PLACEHOLDER,
                             .kind = KNIT_NODE_PLACEHOLDER,
                             .offset = KNIT_PH_ROOT};
  if (add_node(&b, root) != 0)
    goto out;
  for (size_t i = 1; i < t->node_count; i++) {
    const uint64_t *values = t->nodes[i].exclusive;
    if (knit_rows_any(values) && insert_path(&b, (uint32_t)i, o->all_frames, values) != 0)
      goto out;
  }
  choose_sites(&b);
  if (knit_calltree_link(ct, o->sort, metric) != 0)
    goto out;
  rc = 0;
out:
  knit_row_table_free(&b.index);
  free(b.sites);
  free(b.site_head);
  knit_sample_path_free(&b.path);
  free(b.recursion);
  free(b.inlined_from);
  if (rc != 0)
    knit_calltree_free(ct);
  return rc;
}

void knit_calltree_free(knit_calltree *ct)
{
  free(ct->nodes);
  free(ct->children);
  memset(ct, 0, sizeof *ct);
}
