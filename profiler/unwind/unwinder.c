/* The unwinding loop: see unwinder.h. */
#include "unwind/unwinder.h"

#include <string.h>

#include "measure/format.h"
#include "unwind/isa.h"
#include "unwind/object_lookup.h"
#include "unwind/step_class.h"

static bool is_root(const knit_module *m, uint64_t func_start)
{
  for (unsigned i = 0; i < m->root_count; i++)
    if (m->roots[i] == func_start)
      return true;
  return false;
}

/* The step at a pc in no module of the map: code of an object loaded since
 * the map was built (object_lookup.h), whose function's bounds come from
 * the object's .eh_frame_hdr. Only in the process's own memory (a walk
 * over a recorded stack has only its map) and when no unload is under way
 * (the object may be going). Without bounds the frame stays the walk's
 * last, as it was before such objects were looked up. *object_lo: see
 * find_step. */
static bool find_step_unmapped(knit_unwinder *u, uint64_t lookup, uint64_t pc, bool innermost,
                               knit_recipe *recipe, uint64_t *func, uint64_t *object_lo)
{
  uint64_t unloads, hi, fstart, fend;
  if (!u->unloads || u->read != knit_read_own_memory)
    return false;
  if (!u->unloads(&unloads)) {
    /* The frame stays a raw address of no noted object: say so, so that
     * no file takes another object found there later for its own. */
    knit_object_lookup_unnoted();
    return false;
  }
  bool bounded = knit_object_lookup(lookup, object_lo, &hi, &fstart, &fend);
  /* Noted even without bounds: the frame is recorded by its address all
   * the same (core/late_names.h). */
  if (*object_lo)
    knit_object_lookup_used(*object_lo, hi, unloads);
  if (!bounded)
    return false;
  *func = fstart;
  const knit_recipe *r = knit_recipe_cache_get_unmapped(&u->decoder, u->scratch, unloads, fstart,
                                                        fend, pc, &u->recipes_built);
  if (r) {
    *recipe = *r;
    return true;
  }
  if (innermost && u->decoder.isa) {
    *recipe = u->decoder.isa->entry_recipe;
    recipe->flags |= KNIT_RECIPE_GUESSED;
    return true;
  }
  return false;
}

/* What the step at one pc needs, found the slow way: module, function,
 * recipe. Returns false when the pc's code cannot be placed (the walk is
 * then partial). *root says the function is one where stacks begin. When
 * the pc is in no module of the map but in an object loaded since,
 * *module is NULL and *object_lo the start of that object's mapping (0
 * otherwise). */
static bool find_step(knit_unwinder *u, const knit_loadmap *map, uint64_t pc, bool innermost,
                      const knit_module **module, knit_recipe *recipe, bool *root, bool *cacheable,
                      uint64_t *func, uint64_t *object_lo)
{
  /* A return address belongs to the call before it: look the function up
   * by the byte before, so a call at a function's very end still counts as
   * that function's. */
  uint64_t lookup = innermost ? pc : pc - 1;
  const knit_module *m = knit_loadmap_find(map, lookup);
  *module = m;
  *root = false;
  *cacheable = false;
  *object_lo = 0;
  if (!m)
    return find_step_unmapped(u, lookup, pc, innermost, recipe, func, object_lo);
  const knit_recipe *r = NULL;
  uint64_t fstart, fend;
  if (knit_bounds_lookup(&m->funcs, lookup - m->base, &fstart, &fend)) {
    fstart += m->base;
    fend += m->base;
    *func = fstart;
    if (is_root(m, fstart)) {
      *root = true;
      *cacheable = true;
      return true;
    }
    r = knit_recipe_cache_get_in(&u->decoder, u->scratch, m->id, &m->funcs, m->base, fstart, fend,
                                 pc, &u->recipes_built);
    *cacheable = r != NULL;
  }
  /* Without bounds or recipes, only the innermost frame has a safe guess:
   * it may be at a function's first instruction (just called). */
  if (!r && innermost && u->decoder.isa) {
    *recipe = u->decoder.isa->entry_recipe;
    recipe->flags |= KNIT_RECIPE_GUESSED;
    return true;
  }
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

/* --- signal frames --- */
/* Signal trampolines live in the C library (x86-64's __restore_rt), in the
 * vdso (aarch64's and ppc64le's, natively), or in an anonymous page
 * (QEMU's): only there is the code worth reading. */
static bool may_hold_trampoline(const knit_module *m)
{
  if (!m || m->funcs.count == 0)
    return true;
  const char *base = m->path;
  for (const char *c = m->path; *c; c++)
    if (*c == '/')
      base = c + 1;
  return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0 ||
         strncmp(base, "linux-vdso", 10) == 0 || strncmp(base, "linux-gate", 10) == 0;
}

/* Steps through a signal trampoline at regs->pc into the registers the
 * signal interrupted; false when the pc is no trampoline. Tried only when
 * the step cache missed: a trampoline's step is never cached, so a hit
 * means ordinary code. */
static bool signal_step(knit_unwinder *u, const knit_loadmap *map, const knit_regs *regs,
                        const knit_module **module, knit_regs *interrupted)
{
  const knit_isa_ops *isa = u->decoder.isa;
  if (!isa || !isa->sigreturn_step)
    return false;
  *module = knit_loadmap_find(map, regs->pc);
  if (!may_hold_trampoline(*module))
    return false;
  return isa->sigreturn_step(regs->pc, u->read, u->read_ctx, regs, interrupted);
}
/* --- end of signal frames --- */

/* --- step classes --- */
/* The class bits (KNIT_FRAME_STEP_*) of the step from frames[i-1] into
 * frame i (step_class.h), whose pc ends the call described by call and
 * target. Called on both paths of the walk (cache hit and miss) with the
 * entry's fields directly: holding them in a struct across the paths made
 * the compiler spill the walk's registers (bench_unwind_cost). */
static inline uint32_t classify_step(unsigned slack, knit_frame *frames, int i, bool innermost,
                                     uint64_t callee_func, uint8_t call, uint64_t target)
{
  unsigned cls;
  if (i == 0)
    return 0;
  if (__builtin_expect(!innermost, 1)) {
    cls = knit_step_classify(callee_func, slack, call, target);
  } else {
    /* Frame i is the code a signal interrupted, frames[i-1] the trampoline:
     * the trampoline's step read the kernel's saved registers, which are
     * exact. The step into the trampoline follows no call (the kernel made
     * the handler return there), but the trampoline was recognized by its
     * code, so it is probable rather than wrong. */
    cls = KNIT_STEP_CONFIRMED;
    if (i >= 2 && !(frames[i - 1].flags & KNIT_FRAME_STEP_MASK))
      frames[i - 1].flags |= (uint32_t)KNIT_STEP_PROBABLE << KNIT_FRAME_STEP_SHIFT;
  }
  return (uint32_t)cls << KNIT_FRAME_STEP_SHIFT;
}
/* --- end of step classes --- */

/* How far past a function's start a direct call may enter it (ppc64le's
 * local entry point). */
static inline unsigned entry_slack(const knit_unwinder *u)
{
  return u->decoder.isa ? u->decoder.isa->call_entry_slack : 0;
}

/* What the walk needs of a step that missed the cache, found the slow way:
 * a signal trampoline, or the module, function and recipe (and the facts
 * step classes need), which then go into the cache. Kept out of line so
 * that the loop over cached steps stays small enough for its values to live
 * in registers. */
typedef struct slow_step {
  bool signal; /* the pc is a signal trampoline: see interrupted */
  knit_regs interrupted;
  bool found, root;
  uint32_t module_id;
  uint64_t base;
  knit_recipe recipe;
  uint32_t step_bits;
  uint64_t func; /* the frame's function start, 0 if unknown */
} slow_step;

__attribute__((noinline)) static void resolve_step(knit_unwinder *u, const knit_loadmap *map,
                                                   knit_frame *frames, int i, const knit_regs *cur,
                                                   bool innermost, uint64_t callee_func,
                                                   knit_step_cache_entry *e, uint64_t key,
                                                   slow_step *out)
{
  memset(out, 0, sizeof *out);
  out->module_id = KNIT_MODULE_UNKNOWN;
  const knit_module *m;
  if (signal_step(u, map, cur, &m, &out->interrupted)) {
    out->signal = true;
    if (m) {
      out->module_id = m->id;
      out->base = m->base;
    }
    return;
  }
  bool cacheable;
  uint64_t object_lo;
  knit_step_facts facts = {0, 0, KNIT_CALL_NONE}; /* step classes */
  out->found = find_step(u, map, cur->pc, innermost, &m, &out->recipe, &out->root, &cacheable,
                         &facts.func, &object_lo);
  if (m) {
    out->module_id = m->id;
    out->base = m->base;
    /* step classes: a return address is checked against its call */
    if (!innermost && u->decoder.isa)
      knit_step_read_call(u->decoder.isa, u->read, u->read_ctx, m, cur->pc, &facts);
  } else if (out->found && !innermost && u->decoder.isa) {
    /* step classes: the same check in an object the map does not know,
     * through a module that stands for it (no PLT span: a call to one of
     * its stubs counts as a direct call to another function, probable). */
    knit_module stand_in;
    memset(&stand_in, 0, sizeof stand_in);
    stand_in.id = KNIT_MODULE_UNKNOWN;
    stand_in.text_lo = object_lo;
    knit_step_read_call(u->decoder.isa, u->read, u->read_ctx, &stand_in, cur->pc, &facts);
  }
  const knit_recipe *r = &out->recipe;
  uint64_t func_delta = facts.func ? cur->pc - facts.func : UINT32_MAX;
  uint64_t call_delta = facts.call == KNIT_CALL_DIRECT ? facts.target - cur->pc : 0;
  /* A frame of an object the map does not know is never cached (cacheable
   * is false): the step cache keys a module id. */
  cacheable = cacheable && r->ra_offset == (int16_t)r->ra_offset &&
              r->fp_offset == (int16_t)r->fp_offset && r->ra_rule < 4 && r->fp_rule < 4 &&
              cur->pc - out->base <= UINT32_MAX && (int64_t)call_delta == (int32_t)call_delta;
  out->step_bits =
      classify_step(entry_slack(u), frames, i, innermost, callee_func, facts.call, facts.target);
  out->func = facts.func;
  if (e && out->found && cacheable) {
    e->key = key;
    e->offset = (uint32_t)(cur->pc - out->base);
    e->func_delta = func_delta < UINT32_MAX ? (uint32_t)func_delta : UINT32_MAX;
    e->call_delta = (int32_t)call_delta;
    e->call = facts.call & 3;
    e->module = (uint16_t)(out->module_id + 1);
    e->root = out->root;
    e->uncertain = (r->flags & KNIT_RECIPE_UNCERTAIN) != 0;
    e->cfa_base = r->cfa_base;
    e->ra_rule = r->ra_rule;
    e->fp_rule = r->fp_rule;
    e->cfa_offset = r->cfa_offset;
    e->ra_offset = (int16_t)r->ra_offset;
    e->fp_offset = (int16_t)r->fp_offset;
  }
}

/* --- the walk over cached steps --- */
/* The common case, kept apart so that its few values live in registers:
 * a caller frame (not the innermost, not one a signal interrupted) whose
 * step is in the cache, in ordinary code, read from the process's own
 * memory, far from the caller's limit. It walks such frames from frame i
 * and returns at the first frame that is anything else, without touching
 * it: the general loop below then does that frame, and its state (*regs,
 * *callee_func) is where this walk left it. Every test here only sends a
 * frame to the general loop, which decides it the same way it would have;
 * so the two loops always agree. In a caller frame lr is 0 (a step never
 * recovers it), so a step whose return address is in lr goes there too. */
__attribute__((noinline)) static int walk_cached(const knit_step_cache_entry *cache,
                                                 knit_frame *frames, int i, int max,
                                                 knit_regs *regs, uint64_t *callee_func_io,
                                                 unsigned slack, uint64_t stop_from, bool limit_set,
                                                 volatile int *progress)
{
  uint64_t pc = regs->pc, sp = regs->sp, fp = regs->fp;
  uint64_t callee_func = *callee_func_io;
  for (; i < max; i++) {
    const knit_step_cache_entry *e = &cache[(pc ^ pc >> 10) % KNIT_STEP_CACHE_SIZE];
    if (e->key != pc || !e->module || e->root || e->ra_rule != KNIT_RA_AT_CFA ||
        (limit_set && e->uncertain))
      break;
    uint64_t cfa;
    if (e->cfa_base == KNIT_CFA_SP) {
      cfa = sp + (uint64_t)(int64_t)e->cfa_offset;
    } else if (e->cfa_base == KNIT_CFA_FP) {
      cfa = fp + (uint64_t)(int64_t)e->cfa_offset;
    } else if (e->cfa_base == KNIT_CFA_SP_DEREF) {
      if (!knit_read_word_(knit_read_own_memory, NULL, sp, &cfa))
        break;
      cfa += (uint64_t)(int64_t)e->cfa_offset;
    } else {
      /* KNIT_CFA_FP_DEREF: the CFA saved in a realigned frame. */
      if (e->cfa_base != KNIT_CFA_FP_DEREF ||
          !knit_read_word_(knit_read_own_memory, NULL, fp + (uint64_t)(int64_t)e->cfa_offset, &cfa))
        break;
    }
    uint64_t ra, caller_fp = fp;
    /* knit_recipe_apply's step, written out on the entry's fields: calling
     * it on a recipe built from them measured 0.93-1.13 against
     * libunwind, this 0.80-0.89 (bench_unwind_cost). test_unwind_walk holds
     * the two to the same frames. The caller's frame lies above; a 0 return
     * address ends the stack (the general loop says so). */
    if (cfa <= sp || cfa >= stop_from ||
        !knit_read_word_(knit_read_own_memory, NULL, cfa + (uint64_t)(int64_t)e->ra_offset, &ra) ||
        ra == 0)
      break;
    if (e->fp_rule != KNIT_FP_SAME &&
        !knit_read_word_(knit_read_own_memory, NULL,
                         (e->fp_rule == KNIT_FP_AT_FP ? fp : cfa) + (uint64_t)(int64_t)e->fp_offset,
                         &caller_fp))
      break;
    knit_frame *f = &frames[i];
    f->pc = pc;
    f->cfa = cfa;
    f->module = e->module - 1u;
    f->flags = (uint32_t)knit_step_classify(callee_func, slack, e->call,
                                            pc + (uint64_t)(int64_t)e->call_delta)
               << KNIT_FRAME_STEP_SHIFT; /* step classes */
    f->offset = e->offset;
    *progress = i + 1;
    callee_func = pc - e->func_delta;
    pc = ra;
    sp = cfa;
    fp = caller_fp;
  }
  regs->pc = pc;
  regs->sp = sp;
  regs->fp = fp;
  regs->lr = 0;
  *callee_func_io = callee_func;
  return i;
}
/* --- end of the walk over cached steps --- */

/* The rare end of a frame, out of line: its step failed, or its CFA
 * reached the limit the caller set, or its recipe is a guess while a limit
 * is set. Says whether the walk ends at frame f, and how.
 *
 * The limit (a task's exit frame): the frame whose CFA reaches it is the
 * runtime function that called the task, and what lies beyond is the
 * runtime's. Stopping there saves the walk through it, and never steps out
 * of runtime code whose frame recipes cannot describe (a trampoline that
 * keeps its frame base in a callee-saved register). The runtime function
 * may also move its stack pointer by amounts no recipe knows (libomp's
 * __kmp_invoke_microtask on aarch64 does, for the outlined body's stack
 * arguments), and then its computed CFA cannot be trusted. A frame-pointer
 * limit lies within that function's frame, above its stack pointer: a frame
 * of the runtime whose recipe is a guess and whose stack pointer is at or
 * below the limit is taken to be it. Frames of other modules never end the
 * walk this way. */
__attribute__((noinline)) static bool
walk_ends_here(const knit_recipe *recipe, const knit_regs *cur, knit_read_word_fn read,
               void *read_ctx, uint64_t stop_at, bool stop_is_cfa, bool in_stop_module,
               knit_step_result step, uint64_t step_cfa, knit_frame *f, knit_unwind_end *end)
{
  if (stop_at) {
    uint64_t frame_cfa = 0;
    bool have_cfa = step == KNIT_STEP_OK
                        ? (frame_cfa = step_cfa, true)
                        : knit_recipe_cfa_(recipe, cur, read, read_ctx, &frame_cfa);
    bool reached = (have_cfa && (frame_cfa > stop_at || (stop_is_cfa && frame_cfa == stop_at))) ||
                   (!stop_is_cfa && in_stop_module && (recipe->flags & KNIT_RECIPE_UNCERTAIN) &&
                    cur->sp <= stop_at);
    if (reached) {
      f->flags |= KNIT_FRAME_AT_LIMIT;
      f->cfa = have_cfa ? frame_cfa : UINT64_MAX;
      *end = KNIT_UNWIND_COMPLETE;
      return true;
    }
  }
  if (step != KNIT_STEP_OK) {
    /* A 0 return address ends the stack by the ABIs' convention, but not
     * when a guessed recipe read it: code of no known function (the vdso
     * before its bounds were read) read a cleared frame pointer there, and
     * the sample counted as whole. */
    bool ended = step == KNIT_STEP_END && !(recipe->flags & KNIT_RECIPE_GUESSED);
    *end = ended ? KNIT_UNWIND_COMPLETE : KNIT_UNWIND_PARTIAL;
    return true;
  }
  return false;
}

int knit_unwind(knit_unwinder *u, const knit_regs *regs, knit_frame *frames, int max,
                knit_unwind_end *end)
{
  const knit_loadmap *map = knit_loadmap_current();
  if (u->cache && u->cache_map != map) {
    memset(u->cache, 0, KNIT_STEP_CACHE_SIZE * sizeof *u->cache);
    u->cache_map = map;
  }
  /* The unwinder's fields, read once: the frames written below are made of
   * the same integer types, so the compiler could not otherwise keep them
   * in registers across the stores. */
  knit_step_cache_entry *const cache = u->cache;
  const uint64_t stop_at = u->stop_at;
  const bool stop_is_cfa = u->stop_is_cfa;
  const uint32_t stop_module = u->stop_module;
  const knit_read_word_fn read = u->read;
  void *const read_ctx = u->read_ctx;
  const unsigned slack = entry_slack(u);
  /* A frame whose CFA is at or above this has reached the limit. */
  const uint64_t stop_from = !stop_at ? UINT64_MAX : stop_is_cfa ? stop_at : stop_at + 1;
  knit_regs cur = *regs;
  *end = KNIT_UNWIND_TRUNCATED;
  u->progress = 0;
  /* The pc of the innermost frame, and of a frame a signal interrupted, is
   * exact: it is looked up as it is, not as a return address. */
  bool innermost = true;
  uint32_t next_flags = 0;
  uint64_t callee_func = 0; /* step classes: the previous frame's function */
  /* The walk over cached steps reads memory directly: only where the
   * caller reads its own memory (under the sample handler's guard). */
  const bool fast = cache && read == knit_read_own_memory;
  for (int i = 0; i < max; i++) {
    if (fast && !innermost) {
      i = walk_cached(cache, frames, i, max, &cur, &callee_func, slack, stop_from, stop_at != 0,
                      &u->progress);
      if (i >= max)
        break;
    }
    uint64_t key = cur.pc ^ (innermost ? 1ull : 0);
    knit_step_cache_entry *e = cache ? &cache[(key ^ key >> 10) % KNIT_STEP_CACHE_SIZE] : NULL;
    uint32_t module_id = KNIT_MODULE_UNKNOWN;
    uint64_t base = 0;
    /* Only the rule fields are read below; both paths fill them all. */
    knit_recipe recipe;
    uint32_t step_bits; /* step classes */
    bool root, found;
    if (e && e->key == key && e->module) {
      module_id = e->module - 1u;
      base = cur.pc - e->offset;
      /* step classes; an unknown function (func_delta UINT32_MAX) gives an
       * address 4 GiB below pc, which no call targets: no test needed. */
      step_bits = classify_step(slack, frames, i, innermost, callee_func, e->call,
                                cur.pc + (uint64_t)(int64_t)e->call_delta);
      callee_func = cur.pc - e->func_delta;
      recipe.cfa_base = e->cfa_base;
      recipe.ra_rule = e->ra_rule;
      recipe.fp_rule = e->fp_rule;
      recipe.cfa_offset = e->cfa_offset;
      recipe.ra_offset = e->ra_offset;
      recipe.fp_offset = e->fp_offset;
      root = e->root;
      recipe.flags = e->uncertain ? KNIT_RECIPE_UNCERTAIN : 0;
      found = true;
    } else {
      slow_step out;
      /* A copy: were cur's address taken, cur would live in memory for the
       * whole loop, and every frame would store and reload it. */
      const knit_regs here = cur;
      resolve_step(u, map, frames, i, &here, innermost, callee_func, e, key, &out);
      if (out.signal) {
        knit_frame *f = &frames[i];
        f->pc = cur.pc;
        f->module = out.module_id;
        f->flags = KNIT_FRAME_SIGNAL | next_flags;
        f->offset = out.module_id != KNIT_MODULE_UNKNOWN ? cur.pc - out.base : cur.pc;
        /* The trampoline's frame ends where the interrupted code's stack
         * is. No check that sp grew: a handler on an alternate signal
         * stack may lie above the interrupted code's stack; a loop ends
         * at max frames. */
        f->cfa = out.interrupted.sp;
        u->progress = i + 1;
        cur = out.interrupted;
        innermost = true;
        next_flags = KNIT_FRAME_INTERRUPTED;
        continue;
      }
      module_id = out.module_id;
      base = out.base;
      recipe = out.recipe;
      root = out.root;
      found = out.found;
      step_bits = out.step_bits;
      callee_func = out.func;
    }

    knit_frame *f = &frames[i];
    f->pc = cur.pc;
    f->cfa = UINT64_MAX;
    f->module = module_id;
    f->flags = next_flags | step_bits; /* step_bits: step classes */
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

    /* The step is applied before the limit below is tested: in a walk
     * without a limit (or far from it) the test then costs one compare of
     * the CFA the step computed anyway, against a bound that is UINT64_MAX
     * when there is no limit. Testing first, with the CFA computed twice,
     * cost the loop about 3 ns a frame in register spills
     * (bench_unwind_cost). */
    knit_regs caller = {0, 0, 0, 0};
    uint64_t cfa = UINT64_MAX;
    knit_step_result step = knit_recipe_apply(&recipe, &cur, read, read_ctx, &caller, &cfa);
    if (__builtin_expect(step != KNIT_STEP_OK || cfa >= stop_from ||
                             (stop_at && (recipe.flags & KNIT_RECIPE_UNCERTAIN)),
                         0)) {
      const knit_regs here = cur; /* a copy: see resolve_step's call */
      if (walk_ends_here(&recipe, &here, read, read_ctx, stop_at, stop_is_cfa,
                         module_id == stop_module, step, cfa, f, end))
        return i + 1;
    }
    f->cfa = cfa;
    /* Field by field: a whole-struct copy is compiled to 16-byte loads of
     * what the step just wrote as 8-byte stores, which the processor cannot
     * forward (a stall on every frame). */
    cur.pc = caller.pc;
    cur.sp = caller.sp;
    cur.fp = caller.fp;
    cur.lr = caller.lr;
    innermost = false;
    next_flags = 0;
  }
  return max;
}

knit_rule_kind knit_unwind_rule(knit_unwinder *u, const knit_loadmap *map, uint64_t pc,
                                bool innermost, knit_recipe *rule)
{
  memset(rule, 0, sizeof *rule);
  uint64_t key = pc ^ (innermost ? 1ull : 0);
  const knit_step_cache_entry *e =
      u->cache && u->cache_map == map ? &u->cache[(key ^ key >> 10) % KNIT_STEP_CACHE_SIZE] : NULL;
  if (e && e->key == key && e->module) {
    if (e->root)
      return KNIT_RULE_ROOT;
    rule->cfa_base = e->cfa_base;
    rule->ra_rule = e->ra_rule;
    rule->fp_rule = e->fp_rule;
    rule->cfa_offset = e->cfa_offset;
    rule->ra_offset = e->ra_offset;
    rule->fp_offset = e->fp_offset;
    rule->flags = e->uncertain ? KNIT_RECIPE_UNCERTAIN : 0;
    return KNIT_RULE_STEP;
  }
  const knit_module *m;
  bool root, cacheable;
  uint64_t func = 0, object_lo;
  if (!find_step(u, map, pc, innermost, &m, rule, &root, &cacheable, &func, &object_lo))
    return KNIT_RULE_NONE;
  return root ? KNIT_RULE_ROOT : KNIT_RULE_STEP;
}
