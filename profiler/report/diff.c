/* Contexts of two measurements; see diff.h.
 *
 * Both function-level trees are poured into one trie of contexts keyed by
 * (parent context, name, inlined mark): a node of either tree finds its
 * context as a child of its parent's, so matching costs one lookup per
 * node, and a context the other measurement lacks simply has its values
 * at zero there. */
#include "report/diff.h"

#include <stdlib.h>
#include <string.h>

#include "report/metrics.h"
#include "report/row_table.h"
#include "report/rows.h"

#define NONE KNIT_ROW_NONE

typedef struct builder {
  knit_diff *d;
  knit_row_table index; /* contexts by (parent, function, inlined) */
} builder;

static uint64_t context_hash(uint32_t parent, const char *function, uint8_t inlined)
{
  uint64_t h = KNIT_ROW_HASH_SEED ^ ((uint64_t)parent << 8 | inlined);
  return knit_row_hash_mix(knit_row_hash_text(h, function));
}

static uint64_t hash_of_context(const void *context, uint32_t id)
{
  const knit_diff_context *c = &((const builder *)context)->d->contexts[id];
  return context_hash(c->parent, c->function, c->inlined);
}

/* What a context is looked up by: its parent and the call tree node. */
typedef struct context_key {
  uint32_t parent;
  const knit_calltree_node *n;
} context_key;

static int context_matches(const void *context, uint32_t id, const void *key)
{
  const knit_diff_context *c = &((const builder *)context)->d->contexts[id];
  const context_key *k = key;
  return c->parent == k->parent && c->inlined == k->n->inlined &&
         strcmp(c->function, k->n->function) == 0;
}

static const knit_row_keys context_keys = {hash_of_context, context_matches};

static int add_context(knit_diff *d, knit_diff_context c)
{
  if (d->count == d->cap) {
    size_t cap = knit_rows_grown_cap(d->cap);
    if (knit_rows_resize(&d->contexts, sizeof *d->contexts, cap) != 0)
      return -1;
    d->cap = cap;
  }
  d->contexts[d->count++] = c;
  return 0;
}

static uint32_t find_or_add(builder *b, uint32_t parent, const knit_calltree_node *n)
{
  uint64_t hash = context_hash(parent, n->function, n->inlined);
  uint32_t found =
      knit_row_table_find(&b->index, &context_keys, b, hash, &(context_key){parent, n});
  if (found != NONE)
    return found;
  knit_diff_context c = {.parent = parent, .function = n->function, .inlined = n->inlined};
  uint32_t id = (uint32_t)b->d->count;
  if (add_context(b->d, c) != 0 || knit_row_table_add(&b->index, &context_keys, b, hash, id) != 0)
    return NONE;
  return id;
}

/* Whether a call tree node is a thread's idle time: a runtime thread
 * without work, or one waiting in a barrier, which the blame counts idle
 * (ompt/blame.h). */
static int is_idle(const knit_calltree_node *n)
{
  return n->kind == KNIT_NODE_PLACEHOLDER &&
         (n->offset == KNIT_PH_OMP_IDLE || n->offset == KNIT_PH_OMP_BARRIER);
}

/* Pours one measurement's tree (side 0: A, 1: B) into the contexts. */
static int pour(builder *b, const knit_profile *p, const knit_calltree_options *o, int side)
{
  knit_calltree_options tree = *o;
  tree.lines = 0;
  knit_calltree ct;
  if (knit_calltree_build(&ct, &p->tree, &tree) != 0)
    return -1;
  uint32_t *context = malloc((ct.node_count ? ct.node_count : 1) * sizeof *context);
  int rc = -1;
  if (context == NULL)
    goto out;
  const knit_measurement *m = &p->measurement;
  /* Parents come before their children in the call tree. */
  for (size_t i = 0; i < ct.node_count; i++) {
    const knit_calltree_node *n = &ct.nodes[i];
    if (i == 0)
      context[i] = 0;
    else if ((context[i] = find_or_add(b, context[n->parent], n)) == NONE)
      goto out;
    knit_diff_context *c = &b->d->contexts[context[i]];
    for (int metric = 0; metric < KNIT_METRIC_COUNT; metric++) {
      c->inclusive[side][metric] += knit_metric_value(m, metric, n->inclusive[metric]);
      c->exclusive[side][metric] += knit_metric_value(m, metric, n->exclusive[metric]);
    }
    if (is_idle(n)) {
      double idle = knit_metric_value(m, KNIT_METRIC_SAMPLES, n->exclusive[KNIT_METRIC_SAMPLES]);
      c->idle_exclusive[side] += idle;
      for (size_t j = i;; j = ct.nodes[j].parent) {
        b->d->contexts[context[j]].idle_inclusive[side] += idle;
        if (j == 0)
          break;
      }
    }
  }
  rc = 0;
out:
  free(context);
  knit_calltree_free(&ct);
  return rc;
}

int knit_diff_build(knit_diff *d, const knit_profile *a, const knit_profile *b,
                    const knit_calltree_options *o)
{
  memset(d, 0, sizeof *d);
  builder bl = {.d = d};
  knit_diff_context root = {.parent = 0, .function = "ROOT"};
  int rc = -1;
  if (add_context(d, root) != 0 || pour(&bl, a, o, 0) != 0 || pour(&bl, b, o, 1) != 0)
    goto out;
  rc = 0;
out:
  knit_row_table_free(&bl.index);
  if (rc != 0)
    knit_diff_free(d);
  return rc;
}

void knit_diff_path(const knit_diff *d, uint32_t context, char *buf, size_t len)
{
  /* The frames from the innermost out, then written outermost first. */
  uint32_t chain[256];
  size_t depth = 0;
  for (uint32_t c = context; c != 0 && depth < sizeof chain / sizeof chain[0];
       c = d->contexts[c].parent)
    chain[depth++] = c;
  size_t used = 0;
  buf[0] = '\0';
  if (depth == sizeof chain / sizeof chain[0] && used + 4 < len)
    used += (size_t)snprintf(buf, len, "...;");
  for (size_t k = depth; k > 0 && used < len; k--) {
    const knit_diff_context *c = &d->contexts[chain[k - 1]];
    int w = snprintf(buf + used, len - used, "%s%s%s", k < depth ? ";" : "", c->function,
                     c->inlined == 1 ? " [inlined]" : "");
    used += w > 0 ? (size_t)w : 0;
  }
}

int knit_diff_comparable(const knit_profile *a, const knit_profile *b, char *note, size_t notelen,
                         char *err, size_t errlen)
{
  const knit_measurement *ma = &a->measurement, *mb = &b->measurement;
  note[0] = '\0';
  int time_a = knit_metric_shows_time(ma), time_b = knit_metric_shows_time(mb);
  if (time_a != time_b || (!time_a && strcmp(ma->event, mb->event) != 0)) {
    char ea[192], eb[192];
    knit_profile_describe_event(a, ea, sizeof ea);
    knit_profile_describe_event(b, eb, sizeof eb);
    snprintf(err, errlen,
             "A is %s, B is %s: %s is counted in %s and %s in %s, which do not compare; record "
             "both with timer events (CPUTIME or REALTIME), or both with PROBE",
             ea, eb, ma->event, knit_metric_unit(ma), mb->event, knit_metric_unit(mb));
    return -1;
  }
  if (strcmp(ma->event, mb->event) != 0 || ma->period != mb->period) {
    char ea[192], eb[192];
    knit_profile_describe_event(a, ea, sizeof ea);
    knit_profile_describe_event(b, eb, sizeof eb);
    snprintf(note, notelen, "A is %s, B is %s: compared in ms", ea, eb);
  }
  return 0;
}

unsigned knit_diff_openmp_threads(const knit_profile *p)
{
  unsigned openmp = 0, others = 0;
  for (size_t i = 0; i < p->measurement.thread_count; i++) {
    uint32_t flags = p->measurement.threads[i].header.thread_flags;
    openmp += (flags & KNIT_THREAD_OPENMP) != 0;
    others += (flags & (KNIT_THREAD_OPENMP | KNIT_THREAD_RUNTIME)) == 0;
  }
  /* A runtime without OMPT (GNU libgomp) announces no thread: its threads
   * are all the program's threads but a runtime's helpers. */
  unsigned count = openmp > 0 ? openmp : others;
  return count > 0 ? count : 1;
}

void knit_diff_free(knit_diff *d)
{
  free(d->contexts);
  memset(d, 0, sizeof *d);
}
