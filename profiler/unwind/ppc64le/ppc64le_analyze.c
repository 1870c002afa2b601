/* The ppc64le (ELFv2) recipe analyzer.
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
 * Control flow is followed as on x86-64, by repeating a linear pass until
 * it learns nothing new (PASSES_MAX at most): every branch into the
 * function, forward or backward, records its state for its target, and the
 * records persist across passes. After an unconditional end of a path
 * (blr, b, bctr, trap) decoding resumes with the state recorded for that
 * address, which on a later pass includes blocks entered only by a
 * backward branch (gcc's jump tables, placed after their bctr, are read
 * and their cases recorded as the bctr's targets); else, after a jump
 * through a table (bctr with the frame in place), with the state at that
 * bctr; else with the state at the last call made from a frame with LR
 * saved (an exception landing pad's), when the "canonical" state, the one
 * that held after the prologue and before the first epilogue, has LR
 * unsaved (shrink-wrapped code); else with the canonical state.
 * States so guessed are marked and give way to followed ones, also where
 * a guess falls through into a block a branch enters. Alignment nops and
 * the traceback table after a path end keep the path ended. At every blr
 * the state is known outright (CFA = r1, return address in LR, r31
 * restored).
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
 *
 * The analyzer runs inside the profiler's signal handler: it allocates
 * nothing, keeps no global state and calls only cs_disasm_iter, which works
 * on caller-provided memory, and plain string comparisons.
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/ppc64le/ppc64le_analyze_internal.h"

/* ---- Canonical state, branch target states, output ---------------------- */

/* True when the instruction took down part of the frame. */
static bool tears_down(const frame_state *b, const frame_state *a) {
  return (b->sp_known && a->sp_known && a->sp_depth < b->sp_depth) ||
         (b->fp_saved && !a->fp_saved) || (b->ra_saved && !a->ra_saved) ||
         (b->cfa_on_fp && !a->cfa_on_fp) || (!b->lr_has_ra && a->lr_has_ra);
}

static bool builds_up(const frame_state *b, const frame_state *a) {
  return (b->sp_known && a->sp_known && a->sp_depth > b->sp_depth) ||
         (a->fp_saved && !b->fp_saved) || (a->ra_saved && !b->ra_saved) ||
         (a->cfa_on_fp && !b->cfa_on_fp);
}

/* The canonical state: the one before the epilogue that leads to the first
 * end of a path (a straight run of tear-down instructions, with no call,
 * branch or growth in it), or the state at that end when no such run
 * precedes it. */
typedef struct canonical_search {
  frame_state state;
  bool found;
  bool in_run;
  frame_state before_run;
} canonical_search;

static void canonical_step(canonical_search *c, const frame_state *before,
                           const frame_state *after, const branch_info *b,
                           flow_kind flow) {
  if (c->found)
    return;
  if (flow == FLOW_END || flow == FLOW_JUMP) {
    c->state = c->in_run ? c->before_run : *before;
    c->found = true;
    return;
  }
  if (builds_up(before, after) || b->is_branch) {
    c->in_run = false;
  } else if (tears_down(before, after) && !c->in_run) {
    c->in_run = true;
    c->before_run = *before;
  }
}

/* Equal as far as recipes and the model go (the guessed mark aside);
 * fields that are not valid are not compared. */
static bool same_state(const frame_state *x, const frame_state *y) {
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

/* The index of the first recorded target at or after off. */
static int target_lower_bound(const analysis *a, uint32_t off) {
  int lo = 0, hi = a->target_count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (a->targets[mid].addr < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static const frame_state *target_find(const analysis *a, uint64_t addr) {
  uint32_t off = (uint32_t)(addr - a->func_start);
  int i = target_lower_bound(a, off);
  return i < a->target_count && a->targets[i].addr == off ? &a->targets[i].state
                                                          : NULL;
}

/* Records the state the branch at `at` leaves for target, forward or
 * backward. The first branch to a target decides, except that a followed
 * state replaces a guessed one and the deciding branch updates its record
 * when a later pass knows better what reaches it. News for a target this
 * pass has passed calls for another pass. */
static void target_record(analysis *a, uint64_t at, uint64_t target,
                          const frame_state *s) {
  if (!knit_ppc64le_in_function(a, target))
    return;
  uint32_t off = (uint32_t)(target - a->func_start);
  uint32_t from = (uint32_t)(at - a->func_start);
  int i = target_lower_bound(a, off);
  if (i < a->target_count && a->targets[i].addr == off) {
    target_state *t = &a->targets[i];
    /* Only a different state or a better-founded one is news: a loop of
     * guessed blocks would otherwise pass its mark around forever. */
    bool news = (t->from == from && !same_state(&t->state, s)) ||
                (t->state.guessed && !s->guessed);
    if (news) {
      t->from = from;
      t->state = *s;
      a->changed |= off <= from;
    }
    return;
  }
  if (a->target_count == a->targets_max)
    return; /* full: see TARGETS_MAX */
  memmove(&a->targets[i + 1], &a->targets[i],
          (size_t)(a->target_count - i) * sizeof a->targets[0]);
  a->targets[i].addr = off;
  a->targets[i].from = from;
  a->targets[i].state = *s;
  a->target_count++;
  a->changed |= off <= from;
}

static void recipe_from_state(const frame_state *s, bool guess, uint64_t start,
                              uint64_t end, knit_recipe *r) {
  memset(r, 0, sizeof *r);
  r->start = start;
  r->end = end;
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

static bool same_rule(const knit_recipe *a, const knit_recipe *b) {
  return a->cfa_base == b->cfa_base && a->cfa_offset == b->cfa_offset &&
         a->ra_rule == b->ra_rule && a->ra_offset == b->ra_offset &&
         a->fp_rule == b->fp_rule && a->fp_offset == b->fp_offset &&
         a->flags == b->flags && a->fp_sp_delta == b->fp_sp_delta;
}

/* Appends the recipe of [start, end), merging it into the previous interval
 * when the rule is the same. When out is full, the last interval is
 * stretched over the rest and flagged, so the function stays covered. */
static void emit(analysis *a, const frame_state *s, bool guess, uint64_t start,
                 uint64_t end) {
  knit_recipe r;
  recipe_from_state(s, guess, start, end, &r);
  if (a->count > 0) {
    knit_recipe *last = &a->out[a->count - 1];
    if (last->end == start && same_rule(last, &r)) {
      last->end = end;
      return;
    }
    if (a->count == a->max) {
      last->end = end;
      last->flags |= KNIT_RECIPE_UNCERTAIN;
      return;
    }
  }
  if (a->count < a->max)
    a->out[a->count++] = r;
}

/* gcc's alignment nops ("nop", "ori r2,r2,0") are never executed after the
 * end of a path. */
static bool is_padding(const cs_insn *insn) {
  return strcmp(insn->mnemonic, "nop") == 0 ||
         (strcmp(insn->mnemonic, "ori") == 0 && strcmp(insn->op_str, "r2, r2, 0") == 0);
}

/* The linker's TOC restore in the slot after a call to another module
 * (ELFv2 saves r2 at 24(r1)): part of the call sequence, so the block
 * after it is still the call's fall-through, which a noreturn call never
 * takes (bl abort; ld r2,24(r1); then a block a branch enters). */
static bool is_toc_restore(const cs_insn *insn) {
  return strcmp(insn->mnemonic, "ld") == 0 && strcmp(insn->op_str, "r2, 0x18(r1)") == 0;
}

/* gcc's jump table (switch): the bctr is followed by the table itself,
 * 32-bit offsets of the cases from the table's start, which is the address
 * after the bctr (addis/addi of it from the TOC, lwax, add, mtctr, bctr).
 * Its cases are entered from the bctr with the bctr's state, a followed
 * state: recording them as branch targets keeps a case that saves LR
 * itself from being taken for a guess (and giving way to, or passing on,
 * the state of a neighbouring block that is not a case). A word is an
 * entry when its primary opcode is 0 or 63, that is, an offset within
 * 64 MiB; gcc's entries are 4-byte aligned and land in the function outside
 * the table. Anything else (clang's tables are in .rodata, and the code
 * after them begins with an instruction; a traceback table begins with a
 * zero word, an offset into itself) records nothing. */
static void record_jump_table(analysis *a, uint64_t at, const uint8_t *p, size_t left,
                              uint64_t base, const frame_state *s) {
  size_t n = 0;
  while (n + 4 <= left) {
    uint32_t w = (uint32_t)p[n] | (uint32_t)p[n + 1] << 8 | (uint32_t)p[n + 2] << 16 |
                 (uint32_t)p[n + 3] << 24;
    uint64_t target = base + (uint64_t)(int64_t)(int32_t)w;
    if ((w >> 26 != 0 && w >> 26 != 63) || (w & 3) != 0 ||
        !knit_ppc64le_in_function(a, target))
      break;
    n += 4;
  }
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i += 4) {
    uint32_t w = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                 (uint32_t)p[i + 3] << 24;
    uint64_t target = base + (uint64_t)(int64_t)(int32_t)w;
    if (target >= base && target < base + n)
      return; /* into the words themselves: not a table */
  }
  for (size_t i = 0; i < n; i += 4) {
    uint32_t w = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                 (uint32_t)p[i + 3] << 24;
    target_record(a, at, base + (uint64_t)(int64_t)(int32_t)w, s);
  }
}

/* The control flow of a branch, and its effect on LR. */
static flow_kind branch_flow(const analysis *a, frame_state *s,
                             const branch_info *b) {
  if (b->links) {
    s->lr_has_ra = 0; /* a call (or bcl to read the pc) overwrites LR */
    return FLOW_NEXT;
  }
  if (b->conditional)
    return b->has_target && !b->to_lr && !b->to_ctr ? FLOW_BRANCH : FLOW_NEXT;
  if (b->has_target && knit_ppc64le_in_function(a, b->target))
    return FLOW_JUMP;
  return FLOW_END; /* blr, bctr, or b to another function: a tail call */
}

/* One linear pass over the function, writing its recipes from scratch;
 * branch targets learnt in earlier passes are kept. Returns the number of
 * instructions decoded. */
static int sweep(analysis *a, csh handle, cs_insn *insn, const uint8_t *code,
                 size_t len, uint64_t addr) {
  a->count = 0;
  a->changed = false;
  memset(a->regs, 0, sizeof a->regs);
  frame_state cur = entry_state;
  canonical_search canonical = {.state = cur};
  /* The state at a bctr that leaves the frame in place: a jump through a
   * table to blocks of this function (a tail call through CTR tears the
   * frame down first). Those blocks are placed after it and no recorded
   * branch names them, so they resume with this state, not the
   * canonical one: in shrink-wrapped code the two differ in LR's save. */
  frame_state table_state = entry_state;
  bool have_table = false;
  /* The state at the last call made with the return address saved. A
   * block after a path end that no branch enters is mostly an exception
   * landing pad, entered by the unwinder from a call site, where LR was
   * saved: in shrink-wrapped code (an early return before the prologue)
   * the canonical state says LR holds the return address, which a landing
   * pad has long overwritten. */
  frame_state call_state = entry_state;
  bool have_call = false;
  bool path_ended = false;
  bool after_call = false; /* only a call and nops since the last block */
  int decoded = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = addr;
  while (left > 0) {
    uint64_t at = pc;
    const frame_state *branch_state = target_find(a, at);
    if (path_ended || branch_state)
      memset(a->regs, 0, sizeof a->regs); /* values are known along one path */
    /* Where a branch joins the fall-through of a call, the frames of both
     * must agree in a correct program; when they do not, the call does not
     * return (abort, __chk_fail, longjmp) and only the branch enters. */
    /* A guess that falls into a block a followed branch enters gives way
     * to what the branch knows. */
    if (path_ended || (after_call && branch_state) ||
        (branch_state && cur.guessed && !branch_state->guessed)) {
      if (branch_state) {
        cur = *branch_state;
      } else {
        cur = have_table ? table_state : canonical.state;
        if (!have_table && have_call && !cur.ra_saved)
          cur = call_state;
        cur.guessed = 1;
      }
    }
    if (!cs_disasm_iter(handle, &p, &left, &pc, insn)) {
      /* Data (the traceback table after blr) or an unknown instruction:
       * cover the word with a flagged guess and go on with the next one.
       * After the end of a path it is data and the path stays ended. */
      size_t skip = left < 4 ? left : 4;
      emit(a, &cur, true, at, at + skip);
      /* ... unless a branch enters here: then it is an instruction
       * Capstone 4 does not know (mtfprd, lwsync) on a live path. */
      path_ended = path_ended && !branch_state;
      p += skip;
      left -= skip;
      pc += skip;
      continue;
    }
    decoded++;
    branch_info b = knit_ppc64le_classify_branch(insn);
    if (b.is_branch && b.to_lr && !b.conditional && !b.links) {
      /* At blr the return address is in LR, r1 is the caller's and r31 is
       * restored, whatever came before. */
      cur = entry_state;
    }
    /* gcc reports queued saves before a branch and before an instruction
     * that overwrites a register whose save is queued (or LR's copy). */
    uint32_t written = knit_ppc64le_gprs_written(insn);
    bool lr_home_written = cur.lr_queued && cur.lr_home != NO_REG &&
                           (written & (1u << cur.lr_home));
    bool lr_written = cur.lr_queued && strcmp(insn->mnemonic, "mtlr") == 0;
    if ((cur.queued || cur.lr_queued) &&
        (b.is_branch || (written & cur.queued) || lr_home_written || lr_written ||
         knit_ppc64le_starts(insn->mnemonic, "trap")))
      knit_ppc64le_publish(&cur);
    emit(a, &cur, false, at, pc);

    frame_state before = cur;
    flow_kind flow;
    /* Only a call from a frame of its own (stubs without one, as glink's,
     * keep LR in odd places and have no landing pads). */
    if (b.is_branch && b.links && !b.conditional && (!b.has_target || b.target != pc) &&
        cur.ra_saved && ((cur.sp_known && cur.sp_depth > 0) || cur.fp_frame)) {
      call_state = cur;
      have_call = true;
    }
    bool table_jump = b.is_branch && b.to_ctr && !b.links && !b.conditional &&
                      (cur.ra_saved || (cur.sp_known && cur.sp_depth > 0));
    if (table_jump) {
      table_state = cur;
      have_table = true;
      record_jump_table(a, at, p, left, pc, &cur);
    }
    if (b.is_branch) {
      flow = branch_flow(a, &cur, &b);
    } else if (strcmp(insn->mnemonic, "trap") == 0) {
      flow = FLOW_END;
    } else {
      knit_ppc64le_model_insn(a, &cur, insn);
      flow = FLOW_NEXT;
    }
    /* ... and with the next change of the CFA. */
    knit_recipe rb, ra;
    recipe_from_state(&before, false, 0, 0, &rb);
    recipe_from_state(&cur, false, 0, 0, &ra);
    if (rb.cfa_base != ra.cfa_base || rb.cfa_offset != ra.cfa_offset)
      knit_ppc64le_publish(&cur);

    canonical_step(&canonical, &before, &cur, &b, flow);
    if (flow == FLOW_BRANCH || flow == FLOW_JUMP)
      target_record(a, at, b.target, &cur);
    bool resumed = path_ended;
    if (b.is_branch && b.links)
      after_call = b.has_target && b.target != pc; /* not bcl to read the pc */
    else if (!is_padding(insn) && !(after_call && is_toc_restore(insn)))
      after_call = false;
    /* A nop that a branch targets knit_ppc64le_starts a block: it is not padding. */
    path_ended = flow == FLOW_END || flow == FLOW_JUMP ||
                 (resumed && !branch_state && is_padding(insn));
  }
  return decoded;
}

static int run(analysis *a, csh handle, cs_insn *insn, const uint8_t *code,
               size_t len, uint64_t addr) {
  a->func_start = addr;
  a->func_end = addr + len;
  a->target_count = 0;
  /* Repeat the pass while it learns states for blocks it had passed
   * (entered by backward branches, as loop bodies placed after the jump
   * into their condition and shrink-wrapped blocks that branch back). */
  int decoded = 0;
  for (int pass = 0; pass < PASSES_MAX; pass++) {
    decoded = sweep(a, handle, insn, code, len, addr);
    if (!a->changed || decoded == 0)
      break;
  }
  return decoded == 0 ? -1 : a->count;
}

/* Without a workspace: the small table on this function's own frame, which
 * exists only on this path, so a caller with a workspace does not pay for
 * it on its stack. */
static __attribute__((noinline)) int run_on_stack(analysis *a, csh handle,
                                                  cs_insn *insn, const uint8_t *code,
                                                  size_t len, uint64_t addr) {
  target_state targets[TARGETS_MAX];
  a->targets = targets;
  a->targets_max = TARGETS_MAX;
  return run(a, handle, insn, code, len, addr);
}

int knit_ppc64le_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code,
                         size_t len, uint64_t addr, knit_recipe *out, int max,
                         knit_analyze_work *work) {
  analysis a;
  a.out = out;
  a.max = max;
  if (!work)
    return run_on_stack(&a, (csh)cs_handle, insn_buf, code, len, addr);
  /* The workspace's bytes are used only as this table, through one type;
   * they are 16-byte aligned, more than target_state needs. */
  a.targets = (target_state *)(void *)work->bytes;
  a.targets_max = TARGETS_WORK_MAX;
  return run(&a, (csh)cs_handle, insn_buf, code, len, addr);
}
