/* Applying and finding unwind recipes. Both functions are pure: they touch
 * the unwound process only through the read callback, so they are safe in a
 * signal handler and testable from recorded register values. */
#include "recipe.h"

/* Computes the CFA of the frame described by r. Returns false when the base
 * is a memory word (ppc64 back chain) that cannot be read. */
static bool compute_cfa(const knit_recipe *r, const knit_regs *callee,
                        knit_read_word_fn read, void *ctx, uint64_t *cfa) {
  uint64_t base;
  switch (r->cfa_base) {
  case KNIT_CFA_SP:
    base = callee->sp;
    break;
  case KNIT_CFA_FP:
    base = callee->fp;
    break;
  case KNIT_CFA_SP_DEREF:
    if (!read(ctx, callee->sp, &base))
      return false;
    break;
  default:
    return false;
  }
  /* Offsets are signed; unsigned wrap-around gives the right sum. */
  *cfa = base + (uint64_t)(int64_t)r->cfa_offset;
  return true;
}

knit_step_result knit_recipe_apply(const knit_recipe *r, const knit_regs *callee,
                                   knit_read_word_fn read, void *ctx,
                                   knit_regs *caller, uint64_t *cfa) {
  uint64_t frame_cfa;
  if (!compute_cfa(r, callee, read, ctx, &frame_cfa))
    return KNIT_STEP_BAD_READ;

  uint64_t ra;
  if (r->ra_rule == KNIT_RA_IN_LR) {
    ra = callee->lr;
  } else if (!read(ctx, frame_cfa + (uint64_t)(int64_t)r->ra_offset, &ra)) {
    return KNIT_STEP_BAD_READ;
  }

  uint64_t fp = callee->fp;
  if (r->fp_rule == KNIT_FP_AT_CFA &&
      !read(ctx, frame_cfa + (uint64_t)(int64_t)r->fp_offset, &fp))
    return KNIT_STEP_BAD_READ;

  /* Stacks grow down, so a caller's frame lies strictly above its callee's.
   * The one exception is a leaf whose return address is still in the link
   * register: it may not have touched the stack at all, so the caller's sp
   * may equal the callee's. The lr of the caller is unknown (0), so a second
   * link-register step from the same sp cannot follow and loop. */
  bool sp_grew = frame_cfa > callee->sp ||
                 (r->ra_rule == KNIT_RA_IN_LR && frame_cfa == callee->sp);
  if (ra == 0)
    return KNIT_STEP_END;
  if (!sp_grew)
    return KNIT_STEP_BAD_FRAME;

  caller->pc = ra;
  caller->sp = frame_cfa;
  caller->fp = fp;
  caller->lr = 0;
  if (cfa)
    *cfa = frame_cfa;
  return KNIT_STEP_OK;
}

const knit_recipe *knit_recipe_find(const knit_recipe *recipes, size_t count,
                                    uint64_t pc) {
  /* Find the last recipe whose start is <= pc, then check its end. */
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (recipes[mid].start <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  const knit_recipe *r = &recipes[lo - 1];
  return pc < r->end ? r : NULL;
}
