/* The x86-64 recipe analyzer: the frame state and its hooks for the
 * ISA-neutral driver (unwind/analyze.h, which describes the fixed point
 * over the function and the recipes it writes); the instruction model is
 * x86_64_analyze_insn.c.
 *
 * The state says, before every instruction, where the CFA is (rsp+n or
 * rbp+n) and whether the caller's rbp has been saved, and where. The
 * return address is always at CFA-8 on x86-64. At every ret the state is
 * known outright (CFA = rsp+8, rbp restored), which also recovers from an
 * earlier unmodeled change of rsp. Control flow is followed as the driver
 * does (one or two passes for most functions, six at most in libc,
 * libstdc++, libgfortran and libgomp); nop and int3 are padding.
 *
 * Calls to functions that do not return (abort, __chk_fail,
 * __stack_chk_fail, runtime-error reporters) are not known by name: when
 * the state that falls through from a call meets a branch target recorded
 * with another state before anything changed the frame, the call did not
 * return; the target's state wins, and later passes end the path at the
 * call (its padding keeping the call's state, as the CFI does): the
 * driver's KNIT_CALLS_LEARNED. States carry how they were founded
 * (state_rank): one followed from the entry beats one derived from the
 * canonical guess, and one that no unmodeled rsp change spoiled beats one
 * that it did; after a path end a spoiled branch state gives way to the
 * canonical guess (in libc: AVX-512 code that Capstone 4 misdecodes).
 *
 * What was learned from comparing with gcc's CFI (test_x86_64_analyze audits
 * the test itself and libc): "mov rbp,rsp" is a frame set-up only right
 * after rbp was saved, since -O2 code also copies rsp into rbp used as a
 * general register; pops of pushed call arguments are not an epilogue; and
 * PLT0 is entered by a jmp with CFA = rsp+16.
 *
 * Code entered by a jump rather than a call, the foo.cold part of gcc's
 * hot/cold split, is analyzed by knit_x86_64_analyze_entered from the state
 * its parent has at the jump into it (the parent's analysis reports that
 * state); its canonical guess is then that entry state.
 *
 * gcc's DRAP realignment (lea r10,[rsp+8]; and rsp,-N; a frame built
 * below the aligned point, r10 saved in it) is modeled from the aligned
 * point down (frame_state); its body's recipe loads the CFA from the
 * saved register (KNIT_CFA_FP_DEREF). The few instructions where the CFA
 * is only in the register get flagged recipes.
 *
 * Not modeled: _start (entered by the kernel), stack switches, and
 * anything not listed in the model (x86_64_analyze_insn.c); those rsp
 * writes make the recipe KNIT_RECIPE_UNCERTAIN. Bytes Capstone cannot
 * decode are covered one at a time by flagged guesses.
 */
#include <stdbool.h>
#include <string.h>

#include "unwind/x86_64/x86_64_analyze_internal.h"

/* True when the instruction took down part of the frame (pop, add rsp,
 * leave, ...): possibly part of an epilogue. */
static bool tears_down(const void *b, const void *a)
{
  const frame_state *before = b, *after = a;
  return (before->sp_known && after->sp_known && after->sp_depth < before->sp_depth) ||
         (before->fp_saved && !after->fp_saved) || (before->cfa_on_fp && !after->cfa_on_fp);
}

static bool builds_up(const void *b, const void *a)
{
  const frame_state *before = b, *after = a;
  return (after->sp_known && before->sp_known && after->sp_depth > before->sp_depth) ||
         (after->fp_saved && !before->fp_saved) || (after->cfa_on_fp && !before->cfa_on_fp);
}

/* The lazy-binding stub PLT0 (push [rip+GOT+8]; jmp [rip+GOT+16], maybe
 * after endbr64 and with a bnd prefix) is entered by a jmp from a PLT stub
 * that pushed the relocation index over the return address: its CFA is
 * rsp+16 on entry, not rsp+8. */
static bool is_plt0(const uint8_t *code, size_t len)
{
  static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (len >= 4 && memcmp(code, endbr64, 4) == 0) {
    code += 4;
    len -= 4;
  }
  if (len < 8 || code[0] != 0xff || code[1] != 0x35)
    return false;
  const uint8_t *jmp = code + 6;
  if (jmp[0] == 0xf2) /* bnd */
    jmp++;
  return (size_t)(jmp - code) + 2 <= len && jmp[0] == 0xff && jmp[1] == 0x25;
}

/* Equal as far as recipes and the model go (the guessed mark aside);
 * fields that are not valid are not compared. */
static bool same_state(const void *a, const void *b)
{
  const frame_state *x = a, *y = b;
  return x->sp_known == y->sp_known && (!x->sp_known || x->sp_depth == y->sp_depth) &&
         x->fp_is_frame == y->fp_is_frame && (!x->fp_is_frame || x->fp_depth == y->fp_depth) &&
         x->fp_saved == y->fp_saved && (!x->fp_saved || x->fp_slot == y->fp_slot) &&
         x->cfa_on_fp == y->cfa_on_fp && x->uncertain == y->uncertain &&
         x->realigned == y->realigned && x->drap_saved == y->drap_saved &&
         (!x->drap_saved || x->drap_slot == y->drap_slot) &&
         /* Which register holds the CFA matters only while it is the
          * CFA's one home (realigned, not saved yet): elsewhere a lea of
          * the CFA's address (a variadic function's stack arguments), or
          * a call that took the register, must not make two states
          * differ, or a call would be taken for one that never returns. */
         (!x->realigned || x->drap_saved || x->drap_reg == y->drap_reg);
  /* The copies a moved frame is built from are not compared: they are
   * hints of a few straight instructions, and a state that differs only in
   * them must not make a call look like one that never returns. */
}

/* How much a state can be trusted: followed from the entry beats guessed,
 * and a state that no unmodeled rsp change spoiled beats one that it did. */
static int state_rank(const void *state)
{
  const frame_state *s = state;
  return (s->guessed ? 0 : 2) + (s->uncertain ? 0 : 1);
}

static bool is_guessed(const void *s)
{
  return ((const frame_state *)s)->guessed;
}

static void mark_guessed(void *s)
{
  ((frame_state *)s)->guessed = true;
}

static bool is_spoiled(const void *s)
{
  return ((const frame_state *)s)->uncertain;
}

/* A state followed from the entry that falls through from a call meets a
 * branch's other state, at least as well founded: the call did not
 * return. A guessed state is no evidence: a loop body placed after a jump
 * into its condition is guessed on the first pass and gets its branch's
 * state on the next (the call in it returns). */
static bool call_conflict(const void *known, const void *fell)
{
  return !same_state(known, fell) && !is_guessed(fell) && state_rank(known) >= state_rank(fell);
}

/* A realigned frame's recipe (frame_state): the CFA loaded from the DRAP
 * register's saved copy, the caller's rbp from the slot rbp points at, the
 * return address where the call left it. Before the copy is saved, and
 * after rbp is restored, the CFA is only in a register, which no recipe
 * can name: a flagged guess then, as before the realignment was modeled. */
static void recipe_realigned(const frame_state *s, knit_recipe *r)
{
  r->ra_rule = KNIT_RA_AT_CFA;
  r->ra_offset = -8;
  r->fp_rule = KNIT_FP_SAME;
  if (!s->cfa_on_fp || !s->drap_saved) {
    r->cfa_base = KNIT_CFA_SP;
    r->cfa_offset = 8;
    r->flags = KNIT_RECIPE_UNCERTAIN;
    return;
  }
  r->cfa_base = KNIT_CFA_FP_DEREF;
  r->cfa_offset = s->fp_depth + s->drap_slot;
  if (s->fp_saved) {
    r->fp_rule = KNIT_FP_AT_FP;
    r->fp_offset = s->fp_depth + s->fp_slot;
  }
  r->flags = s->uncertain ? KNIT_RECIPE_UNCERTAIN : 0;
}

static void recipe_from_state(const void *state, knit_recipe *r)
{
  const frame_state *s = state;
  memset(r, 0, sizeof *r);
  if (s->realigned) {
    recipe_realigned(s, r);
    return;
  }
  if (s->cfa_on_fp) {
    r->cfa_base = KNIT_CFA_FP;
    r->cfa_offset = s->fp_depth;
  } else {
    /* With rsp lost this is the last known offset: a guess, so flagged. */
    r->cfa_base = KNIT_CFA_SP;
    r->cfa_offset = s->sp_depth;
  }
  r->ra_rule = KNIT_RA_AT_CFA;
  r->ra_offset = -8;
  if (s->fp_saved) {
    r->fp_rule = KNIT_FP_AT_CFA;
    r->fp_offset = s->fp_slot;
  } else {
    r->fp_rule = KNIT_FP_SAME;
  }
  bool guess = s->uncertain || (!s->cfa_on_fp && !s->sp_known);
  r->flags = guess ? KNIT_RECIPE_UNCERTAIN : 0;
}

/* The ISA-neutral form of a state at a jump, and back. The rule keeps
 * what recipes say; sp_depth keeps rsp's distance when the CFA is on rbp. */
static void state_to_jump(const void *state, knit_jump_state *j)
{
  const frame_state *s = state;
  recipe_from_state(s, &j->rule);
  j->sp_depth = s->sp_depth;
  j->sp_known = s->sp_known;
  j->found = true;
}

static frame_state state_from_jump(const knit_jump_state *j)
{
  frame_state s = {0};
  if (j->rule.cfa_base == KNIT_CFA_FP_DEREF) {
    /* A realigned frame, measured from rbp (its aligned point is no
     * longer known): rsp is left to the frame pointer. */
    s.realigned = true;
    s.cfa_on_fp = true;
    s.fp_is_frame = true;
    s.drap_saved = true;
    s.drap_slot = (int16_t)j->rule.cfa_offset; /* it came from one */
    if (j->rule.fp_rule == KNIT_FP_AT_FP) {
      s.fp_saved = true;
      s.fp_slot = j->rule.fp_offset;
    }
    s.uncertain = (j->rule.flags & KNIT_RECIPE_UNCERTAIN) != 0;
    return s;
  }
  s.sp_known = j->sp_known;
  s.sp_depth = j->sp_known ? j->sp_depth : 0;
  if (j->rule.cfa_base == KNIT_CFA_FP) {
    s.cfa_on_fp = true;
    s.fp_is_frame = true;
    s.fp_depth = j->rule.cfa_offset;
  } else if (!j->sp_known || j->sp_depth != j->rule.cfa_offset) {
    /* Inconsistent or lost: keep the rule's offset, as a guess. */
    s.sp_depth = j->rule.cfa_offset;
    s.uncertain = true;
  }
  if (j->rule.fp_rule == KNIT_FP_AT_CFA) {
    s.fp_saved = true;
    s.fp_slot = j->rule.fp_offset;
  }
  s.uncertain |= (j->rule.flags & KNIT_RECIPE_UNCERTAIN) != 0;
  return s;
}

/* The state the code is entered with: its parent's at the jump into it,
 * PLT0's, or a call's. */
static void start_state(const uint8_t *code, size_t len, const knit_jump_state *entry, void *state)
{
  frame_state *s = state;
  *s = entry_state;
  if (entry)
    *s = state_from_jump(entry);
  else if (is_plt0(code, len))
    s->sp_depth = 16;
}

static const knit_analyzer analyzer = {
    .state_size = sizeof(frame_state),
    .insn_size = sizeof(x86_record),
    .undecoded_skip = 1,
    .entry_state = &entry_state,
    .targets_work = TARGETS_MAX,
    .targets_stack = TARGETS_MAX,
    .call_policy = KNIT_CALLS_LEARNED,
    .classify = knit_x86_64_classify,
    .apply = knit_x86_64_apply,
    .recipe = recipe_from_state,
    .same = same_state,
    .rank = state_rank,
    .guessed = is_guessed,
    .mark_guessed = mark_guessed,
    .spoiled = is_spoiled,
    .grows = builds_up,
    .shrinks = tears_down,
    .call_conflict = call_conflict,
    .start_state = start_state,
    .to_jump = state_to_jump,
};

KNIT_ANALYZER_FITS(frame_state, x86_record, TARGETS_MAX, TARGETS_MAX);

int knit_x86_64_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code, size_t len,
                        uint64_t addr, knit_recipe *out, int max, knit_analyze_work *work)
{
  return knit_analyze_function(&analyzer, NULL, cs_handle, insn_buf, code, len, addr, NULL, 0, 0,
                               NULL, out, max, work);
}

int knit_x86_64_analyze_entered(size_t cs_handle, void *insn_buf, const uint8_t *code, size_t len,
                                uint64_t addr, const knit_part_entries *entries, uint64_t into,
                                uint64_t into_end, knit_part_entries *at_jumps, knit_recipe *out,
                                int max, knit_analyze_work *work)
{
  return knit_analyze_function(&analyzer, NULL, cs_handle, insn_buf, code, len, addr, entries, into,
                               into_end, at_jumps, out, max, work);
}
