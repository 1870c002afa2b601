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
 * Control flow is followed as in the x86-64 and ppc64le analyzers, by
 * repeating a linear pass until it learns nothing new (PASSES_MAX at most):
 * every branch into the function, forward or backward, records its state
 * for its target, and the records persist across passes. After the end of
 * a path (ret, b out of the function or back, br, brk) decoding resumes
 * with the state recorded for that address, which on a later pass includes
 * blocks entered only by a backward branch (clang places a retry loop after
 * the tail call that ends the function), or else with the canonical state,
 * the one before the epilogue that ends the first path. States so guessed
 * are marked and give way to followed ones, also where a guess falls
 * through into a block a branch enters; a followed state carries all the
 * model knows, x29's relation to sp included. nops after a path end are
 * alignment padding and keep the path ended. At every ret the state is
 * known outright (CFA = sp, return address in LR, x29 restored).
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
 * that frees the frame). After a call whose fall-through disagrees with a
 * branch to the next instruction, the branch's state wins: the callee does
 * not return (bl __chk_fail closing a block).
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
 * and anything else model_insn (aarch64_analyze_insn.c) does not list:
 * such writes of sp or of an unsaved x30 make the recipe
 * KNIT_RECIPE_UNCERTAIN.
 *
 * The analyzer runs inside the profiler's signal handler: it allocates
 * nothing, keeps no global state and calls only cs_disasm_iter and
 * cs_regs_access, which work on caller-provided memory.
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/aarch64/aarch64_analyze_internal.h"

/* A ret through x30 (the plain ret): the only return the state resets at. */
static bool is_return(const cs_insn *insn) {
  const cs_arm64 *d = &insn->detail->arm64;
  return insn->id == ARM64_INS_RET &&
         (d->op_count == 0 ||
          (d->operands[0].type == ARM64_OP_REG &&
           d->operands[0].reg == ARM64_REG_X30));
}

static bool shrinks(const frame_state *before, const frame_state *after) {
  return (before->sp_known && after->sp_known &&
          after->sp_depth < before->sp_depth) ||
         (before->fp_saved && !after->fp_saved) ||
         (before->ra_saved && !after->ra_saved) ||
         (before->cfa_on_fp && !after->cfa_on_fp);
}

static bool grows(const frame_state *before, const frame_state *after) {
  return (before->sp_known && after->sp_known &&
          after->sp_depth > before->sp_depth) ||
         (after->fp_saved && !before->fp_saved) ||
         (after->ra_saved && !before->ra_saved) ||
         (after->cfa_on_fp && !before->cfa_on_fp);
}

/* Finds the canonical state: the one before the epilogue that leads to the
 * first end of a path, where an epilogue is a straight run of tear-down
 * instructions (others may be interleaved: ldp of callee-saved registers,
 * the return value's computation) with no call, branch or growth in it.
 * When the first path end has no such run before it, the state there is
 * canonical. */
typedef struct canonical_search {
  frame_state state;
  bool found;
  bool in_run;
  frame_state before_run;
} canonical_search;

static void canonical_step(canonical_search *c, const frame_state *before,
                           const frame_state *after, const cs_insn *insn,
                           flow_kind flow) {
  if (c->found)
    return;
  if (flow == FLOW_END || flow == FLOW_JUMP) {
    c->state = c->in_run ? c->before_run : *before;
    c->found = true;
    return;
  }
  if (grows(before, after) || flow == FLOW_BRANCH ||
      insn->id == ARM64_INS_BL || insn->id == ARM64_INS_BLR) {
    c->in_run = false;
  } else if (shrinks(before, after) && !c->in_run) {
    c->in_run = true;
    c->before_run = *before;
  }
}

/* Equal as far as recipes and the model go (the guessed mark aside);
 * fields that are not valid are not compared. */
static bool same_state(const frame_state *x, const frame_state *y) {
  return x->sp_known == y->sp_known && (!x->sp_known || x->sp_depth == y->sp_depth) &&
         x->fp_is_frame == y->fp_is_frame &&
         (!x->fp_is_frame || x->fp_depth == y->fp_depth) &&
         x->fp_saved == y->fp_saved && (!x->fp_saved || x->fp_slot == y->fp_slot) &&
         x->ra_saved == y->ra_saved && (!x->ra_saved || x->ra_slot == y->ra_slot) &&
         x->fp_reloaded == y->fp_reloaded && x->ra_reloaded == y->ra_reloaded &&
         x->record_pushed == y->record_pushed && x->restore_soon == y->restore_soon &&
         x->cfa_on_fp == y->cfa_on_fp && x->uncertain == y->uncertain;
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
  if (!knit_aarch64_in_function(a, target))
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
  if (a->target_count == TARGETS_MAX)
    return; /* full: see TARGETS_MAX */
  memmove(&a->targets[i + 1], &a->targets[i],
          (size_t)(a->target_count - i) * sizeof a->targets[0]);
  a->targets[i].addr = off;
  a->targets[i].from = from;
  a->targets[i].state = *s;
  a->target_count++;
  a->changed |= off <= from;
}

static void recipe_from_state(const frame_state *s, uint64_t start,
                              uint64_t end, knit_recipe *r) {
  memset(r, 0, sizeof *r);
  r->start = start;
  r->end = end;
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

static bool same_rule(const knit_recipe *a, const knit_recipe *b) {
  return a->cfa_base == b->cfa_base && a->cfa_offset == b->cfa_offset &&
         a->ra_rule == b->ra_rule && a->ra_offset == b->ra_offset &&
         a->fp_rule == b->fp_rule && a->fp_offset == b->fp_offset &&
         a->flags == b->flags && a->fp_sp_delta == b->fp_sp_delta;
}

/* Appends the recipe of [start, end), merged into the previous interval
 * when the rule is the same. When out is full, the last interval stretches
 * over the rest, flagged, so that the function stays covered. */
static void emit(analysis *a, const frame_state *s, uint64_t start,
                 uint64_t end) {
  knit_recipe r;
  recipe_from_state(s, start, end, &r);
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

/* Whether two states give the same recipe. */
static bool same_frame(const frame_state *x, const frame_state *y) {
  knit_recipe rx, ry;
  recipe_from_state(x, 0, 0, &rx);
  recipe_from_state(y, 0, 0, &ry);
  return same_rule(&rx, &ry);
}

/* One linear pass over the function, writing its recipes from scratch;
 * branch targets learnt in earlier passes are kept. Returns the number of
 * instructions decoded. */
static int sweep(analysis *a, cs_insn *insn, const uint8_t *code, size_t len,
                 uint64_t addr) {
  a->count = 0;
  a->changed = false;
  a->const_known = 0;
  frame_state cur = entry_state;
  canonical_search canonical = {.state = entry_state};
  bool path_ended = false;
  bool after_call = false;
  int decoded = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = addr;
  while (left > 0) {
    uint64_t at = pc;
    bool resumed = path_ended;
    const frame_state *branch_state = target_find(a, at);
    if (resumed) {
      if (branch_state) {
        cur = *branch_state;
      } else {
        cur = canonical.state;
        cur.guessed = true;
      }
    } else if (branch_state &&
               ((after_call && !same_frame(branch_state, &cur)) ||
                (cur.guessed && !branch_state->guessed))) {
      /* The fall-through of a call disagrees with a branch here: the
       * callee does not return (bl __chk_fail at the end of a block) and
       * the branch's state is the one that holds. A guess that falls into
       * a block a followed branch enters gives way to what it knows. */
      cur = *branch_state;
    }
    if (resumed || branch_state)
      a->const_known = 0; /* other paths join here */
    if (!cs_disasm_iter(a->handle, &p, &left, &pc, insn)) {
      /* Not an instruction Capstone knows (data, udf, or too new): cover
       * the word with a flagged guess and go on with the next one. */
      size_t skip = left < 4 ? left : 4;
      frame_state guess = cur;
      guess.uncertain = true;
      emit(a, &guess, at, at + skip);
      p += skip;
      left -= skip;
      pc += skip;
      continue;
    }
    decoded++;
    /* When the frame record at [sp] is reloaded last before the frame is
     * freed (ldp x29, x30, [sp]; add sp, sp, #n), gcc's CFI restores x29
     * and x30 at the load; when other reloads follow, at the add, as for
     * every reload whose slot is not at [sp]. Both are right (the slot
     * holds the value until then); the audit measures against gcc's. */
    if (cur.restore_soon) {
      if (knit_aarch64_is_stack_load(insn)) {
        cur.restore_soon = false;
      } else if (knit_aarch64_frees_stack(insn)) {
        cur.restore_soon = false;
        knit_aarch64_complete_restores(&cur);
      }
    }
    if (is_return(insn))
      cur = entry_state; /* also recovers from earlier unmodeled changes */
    emit(a, &cur, at, pc);

    frame_state before = cur;
    uint64_t target = 0;
    flow_kind flow = knit_aarch64_model_insn(a, &cur, insn, &target);
    canonical_step(&canonical, &before, &cur, insn, flow);
    if (flow == FLOW_BRANCH || flow == FLOW_JUMP)
      target_record(a, at, target, &cur);
    /* Alignment padding after a path end is never executed: the code after
     * it is still entered only by branches. A nop that a branch targets
     * starts a block. */
    bool padding = insn->id == ARM64_INS_NOP && !branch_state;
    after_call = insn->id == ARM64_INS_BL || insn->id == ARM64_INS_BLR;
    path_ended = flow == FLOW_END || flow == FLOW_JUMP || (resumed && padding);
  }
  return decoded;
}

/* Repeats the sweep while it learns states for blocks it had passed
 * (entered by backward branches: loop bodies placed after the jump into
 * their condition, clang's retry loops placed after a tail call).
 * Returns the number of recipes, or -1 when nothing decodes. */
static int run(analysis *a, cs_insn *insn, const uint8_t *code, size_t len,
               uint64_t addr) {
  a->target_count = 0;
  a->wants_fp = false; /* any pass may find that x29 is needed */
  int decoded = 0;
  for (int pass = 0; pass < PASSES_MAX; pass++) {
    decoded = sweep(a, insn, code, len, addr);
    if (!a->changed || decoded == 0)
      break;
  }
  return decoded == 0 ? -1 : a->count;
}

int knit_aarch64_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code,
                         size_t len, uint64_t addr, knit_recipe *out, int max,
                         knit_analyze_work *work) {
  (void)work; /* its tables fit on the stack so far */
  analysis a;
  a.handle = (csh)cs_handle;
  a.func_start = addr;
  a.func_end = addr + len;
  a.out = out;
  a.max = max;
  a.cfa_from_fp = false;
  int n = run(&a, insn_buf, code, len, addr);
  if (n > 0 && a.wants_fp) {
    /* sp moves by amounts only x29 can undo: as in gcc's CFI, the CFA is
     * on x29 from the frame set-up on. */
    a.cfa_from_fp = true;
    n = run(&a, insn_buf, code, len, addr);
  }
  return n;
}
