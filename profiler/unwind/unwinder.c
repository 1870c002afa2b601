/* The unwinding loop: see unwinder.h. */
#include "unwind/unwinder.h"

#include "measure/format.h"

static bool is_root(const knit_module *m, uint64_t func_start)
{
  for (unsigned i = 0; i < m->root_count; i++)
    if (m->roots[i] == func_start)
      return true;
  return false;
}

int knit_unwind(knit_unwinder *u, const knit_regs *regs, knit_frame *frames, int max,
                knit_unwind_end *end)
{
  const knit_loadmap *map = knit_loadmap_current();
  knit_regs cur = *regs;
  *end = KNIT_UNWIND_TRUNCATED;
  u->progress = 0;
  for (int i = 0; i < max; i++) {
    /* A return address belongs to the call before it: look the function up
     * by the byte before, so a call at a function's very end still counts
     * as that function's. */
    uint64_t lookup = i == 0 ? cur.pc : cur.pc - 1;
    const knit_module *m = knit_loadmap_find(map, lookup);
    knit_frame *f = &frames[i];
    f->pc = cur.pc;
    f->cfa = UINT64_MAX;
    f->module = m ? m->id : KNIT_MODULE_UNKNOWN;
    f->offset = m ? cur.pc - m->base : cur.pc;
    u->progress = i + 1;
    if (!m) {
      *end = KNIT_UNWIND_PARTIAL;
      return i + 1;
    }

    const knit_recipe *r = NULL;
    uint64_t fstart, fend;
    if (knit_bounds_lookup(&m->funcs, lookup - m->base, &fstart, &fend)) {
      fstart += m->base;
      fend += m->base;
      if (is_root(m, fstart)) {
        *end = KNIT_UNWIND_COMPLETE;
        return i + 1;
      }
      r = knit_recipe_cache_get(&u->decoder, u->scratch, fstart, fend, cur.pc,
                                &u->recipes_built);
    }
    /* Without bounds or recipes, only the innermost frame has a safe guess:
     * it may be at a function's first instruction (just called). */
    if (!r && i == 0 && u->decoder.isa)
      r = &u->decoder.isa->entry_recipe;
    if (!r) {
      *end = KNIT_UNWIND_PARTIAL;
      return i + 1;
    }

    knit_regs caller;
    uint64_t cfa;
    knit_step_result step = knit_recipe_apply(r, &cur, u->read, u->read_ctx, &caller, &cfa);
    if (step != KNIT_STEP_OK) {
      *end = step == KNIT_STEP_END ? KNIT_UNWIND_COMPLETE : KNIT_UNWIND_PARTIAL;
      return i + 1;
    }
    f->cfa = cfa;
    cur = caller;
  }
  return max;
}
