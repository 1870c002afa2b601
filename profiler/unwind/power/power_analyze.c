/* The POWER recipe analyzer (ppc64le's ELFv2 and ppc64's ELFv1 alike).
 *
 * It decodes one function linearly with Capstone and tracks, before every
 * instruction, where the CFA is (r1+n, r31+n, or the back chain word at r1
 * plus n), where the return address is (in LR, or saved at CFA+n, normally
 * the LR save doubleword of the caller's frame at CFA+16) and whether the
 * caller's r31 has been saved, and where. Equal states of adjacent
 * instructions become one recipe interval.
 *
 * The ELFv2 prologue is, in some order: the global entry (addis r2,r12;
 * addi r2,r2: the TOC, nothing for the frame), mflr r0, std r0,16(r1),
 * callee-saved stores, stdu r1,-N(r1) (or, for frames beyond 32 KiB,
 * lis/ori r0 then stdux r1,r1,r0) and, with a frame pointer, mr r31,r1.
 * Epilogues undo it with addi r1,r1,N, addi r1,r31,N or ld r1,0(r1), then
 * ld r0,16(r1) and mtlr r0 before blr. Leaf code often has no frame at all:
 * the return address stays in LR and the CFA is r1.
 *
 * Control flow is followed by the ISA-neutral driver (unwind/analyze.h),
 * through the hooks below: after an unconditional end of a path (blr, b,
 * bctr, trap) decoding resumes with the state recorded for that address,
 * which on a later pass includes blocks entered only by a backward branch
 * (gcc's jump tables, placed after their bctr, are read and their cases
 * recorded as the bctr's targets); else, after a jump through a table
 * (bctr with the frame in place), with the state at that bctr; else with
 * the state at the last call made from a frame with LR saved (an exception
 * landing pad's), when the "canonical" state, the one that held after the
 * prologue and before the first epilogue, has LR unsaved (shrink-wrapped
 * code); else with the canonical state. States so guessed are marked and
 * give way to followed ones, also where a guess falls through into a block
 * a branch enters. Alignment nops and the traceback table after a path end
 * keep the path ended (words that do not decode are covered by flagged
 * guesses); at a branch target they are code. Where a branch enters the
 * fall-through of a call (after its nops and TOC restore), the call does
 * not return (abort, __chk_fail, longjmp) and only the branch enters: the
 * driver's KNIT_CALLS_SEQUENCE. At every blr the state is known outright
 * (CFA = r1, return address in LR, r31 restored).
 *
 * Matching gcc's CFI (test_ppc64le_analyze audits the compiler's and libc's
 * code): gcc reports a register save not at the store but when it must,
 * that is, before an instruction that overwrites a saved register (or r0,
 * where LR was copied), before a branch or call, and with the next change of
 * the CFA. Until then the register still holds the caller's value, so both
 * descriptions are right; the analyzer reports saves at the same points,
 * which makes the two comparable instruction by instruction. Restores are
 * reported at once: r31 is the caller's again after its load, LR after
 * mtlr. The CFA moves to r31 at mr r31,r1, as gcc's does when it keeps a
 * frame pointer.
 *
 * Dynamic allocations (alloca, VLAs) store the back chain with stdux: when
 * r31 is not a frame pointer, the CFA is then the word at r1 plus the depth
 * at which that chain was taken (KNIT_CFA_SP_DEREF). A write to r1 that the
 * model cannot follow and no other way to the CFA make the recipe
 * KNIT_RECIPE_UNCERTAIN, as does a return address that is only in a general
 * register (LR overwritten, as in __glink_PLTresolve).

 */
#include <stdbool.h>
#include <string.h>

#include "unwind/power/power_analyze_internal.h"

/* True when the instruction took down part of the frame. */
static bool tears_down(const void *before, const void *after)
{
  const frame_state *b = before, *a = after;
  return (b->sp_known && a->sp_known && a->sp_depth < b->sp_depth) ||
         (b->fp_saved && !a->fp_saved) || (b->ra_saved && !a->ra_saved) ||
         (b->cfa_on_fp && !a->cfa_on_fp) || (!b->lr_has_ra && a->lr_has_ra);
}

static bool builds_up(const void *before, const void *after)
{
  const frame_state *b = before, *a = after;
  return (b->sp_known && a->sp_known && a->sp_depth > b->sp_depth) ||
         (a->fp_saved && !b->fp_saved) || (a->ra_saved && !b->ra_saved) ||
         (a->cfa_on_fp && !b->cfa_on_fp);
}

/* Equal as far as recipes and the model go (the guessed mark aside);
 * fields that are not valid are not compared. */
static bool same_state(const void *a, const void *b)
{
  const frame_state *x = a, *y = b;
  return x->sp_known == y->sp_known && (!x->sp_known || x->sp_depth == y->sp_depth) &&
         x->fp_frame == y->fp_frame && (!x->fp_frame || x->fp_depth == y->fp_depth) &&
         x->chain_known == y->chain_known &&
         (!x->chain_known || x->chain_depth == y->chain_depth) &&
         x->alloc_known == y->alloc_known &&
         (!x->alloc_known ||
          (x->alloc_depth == y->alloc_depth && x->alloc_chain == y->alloc_chain)) &&
         x->ra_saved == y->ra_saved && (!x->ra_saved || x->ra_slot == y->ra_slot) &&
         x->fp_saved == y->fp_saved && (!x->fp_saved || x->fp_slot == y->fp_slot) &&
         x->queued == y->queued && x->ra_reg == y->ra_reg && x->lr_home == y->lr_home &&
         x->cfa_on_fp == y->cfa_on_fp && x->lr_has_ra == y->lr_has_ra &&
         x->ra_pending == y->ra_pending && x->lr_queued == y->lr_queued &&
         x->fp_pending == y->fp_pending && x->r31_caller == y->r31_caller;
}

static bool is_guessed(const void *s)
{
  return ((const frame_state *)s)->guessed;
}

static void mark_guessed(void *s)
{
  ((frame_state *)s)->guessed = 1;
}

/* A followed state beats a guessed one. */
static int state_rank(const void *s)
{
  return is_guessed(s) ? 0 : 1;
}

/* Where a branch joins the fall-through of a call, the frames of both
 * must agree in a correct program; whatever the states, only the branch
 * enters: the call does not return. */
static bool call_conflict(const void *known, const void *fell)
{
  (void)known;
  (void)fell;
  return true;
}

void knit_power_recipe(const void *state, knit_recipe *r)
{
  const frame_state *s = state;
  bool guess = false;
  memset(r, 0, sizeof *r);
  if (s->cfa_on_fp && s->fp_frame) {
    r->cfa_base = KNIT_CFA_FP;
    r->cfa_offset = s->fp_depth;
  } else if (s->sp_known) {
    r->cfa_base = KNIT_CFA_SP;
    r->cfa_offset = s->sp_depth;
  } else if (s->fp_frame) {
    r->cfa_base = KNIT_CFA_FP;
    r->cfa_offset = s->fp_depth;
  } else if (s->chain_known) {
    r->cfa_base = KNIT_CFA_SP_DEREF;
    r->cfa_offset = s->chain_depth;
  } else {
    /* The last known offset: a guess. */
    r->cfa_base = KNIT_CFA_SP;
    r->cfa_offset = s->sp_depth;
    guess = true;
  }
  if (s->ra_saved && (!s->ra_pending || !s->lr_has_ra)) {
    r->ra_rule = KNIT_RA_AT_CFA;
    r->ra_offset = s->ra_slot;
  } else {
    /* In LR; when LR was overwritten and the return address lives only in
     * a general register (or nowhere known), a guess. */
    r->ra_rule = KNIT_RA_IN_LR;
    guess = guess || !s->lr_has_ra;
  }
  if (s->fp_saved && (!s->fp_pending || !s->r31_caller)) {
    r->fp_rule = KNIT_FP_AT_CFA;
    r->fp_offset = s->fp_slot;
  } else {
    r->fp_rule = KNIT_FP_SAME;
    guess = guess || !s->r31_caller;
  }
  r->flags = guess ? KNIT_RECIPE_UNCERTAIN : 0;
  /* Both registers known below the CFA: r31 - r1 is their difference. The
   * audit needs it to accept CFI that computes the CFA from the other one
   * (clang's, from r31 once it is set). */
  if (s->fp_frame && s->sp_known) {
    r->flags |= KNIT_RECIPE_FP_KNOWN;
    r->fp_sp_delta = s->sp_depth - s->fp_depth;
  }
}

/* gcc reports queued saves before a branch and before an instruction that
 * overwrites a register whose save is queued (or LR's copy); the model
 * reports them with the next change of the CFA (knit_power_apply). */
static void prepare(knit_analysis *an, void *state, const void *rec)
{
  (void)an;
  frame_state *cur = state;
  const ppc_record *r = rec;
  uint32_t written = r->written;
  bool lr_home_written =
      cur->lr_queued && cur->lr_home != NO_REG && (written & (1u << cur->lr_home));
  bool lr_written = cur->lr_queued && r->kind == PPC_MTLR;
  if ((cur->queued || cur->lr_queued) &&
      (r->branch.is_branch || (written & cur->queued) || lr_home_written || lr_written ||
       (r->form & PPC_TRAP_FORM)))
    knit_power_publish(cur);
}

/* After a path end, where no branch is recorded: the state at a jump
 * through a table, else the canonical state, else (when that has LR
 * unsaved) the state at the last call made with LR saved. */
static void resume_guess(knit_analysis *an, const void *canonical, void *out)
{
  const ppc_model *m = an->model;
  frame_state *cur = out;
  *cur = m->have_table ? m->table_state : *(const frame_state *)canonical;
  if (!m->have_table && m->have_call && !cur->ra_saved)
    *cur = m->call_state;
}

static void join(knit_analysis *an)
{
  ppc_model *m = an->model;
  memset(m->regs, 0, sizeof m->regs); /* values are known along one path */
}

static void begin_pass(knit_analysis *an, int pass)
{
  (void)pass;
  ppc_model *m = an->model;
  memset(m->regs, 0, sizeof m->regs);
  m->table_state = entry_state;
  m->have_table = false;
  m->call_state = entry_state;
  m->have_call = false;
}

static const knit_analyzer analyzer = {
    .state_size = sizeof(frame_state),
    .insn_size = sizeof(ppc_record),
    .undecoded_skip = 4,
    .entry_state = &entry_state,
    .targets_work = TARGETS_WORK_MAX,
    .targets_stack = TARGETS_MAX,
    .call_policy = KNIT_CALLS_SEQUENCE,
    .target_padding_is_code = true,
    .target_undecoded_is_code = true,
    .classify = knit_power_classify,
    .apply = knit_power_apply,
    .prepare = prepare,
    .begin_pass = begin_pass,
    .join = join,
    .recipe = knit_power_recipe,
    .same = same_state,
    .rank = state_rank,
    .guessed = is_guessed,
    .mark_guessed = mark_guessed,
    .grows = builds_up,
    .shrinks = tears_down,
    .call_conflict = call_conflict,
    .resume_guess = resume_guess,
};

KNIT_ANALYZER_FITS(frame_state, ppc_record, TARGETS_MAX, TARGETS_WORK_MAX);

int knit_power_analyze(const knit_power_abi *abi, size_t cs_handle, void *insn_buf,
                       const uint8_t *code, size_t len, uint64_t addr, knit_recipe *out, int max,
                       knit_analyze_work *work)
{
  ppc_model m;
  m.abi = abi;
  return knit_analyze_function(&analyzer, &m, cs_handle, insn_buf, code, len, addr, NULL, 0, 0,
                               NULL, out, max, work);
}
