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

#define NONE UINT32_MAX

typedef struct builder {
  knit_diff *d;
  uint32_t *slots;
  size_t slot_count;
} builder;

static uint64_t context_hash(uint32_t parent, const char *function, uint8_t inlined)
{
  uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)parent << 8 | inlined);
  for (const char *c = function; *c != '\0'; c++)
    h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ull;
  return h ^ h >> 27;
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
  for (size_t i = 1; i < b->d->count; i++) {
    const knit_diff_context *c = &b->d->contexts[i];
    size_t s = (size_t)context_hash(c->parent, c->function, c->inlined) & (count - 1);
    while (b->slots[s] != NONE)
      s = (s + 1) & (count - 1);
    b->slots[s] = (uint32_t)i;
  }
  return 0;
}

static int add_context(knit_diff *d, knit_diff_context c)
{
  if (d->count == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 256;
    knit_diff_context *contexts = realloc(d->contexts, cap * sizeof *contexts);
    if (contexts == NULL)
      return -1;
    d->contexts = contexts;
    d->cap = cap;
  }
  d->contexts[d->count++] = c;
  return 0;
}

static uint32_t find_or_add(builder *b, uint32_t parent, const knit_calltree_node *n)
{
  if (2 * (b->d->count + 1) > b->slot_count && grow_slots(b) != 0)
    return NONE;
  size_t s = (size_t)context_hash(parent, n->function, n->inlined) & (b->slot_count - 1);
  for (; b->slots[s] != NONE; s = (s + 1) & (b->slot_count - 1)) {
    const knit_diff_context *c = &b->d->contexts[b->slots[s]];
    if (c->parent == parent && c->inlined == n->inlined && strcmp(c->function, n->function) == 0)
      return b->slots[s];
  }
  knit_diff_context c = {.parent = parent, .function = n->function, .inlined = n->inlined};
  if (add_context(b->d, c) != 0)
    return NONE;
  b->slots[s] = (uint32_t)(b->d->count - 1);
  return b->slots[s];
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
  if (add_context(d, root) != 0 || grow_slots(&bl) != 0 || pour(&bl, a, o, 0) != 0 ||
      pour(&bl, b, o, 1) != 0)
    goto out;
  rc = 0;
out:
  free(bl.slots);
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
