/* What a finished walk depended on: see walk_deps.h.
 *
 * The walk is done again here, step by step, by the rules knit_unwind
 * applies (knit_recipe_apply and the end tests of its loop), from the rule
 * each frame's pc gets under the same map. Each step's reads are the walk's
 * reads: the same addresses, worked out from the same values, and memory
 * that has not changed since (nothing has run on these frames in between).
 * Where this walk and the real one part (a frame's pc or CFA differs, or
 * one ends before the other), the walk is not described, so a description
 * never claims a walk it does not reproduce. */
#include "unwind/walk_deps.h"

#include <string.h>

#include "measure/format.h"

/* The words knit_read_word_ refuses without reading: the walk's step then
 * failed there, and it ended. */
static bool readable(uint64_t addr)
{
  return addr != 0 && (addr & 7) == 0;
}

static uint64_t read_word(uint64_t addr)
{
  return *(const volatile uint64_t *)(uintptr_t)addr;
}

static bool keep(knit_walk_deps *out, uint64_t addr, uint64_t value)
{
  if (out->count >= KNIT_WALK_DEPS_WORDS)
    return false;
  out->words[out->count].addr = addr;
  out->words[out->count].value = value;
  out->count++;
  return true;
}

/* Where the frame-pointer value the next step sees came from: the starting
 * register, or a saved word read by an earlier step. Such a word is kept
 * only once a rule uses the value (a CFA computed from it, a word read
 * through it); until then it is held here, and dropped when a later step
 * replaces it unused. */
typedef struct fp_source {
  bool from_word, word_kept;
  knit_walk_word word;
} fp_source;

/* A rule uses the frame-pointer value: the walk depends on it. */
static bool use_fp(knit_walk_deps *out, fp_source *src)
{
  if (!src->from_word) {
    out->needs_fp = true;
    return true;
  }
  if (src->word_kept)
    return true;
  src->word_kept = true;
  return keep(out, src->word.addr, src->word.value);
}

bool knit_walk_deps_of(knit_unwinder *u, const knit_loadmap *map, const knit_regs *regs,
                       const knit_frame *frames, int n, knit_unwind_end end, knit_walk_deps *out)
{
  out->needs_fp = false;
  out->needs_lr = false;
  out->count = 0;
  /* A partial walk ended on something that may not last: code of a library
   * loaded since the map was built, a recipe that could not be built. */
  if (n < 1 || end == KNIT_UNWIND_PARTIAL)
    return false;
  knit_regs cur = *regs;
  fp_source fp_src = {false, false, {0, 0}};
  for (int i = 0; i < n; i++) {
    const knit_frame *f = &frames[i];
    bool last = i == n - 1;
    /* A frame of an object the map does not know yet depends on more than
     * the map: its recipe was not kept (unwind/object_lookup.h). */
    if ((f->flags & (KNIT_FRAME_SIGNAL | KNIT_FRAME_INTERRUPTED)) || f->pc != cur.pc ||
        f->module == KNIT_MODULE_UNKNOWN)
      return false;
    knit_recipe r;
    knit_rule_kind kind = knit_unwind_rule(u, map, cur.pc, i == 0, &r);
    if (kind == KNIT_RULE_NONE)
      return false;
    if (kind == KNIT_RULE_ROOT)
      return last && end == KNIT_UNWIND_COMPLETE && !(f->flags & KNIT_FRAME_AT_LIMIT);

    /* The CFA, as knit_recipe_cfa_ computes it. */
    uint64_t base;
    if (r.cfa_base == KNIT_CFA_SP) {
      base = cur.sp;
    } else if (r.cfa_base == KNIT_CFA_FP) {
      base = cur.fp;
      if (!use_fp(out, &fp_src))
        return false;
    } else if (r.cfa_base == KNIT_CFA_SP_DEREF) {
      if (!readable(cur.sp))
        return last && (f->flags & KNIT_FRAME_AT_LIMIT); /* the step failed here */
      base = read_word(cur.sp);
      if (!keep(out, cur.sp, base))
        return false;
    } else if (r.cfa_base == KNIT_CFA_FP_DEREF) {
      if (!use_fp(out, &fp_src))
        return false;
      uint64_t at = cur.fp + (uint64_t)(int64_t)r.cfa_offset;
      if (!readable(at))
        return last && (f->flags & KNIT_FRAME_AT_LIMIT);
      base = read_word(at);
      if (!keep(out, at, base))
        return false;
    } else {
      return false;
    }
    uint64_t cfa = r.cfa_base == KNIT_CFA_FP_DEREF ? base : base + (uint64_t)(int64_t)r.cfa_offset;

    /* The return address, then the caller's frame pointer, as
     * knit_recipe_apply reads them. */
    uint64_t ra;
    if (r.ra_rule == KNIT_RA_IN_LR) {
      ra = cur.lr;
      /* After the first step lr is 0 whatever the registers were. */
      if (i == 0)
        out->needs_lr = true;
    } else {
      uint64_t at = cfa + (uint64_t)(int64_t)r.ra_offset;
      if (!readable(at))
        return last && (f->flags & KNIT_FRAME_AT_LIMIT);
      ra = read_word(at);
      if (!keep(out, at, ra))
        return false;
    }
    uint64_t fp = cur.fp;
    if (r.fp_rule == KNIT_FP_AT_CFA || r.fp_rule == KNIT_FP_AT_FP) {
      if (r.fp_rule == KNIT_FP_AT_FP && !use_fp(out, &fp_src))
        return false;
      uint64_t at = (r.fp_rule == KNIT_FP_AT_FP ? cur.fp : cfa) + (uint64_t)(int64_t)r.fp_offset;
      if (!readable(at))
        return last && (f->flags & KNIT_FRAME_AT_LIMIT);
      fp = read_word(at);
      fp_src = (fp_source){true, false, {at, fp}};
    }
    /* The last frame's step decided how the walk ended, from the values
     * kept so far: a limit reached, no room left for more frames, or a
     * zero return address (the ABIs' end of the stack). Anything else is
     * not what the walk did. */
    if (last)
      return (f->flags & KNIT_FRAME_AT_LIMIT) || end == KNIT_UNWIND_TRUNCATED ||
             (end == KNIT_UNWIND_COMPLETE && ra == 0);
    /* The walk went on: the step must have given the next frame. */
    if (ra != frames[i + 1].pc || (f->cfa != UINT64_MAX && f->cfa != cfa))
      return false;
    cur.pc = ra;
    cur.sp = cfa;
    cur.fp = fp;
    cur.lr = 0;
  }
  return false;
}
