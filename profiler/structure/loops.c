/* Natural loops and their nesting; see loops.h. */
#include "structure/loops.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Reverse postorder of the blocks reachable from block 0, by an explicit
 * stack (functions can have tens of thousands of blocks). order receives
 * the blocks, rpo_of each block's position (or -1 when unreachable).
 * Returns how many are reachable, or -1 when out of memory. */
static long reverse_postorder(const knit_cfg *g, uint32_t *order, int32_t *rpo_of)
{
  size_t n = g->count;
  uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
  uint32_t *next_succ = calloc(n ? n : 1, sizeof *next_succ);
  bool *seen = calloc(n ? n : 1, sizeof *seen);
  if (!stack || !next_succ || !seen) {
    free(stack);
    free(next_succ);
    free(seen);
    return -1;
  }
  size_t post = 0, top = 0;
  for (size_t i = 0; i < n; i++)
    rpo_of[i] = -1;
  if (n > 0) {
    stack[top++] = 0;
    seen[0] = true;
  }
  while (top > 0) {
    uint32_t b = stack[top - 1];
    if (next_succ[b] < knit_cfg_succ_count(&g->blocks[b])) {
      uint32_t s = knit_cfg_succ(g, &g->blocks[b], next_succ[b]++);
      if (!seen[s]) {
        seen[s] = true;
        stack[top++] = s;
      }
      continue;
    }
    order[post++] = b; /* postorder */
    top--;
  }
  for (size_t i = 0; i < post / 2; i++) {
    uint32_t t = order[i];
    order[i] = order[post - 1 - i];
    order[post - 1 - i] = t;
  }
  for (size_t i = 0; i < post; i++)
    rpo_of[order[i]] = (int32_t)i;
  free(stack);
  free(next_succ);
  free(seen);
  return (long)post;
}

/* Predecessor lists in one array: preds[first[b] .. first[b + 1]). */
typedef struct preds {
  uint32_t *first;
  uint32_t *list;
} preds;

static int build_preds(const knit_cfg *g, preds *p)
{
  size_t n = g->count, edges = 0;
  p->first = calloc(n + 1, sizeof *p->first);
  for (size_t b = 0; b < n; b++)
    edges += knit_cfg_succ_count(&g->blocks[b]);
  p->list = malloc((edges ? edges : 1) * sizeof *p->list);
  if (!p->first || !p->list)
    return -1;
  for (size_t b = 0; b < n; b++)
    for (uint32_t k = 0; k < knit_cfg_succ_count(&g->blocks[b]); k++)
      p->first[knit_cfg_succ(g, &g->blocks[b], k) + 1]++;
  for (size_t b = 0; b < n; b++)
    p->first[b + 1] += p->first[b];
  uint32_t *fill = calloc(n ? n : 1, sizeof *fill);
  if (!fill)
    return -1;
  for (size_t b = 0; b < n; b++)
    for (uint32_t k = 0; k < knit_cfg_succ_count(&g->blocks[b]); k++) {
      uint32_t s = knit_cfg_succ(g, &g->blocks[b], k);
      p->list[p->first[s] + fill[s]++] = (uint32_t)b;
    }
  free(fill);
  return 0;
}

/* Immediate dominators, as positions in reverse postorder (idom[0] = 0). */
static void dominators(const preds *p, const uint32_t *order, const int32_t *rpo_of, long reach,
                       int32_t *idom)
{
  for (long i = 0; i < reach; i++)
    idom[i] = -1;
  idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (long i = 1; i < reach; i++) {
      uint32_t b = order[i];
      int32_t best = -1;
      for (uint32_t k = p->first[b]; k < p->first[b + 1]; k++) {
        int32_t q = rpo_of[p->list[k]];
        if (q < 0 || idom[q] < 0)
          continue; /* unreachable, or not processed yet */
        if (best < 0) {
          best = q;
          continue;
        }
        int32_t x = best, y = q; /* intersect */
        while (x != y) {
          while (x > y)
            x = idom[x];
          while (y > x)
            y = idom[y];
        }
        best = x;
      }
      if (best >= 0 && idom[i] != best) {
        idom[i] = best;
        changed = true;
      }
    }
  }
}

/* Whether the block at position a dominates the one at position b. */
static bool dominates(const int32_t *idom, int32_t a, int32_t b)
{
  while (b > a)
    b = idom[b];
  return a == b;
}

/* A set of blocks, a bit each. */
typedef struct body {
  uint64_t *bits;
  uint32_t count;
} body;

static bool body_has(const body *b, uint32_t block)
{
  return (b->bits[block / 64] >> (block % 64)) & 1;
}

static void body_add(body *b, uint32_t block)
{
  if (!body_has(b, block)) {
    b->bits[block / 64] |= 1ull << (block % 64);
    b->count++;
  }
}

/* Whether a holds every block of b. */
static bool body_covers(const body *a, const body *b, size_t words)
{
  for (size_t w = 0; w < words; w++)
    if (b->bits[w] & ~a->bits[w])
      return false;
  return true;
}

/* Adds to b the blocks that reach source without passing the header
 * (already in b). */
static void grow_body(body *b, const preds *p, const int32_t *rpo_of, uint32_t source,
                      uint32_t *work)
{
  size_t top = 0;
  if (!body_has(b, source)) {
    body_add(b, source);
    work[top++] = source;
  }
  while (top > 0) {
    uint32_t x = work[--top];
    for (uint32_t k = p->first[x]; k < p->first[x + 1]; k++) {
      uint32_t s = p->list[k];
      if (rpo_of[s] < 0 || body_has(b, s))
        continue;
      body_add(b, s);
      work[top++] = s;
    }
  }
}

/* The loops being found: bodies, and for each its header. */
typedef struct found {
  body *bodies;
  uint32_t *header;
  size_t count, cap;
  size_t words;
} found;

static body *new_body(found *f, uint32_t header)
{
  if (f->count == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 16;
    body *nb = realloc(f->bodies, cap * sizeof *nb);
    if (!nb)
      return NULL;
    f->bodies = nb;
    uint32_t *nh = realloc(f->header, cap * sizeof *nh);
    if (!nh)
      return NULL;
    f->header = nh;
    f->cap = cap;
  }
  body *b = &f->bodies[f->count];
  b->bits = calloc(f->words ? f->words : 1, sizeof *b->bits);
  if (!b->bits)
    return NULL;
  b->count = 0;
  body_add(b, header);
  f->header[f->count++] = header;
  return b;
}

/* The loops of header h (position i in reverse postorder): one per line
 * of its back edges when their bodies nest, else one. */
static int loops_of_header(const knit_cfg *g, const preds *p, const int32_t *rpo_of,
                           const int32_t *idom, int32_t i, uint32_t h, knit_line_of_fn *line_of,
                           void *ctx, uint32_t *work, found *f)
{
  /* The back edges' sources, and their lines. */
  uint32_t nsrc = 0;
  for (uint32_t k = p->first[h]; k < p->first[h + 1]; k++) {
    int32_t q = rpo_of[p->list[k]];
    if (q >= 0 && dominates(idom, i, q))
      nsrc++;
  }
  if (nsrc == 0)
    return 0;
  size_t first = f->count;
  /* One body per distinct line, in the order the lines first appear. */
  unsigned lines[8];
  size_t nlines = 0;
  bool by_line = line_of != NULL && nsrc > 1;
  for (uint32_t k = p->first[h]; k < p->first[h + 1]; k++) {
    uint32_t s = p->list[k];
    int32_t q = rpo_of[s];
    if (q < 0 || !dominates(idom, i, q))
      continue;
    unsigned line = by_line ? knit_loops_block_line(g, s, line_of, ctx) : 0;
    size_t slot = 0;
    while (slot < nlines && lines[slot] != line)
      slot++;
    if (slot == nlines) {
      if (nlines == sizeof lines / sizeof lines[0])
        slot = 0; /* more lines than that: merge into the first */
      else if (!new_body(f, h))
        return -1;
      else
        lines[nlines++] = line;
    }
    grow_body(&f->bodies[first + slot], p, rpo_of, s, work);
  }
  /* Nested by their lines: the loop of the smallest line (the outer loop
   * is written first) is the union of every group's body, the next one
   * the union of the groups from its line on, and so on; a loop with the
   * same blocks as the one around it is that loop. */
  size_t n = f->count - first;
  for (size_t a = 0; a < n; a++)
    for (size_t b = a + 1; b < n; b++)
      if (lines[b] < lines[a]) {
        unsigned tl = lines[a];
        lines[a] = lines[b];
        lines[b] = tl;
        body t = f->bodies[first + a];
        f->bodies[first + a] = f->bodies[first + b];
        f->bodies[first + b] = t;
      }
  for (size_t a = n; a-- > 1;) {
    body *outer = &f->bodies[first + a - 1], *inner = &f->bodies[first + a];
    for (size_t w = 0; w < f->words; w++)
      outer->bits[w] |= inner->bits[w];
    uint32_t count = 0;
    for (size_t w = 0; w < f->words; w++)
      count += (uint32_t)__builtin_popcountll(outer->bits[w]);
    outer->count = count;
  }
  size_t kept = first + 1;
  for (size_t a = first + 1; a < f->count; a++) {
    if (f->bodies[a].count == f->bodies[kept - 1].count) {
      free(f->bodies[a].bits);
      continue;
    }
    f->bodies[kept++] = f->bodies[a];
  }
  f->count = kept;
  return 0;
}

int knit_loops_find(const knit_cfg *g, knit_line_of_fn *line_of, void *ctx, knit_loop_nest *out)
{
  memset(out, 0, sizeof *out);
  size_t n = g->count;
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  int32_t *rpo_of = malloc((n ? n : 1) * sizeof *rpo_of);
  int32_t *idom = malloc((n ? n : 1) * sizeof *idom);
  uint32_t *work = malloc((n ? n : 1) * sizeof *work);
  found f = {.words = (n + 63) / 64};
  preds p = {0};
  int rc = -1;
  out->innermost = malloc((n ? n : 1) * sizeof *out->innermost);
  out->block_count = n;
  if (!order || !rpo_of || !idom || !work || !out->innermost || build_preds(g, &p) != 0)
    goto done;
  long reach = reverse_postorder(g, order, rpo_of);
  if (reach < 0)
    goto done;
  dominators(&p, order, rpo_of, reach, idom);
  /* Headers in reverse postorder: an outer loop's header comes before the
   * headers it dominates, and a header's loops come largest first, so a
   * loop is numbered before the loops it holds. */
  for (long i = 0; i < reach; i++)
    if (loops_of_header(g, &p, rpo_of, idom, (int32_t)i, order[i], line_of, ctx, work, &f) != 0)
      goto done;
  out->loops = calloc(f.count ? f.count : 1, sizeof *out->loops);
  if (!out->loops)
    goto done;
  out->count = f.count;
  for (size_t l = 0; l < f.count; l++) {
    out->loops[l].header = f.header[l];
    out->loops[l].blocks = f.bodies[l].count;
  }
  /* Nesting: a loop's parent is the smallest loop numbered before it that
   * holds its header and all of its blocks. */
  for (size_t l = 0; l < f.count; l++) {
    int32_t parent = -1;
    for (size_t m = 0; m < l; m++)
      if (body_has(&f.bodies[m], f.header[l]) && f.bodies[m].count > f.bodies[l].count &&
          body_covers(&f.bodies[m], &f.bodies[l], f.words) &&
          (parent < 0 || f.bodies[m].count < f.bodies[parent].count))
        parent = (int32_t)m;
    out->loops[l].parent = parent;
    out->loops[l].depth = parent < 0 ? 1 : out->loops[parent].depth + 1;
  }
  for (size_t b = 0; b < n; b++) {
    int32_t best = -1;
    for (size_t l = 0; l < f.count; l++)
      if (body_has(&f.bodies[l], (uint32_t)b) &&
          (best < 0 || f.bodies[l].count < f.bodies[best].count))
        best = (int32_t)l;
    out->innermost[b] = best;
  }
  rc = 0;
done:
  free(order);
  free(rpo_of);
  free(idom);
  free(work);
  for (size_t l = 0; l < f.count; l++)
    free(f.bodies[l].bits);
  free(f.bodies);
  free(f.header);
  free(p.first);
  free(p.list);
  if (rc != 0)
    knit_loops_free(out);
  return rc;
}

unsigned knit_loops_block_line(const knit_cfg *g, uint32_t block, knit_line_of_fn *line_of,
                               void *ctx)
{
  const knit_cfg_block *b = &g->blocks[block];
  if (!line_of)
    return 0;
  uint64_t want = 0, scope = 0;
  line_of(ctx, b->last, &want);
  unsigned best = 0, any = 0;
  for (uint32_t i = 0; i < b->insn_count && b->first_insn + i < g->insn_count; i++) {
    unsigned line = line_of(ctx, g->insn_at[b->first_insn + i], &scope);
    if (line == 0)
      continue;
    if (any == 0 || line < any)
      any = line;
    if (scope == want && (best == 0 || line < best))
      best = line;
  }
  return best ? best : any;
}

int32_t knit_loops_at(const knit_loop_nest *nest, const knit_cfg *g, uint64_t addr)
{
  long b = knit_cfg_block_of(g, addr);
  if (b < 0 || (size_t)b >= nest->block_count || addr >= g->blocks[b].end)
    return -1;
  return nest->innermost[b];
}

int knit_loops_holds(const knit_loop_nest *nest, int32_t loop, uint32_t block)
{
  if (block >= nest->block_count)
    return 0;
  for (int32_t l = nest->innermost[block]; l >= 0; l = nest->loops[l].parent)
    if (l == loop)
      return 1;
  return 0;
}

void knit_loops_free(knit_loop_nest *nest)
{
  free(nest->loops);
  free(nest->innermost);
  memset(nest, 0, sizeof *nest);
}
