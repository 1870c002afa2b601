/* The aarch64 recipe analyzer.
 *
 * It decodes one function linearly with Capstone and tracks, before every
 * instruction, how far sp is below the CFA, whether x29 holds the address of
 * this function's frame record, and where the return address (x30) and the
 * caller's x29 are: still in their registers, or saved at CFA+n. A bl leaves
 * the return address in x30 rather than on the stack, so at a function's
 * entry the CFA is sp+0 and the return address is in LR; it moves to memory
 * when the prologue stores x30 (stp x29, x30, [sp, #-n]!, or str x30, or
 * PLT0's stp x16, x30). Equal states of adjacent instructions become one
 * recipe interval.
 *
 * Control flow is followed by the ISA-neutral driver (unwind/analyze.h),
 * through the hooks below: after the end of a path (ret, b out of the
 * function or back, br, brk) decoding resumes with the state recorded for
 * that address, which on a later pass includes blocks entered only by a
 * backward branch (clang places a retry loop after the tail call that ends
 * the function), or else with the canonical state. States so guessed are
 * marked and give way to followed ones, also where a guess falls through
 * into a block a branch enters; a followed state carries all the model
 * knows, x29's relation to sp included. nops after a path end are
 * alignment padding and keep the path ended, unless a branch enters there.
 * At every ret the state is known outright (CFA = sp, return address in
 * LR, x29 restored). Bytes that do not decode are covered a word at a time
 * by flagged guesses.
 *
 * Which register the CFA is computed from follows gcc's CFI, which the unit
 * test audits at every instruction: gcc sets up x29 as a frame record in
 * most functions but keeps the CFA on sp, and switches it to x29 (at the
 * mov x29, sp) only when the function needs its frame pointer: sp moves
 * by amounts it cannot describe (alloca, VLAs) and is restored from x29,
 * or locals are addressed through x29 (setjmp, __builtin_frame_address).
 * A linear pass sees that only after the fact, so such a function is
 * analyzed a second time with the CFA on x29. The CFA returns to sp where
 * gcc's epilogue puts it back: at mov sp, x29 when the frame record was
 * stored apart from the allocation, else at the pop of x29.
 *
 * Where gcc's CFI and the machine state allow two right answers, the recipe
 * follows the CFI so that the audit measures real errors: x29 and x30
 * reloaded in an epilogue count as restored only once sp has moved past
 * their slots (or, for a frame record at [sp] reloaded last, at the add
 * that frees the frame). After a call whose fall-through gives another
 * recipe than a branch to the next instruction, the branch's state wins:
 * the callee does not return (bl __chk_fail closing a block; the driver's
 * KNIT_CALLS_SEQUENCE).
 *
 * Stack adjustments by a register (mov x12, #0x1030; add sp, sp, x12, as
 * gcc emits for large frames) are followed through a small table of
 * registers known to hold constants. Pointer authentication (paciasp,
 * autiasp) and BTI landing pads decode as hints and change nothing here;
 * stripping a signed return address is the caller's business.
 *
 * Not modeled: code entered by a jump rather than a call (parts of a
 * function split off by the compiler, _start, the signal trampoline), the
 * return address moved to another register (mov x9, x30), stack switches,
 * and anything else the model (aarch64_analyze_insn.c) does not list:
 * such writes of sp or of an unsaved x30 make the recipe
 * KNIT_RECIPE_UNCERTAIN.
 */
#include <stdbool.h>
#include <string.h>

#include "unwind/aarch64/aarch64_analyze_internal.h"

static bool shrinks(const void *b, const void *a)
{
  const frame_state *before = b, *after = a;
  return (before->sp_known && after->sp_known && after->sp_depth < before->sp_depth) ||
         (before->fp_saved && !after->fp_saved) || (before->ra_saved && !after->ra_saved) ||
         (before->cfa_on_fp && !after->cfa_on_fp);
}

static bool grows(const void *b, const void *a)
{
  const frame_state *before = b, *after = a;
  return (before->sp_known && after->sp_known && after->sp_depth > before->sp_depth) ||
         (after->fp_saved && !before->fp_saved) || (after->ra_saved && !before->ra_saved) ||
         (after->cfa_on_fp && !before->cfa_on_fp);
}

/* Equal as far as recipes and the model go (the guessed mark aside);
 * fields that are not valid are not compared. */
static bool same_state(const void *a, const void *b)
{
  const frame_state *x = a, *y = b;
  return x->sp_known == y->sp_known && (!x->sp_known || x->sp_depth == y->sp_depth) &&
         x->fp_is_frame == y->fp_is_frame && (!x->fp_is_frame || x->fp_depth == y->fp_depth) &&
         x->fp_saved == y->fp_saved && (!x->fp_saved || x->fp_slot == y->fp_slot) &&
         x->ra_saved == y->ra_saved && (!x->ra_saved || x->ra_slot == y->ra_slot) &&
         x->fp_reloaded == y->fp_reloaded && x->ra_reloaded == y->ra_reloaded &&
         x->record_pushed == y->record_pushed && x->restore_soon == y->restore_soon &&
         x->cfa_on_fp == y->cfa_on_fp && x->uncertain == y->uncertain;
}

static bool is_guessed(const void *s)
{
  return ((const frame_state *)s)->guessed;
}

static void mark_guessed(void *s)
{
  ((frame_state *)s)->guessed = true;
}

/* A followed state beats a guessed one. */
static int state_rank(const void *s)
{
  return is_guessed(s) ? 0 : 1;
}

static void recipe_from_state(const void *state, knit_recipe *r)
{
  const frame_state *s = state;
  memset(r, 0, sizeof *r);
  if (s->cfa_on_fp) {
    r->cfa_base = KNIT_CFA_FP;
    r->cfa_offset = s->fp_depth;
  } else {
    /* With sp lost this is the last known offset: a guess, so flagged. */
    r->cfa_base = KNIT_CFA_SP;
    r->cfa_offset = s->sp_depth;
  }
  if (s->ra_saved) {
    r->ra_rule = KNIT_RA_AT_CFA;
    r->ra_offset = s->ra_slot;
  } else {
    r->ra_rule = KNIT_RA_IN_LR;
  }
  if (s->fp_saved) {
    r->fp_rule = KNIT_FP_AT_CFA;
    r->fp_offset = s->fp_slot;
  } else {
    r->fp_rule = KNIT_FP_SAME;
  }
  bool guess = s->uncertain || (!s->cfa_on_fp && !s->sp_known);
  r->flags = guess ? KNIT_RECIPE_UNCERTAIN : 0;
  /* Both registers known below the CFA: x29 - sp is their difference. The
   * audit needs it to accept clang's CFI, which keeps the CFA on x29 where
   * this recipe (following gcc) keeps it on sp. */
  if (s->fp_is_frame && s->sp_known) {
    r->flags |= KNIT_RECIPE_FP_KNOWN;
    r->fp_sp_delta = s->sp_depth - s->fp_depth;
  }
}

/* The fall-through of a call gives another recipe than a branch here: the
 * callee does not return (bl __chk_fail at the end of a block) and the
 * branch's state is the one that holds. */
static bool call_conflict(const void *known, const void *fell)
{
  knit_recipe rk, rf;
  recipe_from_state(known, &rk);
  recipe_from_state(fell, &rf);
  return !knit_recipe_same_rule(&rk, &rf);
}

/* When the frame record at [sp] is reloaded last before the frame is
 * freed (ldp x29, x30, [sp]; add sp, sp, #n), gcc's CFI restores x29 and
 * x30 at the load; when other reloads follow, at the add, as for every
 * reload whose slot is not at [sp]. Both are right (the slot holds the
 * value until then); the audit measures against gcc's. */
static void prepare(knit_analysis *an, void *state, const void *rec)
{
  (void)an;
  frame_state *cur = state;
  const a64_record *d = rec;
  if (!cur->restore_soon)
    return;
  if (d->stack_load) {
    cur->restore_soon = false;
  } else if (d->frees_stack) {
    cur->restore_soon = false;
    knit_aarch64_complete_restores(cur);
  }
}

/* Constants are known along one path, and from the start of a pass; any
 * pass of a run may find that x29 is needed. */
static void begin_pass(knit_analysis *an, int pass)
{
  a64_model *m = an->model;
  m->const_known = 0;
  if (pass == 0)
    m->wants_fp = false;
}

static void join(knit_analysis *an)
{
  ((a64_model *)an->model)->const_known = 0;
}

/* sp moves by amounts only x29 can undo: as in gcc's CFI, the CFA is on
 * x29 from the frame set-up on, which a linear pass sees only after the
 * fact: the function is analyzed again. */
static bool run_again(knit_analysis *an)
{
  a64_model *m = an->model;
  if (m->cfa_from_fp || !m->wants_fp)
    return false;
  m->cfa_from_fp = true;
  return true;
}

static const knit_analyzer analyzer = {
    .state_size = sizeof(frame_state),
    .insn_size = sizeof(a64_record),
    .undecoded_skip = 4,
    .entry_state = &entry_state,
    .targets_work = TARGETS_MAX,
    .targets_stack = TARGETS_MAX,
    .call_policy = KNIT_CALLS_SEQUENCE,
    .target_padding_is_code = true,
    .classify = knit_aarch64_classify,
    .apply = knit_aarch64_apply,
    .prepare = prepare,
    .begin_pass = begin_pass,
    .join = join,
    .run_again = run_again,
    .recipe = recipe_from_state,
    .same = same_state,
    .rank = state_rank,
    .guessed = is_guessed,
    .mark_guessed = mark_guessed,
    .grows = grows,
    .shrinks = shrinks,
    .call_conflict = call_conflict,
};

KNIT_ANALYZER_FITS(frame_state, a64_record, TARGETS_MAX, TARGETS_MAX);

int knit_aarch64_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code, size_t len,
                         uint64_t addr, knit_recipe *out, int max, knit_analyze_work *work)
{
  a64_model m = {.cfa_from_fp = false};
  return knit_analyze_function(&analyzer, &m, cs_handle, insn_buf, code, len, addr, NULL, 0, 0,
                               NULL, out, max, work);
}
