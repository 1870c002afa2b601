/* The JSON form of the report's tree; see json_tree.h and docs/json.md.
 *
 * Nodes are renumbered in pre-order over the nodes kept (a parent always
 * before its children, siblings in the tree's sort order), so a reader
 * builds the tree in one pass. The raw symbol of a function is not in the
 * display tree, which merges by readable name: it is looked up by that
 * name among the CCT's nodes and their inlined levels. */
#include "report/json_tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_write.h"
#include "report/metrics.h"
#include "report/string_table.h"

/* The raw symbols of readable names: names[i] is shown as raws[i]. */
typedef struct raw_names {
  knit_string_table names;
  const char **raws;
} raw_names;

static int raw_names_note(raw_names *r, const char *function, const char *raw)
{
  if (function == NULL || raw == NULL)
    return 0;
  size_t before = r->names.count;
  uint32_t i = knit_string_table_add(&r->names, function);
  if (i == KNIT_STRING_NONE)
    return -1;
  if (r->names.count > before) {
    const char **raws = realloc(r->raws, r->names.cap * sizeof *raws);
    if (raws == NULL)
      return -1;
    r->raws = raws;
    r->raws[i] = raw;
  }
  return 0;
}

static int raw_names_collect(raw_names *r, const knit_report_tree *t)
{
  knit_string_table_init(&r->names);
  r->raws = NULL;
  for (size_t i = 0; i < t->node_count; i++) {
    const knit_report_node *n = &t->nodes[i];
    if (raw_names_note(r, n->function, n->raw_function) != 0)
      return -1;
    for (uint32_t k = 0; k < n->inlined_count; k++)
      if (raw_names_note(r, n->inlined[k].function, n->inlined[k].raw_function) != 0)
        return -1;
  }
  return 0;
}

static const char *raw_names_of(const raw_names *r, const char *function)
{
  uint32_t i = knit_string_table_find(&r->names, function);
  return i == KNIT_STRING_NONE ? NULL : r->raws[i];
}

static void raw_names_free(raw_names *r)
{
  knit_string_table_free(&r->names);
  free(r->raws);
}

static const char *kind_name(const knit_calltree_node *n, uint32_t id)
{
  if (id == 0)
    return "root";
  if (n->inlined == 1)
    return "inlined";
  if (n->inlined == 2)
    return "loop";
  if (n->kind == KNIT_NODE_PLACEHOLDER)
    return "placeholder";
  return "function";
}

/* The nodes kept, in pre-order: order[k] is the calltree index of output
 * node k and parent[k] its parent's output number. */
typedef struct kept {
  uint32_t *order;
  uint32_t *parent;
  size_t count;
} kept;

static int collect(const knit_calltree *t, int metric, uint64_t threshold, kept *k)
{
  k->order = malloc(t->node_count * sizeof *k->order);
  k->parent = malloc(t->node_count * sizeof *k->parent);
  /* A stack of (node, its parent's output number); explicit, so a deep
   * recursion in the program cannot overflow ours. */
  uint32_t(*stack)[2] = malloc(t->node_count * sizeof *stack);
  k->count = 0;
  if (k->order == NULL || k->parent == NULL || stack == NULL) {
    free(stack);
    return -1;
  }
  size_t top = 0;
  stack[top][0] = 0;
  stack[top++][1] = 0;
  while (top > 0) {
    uint32_t node = stack[--top][0], parent = stack[top][1];
    const knit_calltree_node *n = &t->nodes[node];
    if (node != 0 && n->inclusive[metric] < threshold)
      continue;
    uint32_t self = (uint32_t)k->count++;
    k->order[self] = node;
    k->parent[self] = parent;
    for (uint32_t c = n->child_count; c > 0; c--) {
      stack[top][0] = t->children[n->first_child + c - 1];
      stack[top++][1] = self;
    }
  }
  free(stack);
  return 0;
}

static uint32_t string_number(knit_string_table *s, const char *text, int *failed)
{
  if (text == NULL)
    return KNIT_STRING_NONE;
  uint32_t i = knit_string_table_add(s, text);
  if (i == KNIT_STRING_NONE)
    *failed = 1;
  return i;
}

static void write_ref(FILE *out, uint32_t i)
{
  if (i == KNIT_STRING_NONE)
    fputs("-1", out);
  else
    fprintf(out, "%u", i);
}

static void write_header(const knit_profile *p, const knit_calltree *t,
                         const knit_calltree_options *o, double min_percent, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  char event[192];
  knit_profile_describe_event(p, event, sizeof event);
  fprintf(out, "{\"format\":\"knit-profile\",\"version\":%d,\n\"event\":", KNIT_JSON_TREE_VERSION);
  knit_json_string(out, m->event);
  fputs(",\"event_text\":", out);
  knit_json_string(out, event);
  fprintf(out, ",\"period_ns\":%llu,\"unit\":", (unsigned long long)m->period);
  knit_json_string(out, knit_metric_unit(m));
  fprintf(out, ",\"samples\":%llu,\"periods\":%llu,\"threads\":%zu,\"saturated\":%s,\n\"dir\":",
          (unsigned long long)knit_profile_stat(p, KNIT_STAT_SAMPLES),
          (unsigned long long)knit_profile_samples(p), m->thread_count,
          p->saturated || t->saturated ? "true" : "false");
  knit_json_string(out, m->dir);
  fputs(",\"log\":", out);
  knit_json_string(out, m->summary);
  fprintf(out,
          ",\n\"tree\":{\"lines\":%s,\"all_frames\":%s,\"fold\":%s,\"inline\":%s,"
          "\"sort\":\"%s\",\"sort_metric\":%d,\"min_percent\":",
          o->lines ? "true" : "false", o->all_frames ? "true" : "false",
          o->fold_recursion ? "true" : "false", o->no_inline ? "false" : "true",
          o->sort == KNIT_SORT_EXCLUSIVE ? "excl"
          : o->sort == KNIT_SORT_NAME    ? "name"
                                         : "incl",
          o->metric);
  knit_json_number(out, min_percent);
  fputs("},\n\"metrics\":[", out);
  for (int k = 0; k < knit_metric_count_shown(t->nodes[0].inclusive); k++) {
    fputs(k ? ",\n {\"name\":" : "\n {\"name\":", out);
    knit_json_string(out, knit_metric_name(m, k));
    fputs(",\"unit\":", out);
    knit_json_string(out, knit_metric_unit_of(m, k));
    fputs(",\"description\":", out);
    knit_json_string(out, knit_metric_description(k));
    fputs(",\"total\":", out);
    knit_json_number(out, knit_metric_value(m, k, t->nodes[0].inclusive[k]));
    fputc('}', out);
  }
  fputs("],\n\"node_fields\":[\"parent\",\"kind\",\"function\",\"raw\",\"module\",\"file\","
        "\"line\",\"sites\",\"recursion\",\"values\"],\n",
        out);
}

/* The nodes, then the string table their numbers refer to. */
static int write_nodes(const knit_profile *p, const knit_calltree *t, const kept *k,
                       const raw_names *raws, FILE *out)
{
  const knit_measurement *m = &p->measurement;
  knit_string_table s;
  knit_string_table_init(&s);
  int failed = 0;
  /* As many metrics as the header lists. */
  int metric_count = knit_metric_count_shown(t->nodes[0].inclusive);
  fputs("\"nodes\":[", out);
  for (size_t i = 0; i < k->count && !failed; i++) {
    const knit_calltree_node *n = &t->nodes[k->order[i]];
    int root = i == 0;
    const char *function = root ? "<root>" : n->function;
    uint32_t fn = string_number(&s, function, &failed);
    uint32_t raw =
        root ? KNIT_STRING_NONE : string_number(&s, raw_names_of(raws, n->function), &failed);
    uint32_t module = root ? KNIT_STRING_NONE : string_number(&s, n->module_path, &failed);
    uint32_t file = root ? KNIT_STRING_NONE : string_number(&s, n->file, &failed);
    fprintf(out, "%s[%d,\"%s\",", i ? ",\n" : "\n", root ? -1 : (int)k->parent[i],
            kind_name(n, k->order[i]));
    write_ref(out, fn);
    fputc(',', out);
    write_ref(out, raw);
    fputc(',', out);
    write_ref(out, module);
    fputc(',', out);
    write_ref(out, file);
    fprintf(out, ",%u,%u,%u,[", n->file != NULL ? n->line : 0, n->other_sites,
            n->recursion > 1 ? n->recursion : 1);
    for (int metric = 0; metric < metric_count; metric++) {
      if (metric)
        fputc(',', out);
      knit_json_number(out, knit_metric_value(m, metric, n->inclusive[metric]));
      fputc(',', out);
      knit_json_number(out, knit_metric_value(m, metric, n->exclusive[metric]));
    }
    fputs("]]", out);
  }
  fputs("],\n\"strings\":[", out);
  for (size_t i = 0; i < s.count; i++) {
    fputs(i ? ",\n" : "\n", out);
    knit_json_string(out, s.strings[i]);
  }
  fputs("]}\n", out);
  knit_string_table_free(&s);
  return failed ? -1 : 0;
}

int knit_json_tree_write(const knit_profile *p, const knit_calltree_options *options,
                         double min_percent, FILE *out, FILE *diag)
{
  knit_calltree_options o = *options;
  if (o.metric < 0 || o.metric >= KNIT_METRIC_COUNT)
    o.metric = KNIT_METRIC_SAMPLES;
  knit_calltree t;
  if (knit_calltree_build(&t, &p->tree, &o) != 0) {
    fprintf(diag, "knit: error: out of memory building the tree\n");
    return -1;
  }
  uint64_t total = t.nodes[0].inclusive[o.metric], threshold = 0;
  if (min_percent > 0 && total > 0) {
    double exact = (double)total * min_percent / 100.0;
    threshold = (uint64_t)exact;
    if ((double)threshold < exact)
      threshold++;
  }
  raw_names raws;
  kept k = {0};
  int rc = -1;
  if (raw_names_collect(&raws, &p->tree) == 0 && collect(&t, o.metric, threshold, &k) == 0) {
    write_header(p, &t, &o, min_percent, out);
    rc = write_nodes(p, &t, &k, &raws, out);
  }
  if (rc != 0)
    fprintf(diag, "knit: error: out of memory writing the JSON tree\n");
  free(k.order);
  free(k.parent);
  raw_names_free(&raws);
  knit_calltree_free(&t);
  return rc;
}
