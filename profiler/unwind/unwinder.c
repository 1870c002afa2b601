/* The unwinding loop: see unwinder.h. */
#include "unwind/unwinder.h"

#include <string.h>

#include "measure/format.h"

static bool is_root(const knit_module *m, uint64_t func_start)
{
  for (unsigned i = 0; i < m->root_count; i++)
    if (m->roots[i] == func_start)
      return true;
  return false;
}

/* What the step at one pc needs, found the slow way: module, function,
 * recipe. Returns false when the pc's code cannot be placed (the walk is
 * then partial). *root says the function is one where stacks begin. */
static bool find_step(knit_unwinder *u, const knit_loadmap *map, uint64_t pc, bool innermost,
                      const knit_module **module, knit_recipe *recipe, bool *root,
                      bool *cacheable)
{
  /* A return address belongs to the call before it: look the function up
   * by the byte before, so a call at a function's very end still counts as
   * that function's. */
  uint64_t lookup = innermost ? pc : pc - 1;
  const knit_module *m = knit_loadmap_find(map, lookup);
  *module = m;
  *root = false;
  *cacheable = false;
  if (!m)
    return false;
  const knit_recipe *r = NULL;
  uint64_t fstart, fend;
  if (knit_bounds_lookup(&m->funcs, lookup - m->base, &fstart, &fend)) {
    fstart += m->base;
    fend += m->base;
    if (is_root(m, fstart)) {
      *root = true;
      *cacheable = true;
      return true;
    }
    r = knit_recipe_cache_get(&u->decoder, u->scratch, m->id, fstart, fend, pc,
                              &u->recipes_built);
    *cacheable = r != NULL;
  }
  /* Without bounds or recipes, only the innermost frame has a safe guess:
   * it may be at a function's first instruction (just called). */
  if (!r && innermost && u->decoder.isa)
    r = &u->decoder.isa->entry_recipe;
  if (!r)
    return false;
  *recipe = *r;
  return true;
}

/* The per-thread step cache: a sampled program spends its time in few call
 * paths, so the same return addresses come back sample after sample. A hit
 * skips the module, function and recipe look-ups. It is keyed by pc and by
 * whether the frame is the innermost (the two look functions up by
 * different addresses), and emptied when the load map changes, since code
 * may then have moved. */
static inline knit_step_cache_entry *cached_step(knit_unwinder *u, uint64_t key)
{
  /* Code addresses differ in their low bits; folding in the next bits
   * spreads neighbouring functions without a multiplication on the path
   * from one frame's return address to the next frame's step. */
  return &u->cache[(key ^ key >> 10) % KNIT_STEP_CACHE_SIZE];
}

int knit_unwind(knit_unwinder *u, const knit_regs *regs, knit_frame *frames, int max,
                knit_unwind_end *end)
{
  const knit_loadmap *map = knit_loadmap_current();
  if (u->cache && u->cache_map != map) {
    memset(u->cache, 0, KNIT_STEP_CACHE_SIZE * sizeof *u->cache);
    u->cache_map = map;
  }
  knit_regs cur = *regs;
  *end = KNIT_UNWIND_TRUNCATED;
  u->progress = 0;
  for (int i = 0; i < max; i++) {
    bool innermost = i == 0;
    uint64_t key = cur.pc ^ (innermost ? 1ull : 0);
    knit_step_cache_entry *e = u->cache ? cached_step(u, key) : NULL;
    uint32_t module_id = KNIT_MODULE_UNKNOWN;
    uint64_t base = 0;
    knit_recipe recipe = {0};
    bool root, found;
    if (e && e->key == key && e->module) {
      module_id = e->module - 1;
      base = e->base;
      recipe.cfa_base = e->cfa_base;
      recipe.ra_rule = e->ra_rule;
      recipe.fp_rule = e->fp_rule;
      recipe.cfa_offset = e->cfa_offset;
      recipe.ra_offset = e->ra_offset;
      recipe.fp_offset = e->fp_offset;
      root = e->root;
      found = true;
    } else {
      bool cacheable;
      const knit_module *m;
      found = find_step(u, map, cur.pc, innermost, &m, &recipe, &root, &cacheable);
      if (m) {
        module_id = m->id;
        base = m->base;
      }
      cacheable = cacheable && recipe.ra_offset == (int16_t)recipe.ra_offset &&
                  recipe.fp_offset == (int16_t)recipe.fp_offset;
      if (e && found && cacheable) {
        e->key = key;
        e->base = base;
        e->module = module_id + 1;
        e->root = root;
        e->cfa_base = recipe.cfa_base;
        e->ra_rule = recipe.ra_rule;
        e->fp_rule = recipe.fp_rule;
        e->cfa_offset = recipe.cfa_offset;
        e->ra_offset = (int16_t)recipe.ra_offset;
        e->fp_offset = (int16_t)recipe.fp_offset;
      }
    }

    knit_frame *f = &frames[i];
    f->pc = cur.pc;
    f->cfa = UINT64_MAX;
    f->module = module_id;
    f->offset = module_id != KNIT_MODULE_UNKNOWN ? cur.pc - base : cur.pc;
    u->progress = i + 1;
    if (!found) {
      *end = KNIT_UNWIND_PARTIAL;
      return i + 1;
    }
    if (root) {
      *end = KNIT_UNWIND_COMPLETE;
      return i + 1;
    }

    knit_regs caller;
    uint64_t cfa;
    knit_step_result step = knit_recipe_apply(&recipe, &cur, u->read, u->read_ctx, &caller, &cfa);
    if (step != KNIT_STEP_OK) {
      *end = step == KNIT_STEP_END ? KNIT_UNWIND_COMPLETE : KNIT_UNWIND_PARTIAL;
      return i + 1;
    }
    f->cfa = cfa;
    cur = caller;
  }
  return max;
}
