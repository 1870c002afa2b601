/* The x86-64 recipe analyzer.
 *
 * It decodes one function linearly with Capstone and tracks, before every
 * instruction, where the CFA is (rsp+n or rbp+n) and whether the caller's
 * rbp has been saved, and where. The return address is always at CFA-8 on
 * x86-64. Equal states of adjacent instructions become one recipe interval.
 *
 * Control flow is followed by repeating a linear pass until it learns
 * nothing new (at most PASSES_MAX passes; one or two for most functions,
 * six at most in libc, libstdc++, libgfortran and libgomp). Every branch, forward or backward, records its state for
 * its target, and the records persist across passes. After an
 * unconditional end of a path (ret, jmp, ud2, hlt) decoding resumes with
 * the state recorded for that address, which on a later pass includes
 * blocks entered only by a backward branch (loop bodies placed after the
 * jump into their condition); only code no recorded branch reaches falls
 * back to the "canonical" state, the one that held after the prologue and
 * before the first epilogue. That covers functions with several epilogues
 * and returns in the middle. Alignment padding after a path end keeps the
 * path ended, so shrink-wrapped blocks placed after it still get their
 * branch's state. At every ret the state is known outright (CFA = rsp+8,
 * rbp restored), which also recovers from an earlier unmodeled change of
 * rsp.
 *
 * Calls to functions that do not return (abort, __chk_fail,
 * __stack_chk_fail, runtime-error reporters) are not known by name: when
 * the state that falls through from a call meets a branch target recorded
 * with another state before anything changed the frame, the call did not
 * return; the target's state wins, and later passes end the path at the
 * call (its padding keeping the call's state, as the CFI does). States
 * carry how they were founded (state_rank): one followed from the entry
 * beats one derived from the canonical guess, so a guess never overrides
 * what a branch left.
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
 * anything not listed in model_insn (x86_64_analyze_insn.c); those rsp
 * writes make the recipe KNIT_RECIPE_UNCERTAIN.
 *
 * The analyzer runs inside the profiler's signal handler: it allocates
 * nothing, keeps no global state and calls only cs_disasm_iter and
 * cs_regs_access, which work on caller-provided memory.
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/x86_64/x86_64_analyze_internal.h"

/* True when the instruction took down part of the frame (pop, add rsp,
 * leave, ...): possibly part of an epilogue. */
static bool tears_down(const frame_state *before, const frame_state *after) {
  return (before->sp_known && after->sp_known &&
          after->sp_depth < before->sp_depth) ||
         (before->fp_saved && !after->fp_saved) ||
         (before->cfa_on_fp && !after->cfa_on_fp);
}

/* Finds the canonical state: the one before the epilogue that leads to the
 * first end of a path. An epilogue is a straight run of tear-down
 * instructions (other instructions may be interleaved) with no call, no
 * branch and no growth of the stack in it; that keeps the pops of pushed
 * call arguments from passing for one. When the first path end has no such
 * run before it (a jmp in the body, a switch dispatch), the state at it is
 * canonical. */
typedef struct canonical_search {
  frame_state state;        /* the result, once found */
  bool found;
  bool provisional;         /* state holds a stand-in (see below) */
  bool in_run;              /* inside a run of tear-down instructions */
  frame_state before_run;   /* the state before the current run */
} canonical_search;

/* A call that did not return ended a path before any ret or jmp did.
 * Its state stands for the canonical one until a real path end is found:
 * it often includes an alignment push of the error path rather than being
 * the body's frame, so it does not end the search. */
static void canonical_provisional(canonical_search *c, const frame_state *s) {
  if (c->found || c->provisional)
    return;
  c->state = c->in_run ? c->before_run : *s;
  c->state.guessed = true;
  c->provisional = true;
}

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
  bool grows = (after->sp_known && before->sp_known &&
                after->sp_depth > before->sp_depth) ||
               (after->fp_saved && !before->fp_saved) ||
               (after->cfa_on_fp && !before->cfa_on_fp);
  if (grows || flow == FLOW_BRANCH || insn->id == X86_INS_CALL) {
    c->in_run = false;
  } else if (tears_down(before, after) && !c->in_run) {
    c->in_run = true;
    c->before_run = *before;
  }
}

/* The lazy-binding stub PLT0 (push [rip+GOT+8]; jmp [rip+GOT+16], maybe
 * after endbr64 and with a bnd prefix) is entered by a jmp from a PLT stub
 * that pushed the relocation index over the return address: its CFA is
 * rsp+16 on entry, not rsp+8. */
static bool is_plt0(const uint8_t *code, size_t len) {
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
static bool same_state(const frame_state *x, const frame_state *y) {
  return x->sp_known == y->sp_known &&
         (!x->sp_known || x->sp_depth == y->sp_depth) &&
         x->fp_is_frame == y->fp_is_frame &&
         (!x->fp_is_frame || x->fp_depth == y->fp_depth) &&
         x->fp_saved == y->fp_saved &&
         (!x->fp_saved || x->fp_slot == y->fp_slot) &&
         x->cfa_on_fp == y->cfa_on_fp && x->uncertain == y->uncertain &&
         x->realigned == y->realigned && x->drap_saved == y->drap_saved &&
         (!x->drap_saved || x->drap_slot == y->drap_slot) &&
         /* Which register holds the CFA matters only while it is the
          * CFA's one home (realigned, not saved yet): elsewhere a lea of
          * the CFA's address (a variadic function's stack arguments), or
          * a call that took the register, must not make two states
          * differ, or a call would be taken for one that never returns. */
         (!x->realigned || x->drap_saved || x->drap_reg == y->drap_reg);
}

/* How much a state can be trusted: followed from the entry beats guessed,
 * and a state that no unmodeled rsp change spoiled beats one that it did. */
static int state_rank(const frame_state *s) {
  return (s->guessed ? 0 : 2) + (s->uncertain ? 0 : 1);
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
  return i < a->target_count && a->targets[i].addr == off
             ? &a->targets[i].state : NULL;
}

/* Records the state a branch at `at` leaves for target, forward or
 * backward. The first branch to a target decides, with two exceptions: a
 * better-founded state (state_rank) replaces the recorded one, and the
 * deciding branch updates its own record when a later pass knows better
 * what reaches it. Any change means another pass is needed. */
static void target_record(analysis *a, uint64_t at, uint64_t target,
                          const frame_state *s) {
  if (!knit_x86_64_in_function(a, target))
    return;
  uint32_t off = (uint32_t)(target - a->func_start);
  uint32_t from = (uint32_t)(at - a->func_start);
  int i = target_lower_bound(a, off);
  if (i < a->target_count && a->targets[i].addr == off) {
    target_state *t = &a->targets[i];
    /* Only a different state, or a better-founded one, counts as news: a
     * loop of blocks entered after a path end would otherwise pass its
     * guessed mark around forever. */
    bool news = (t->from == from && !same_state(&t->state, s)) ||
                state_rank(s) > state_rank(&t->state);
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
  /* A target ahead is still to be swept in this pass; only news for one
   * already passed needs another pass. */
  a->changed |= off <= from;
}

static bool noreturn_find(const analysis *a, uint64_t next) {
  uint32_t off = (uint32_t)(next - a->func_start);
  for (int i = 0; i < a->noreturn_count; i++)
    if (a->noreturn[i] == off)
      return true;
  return false;
}

static void noreturn_record(analysis *a, uint64_t next) {
  if (noreturn_find(a, next) || a->noreturn_count == NORETURN_MAX)
    return;
  a->noreturn[a->noreturn_count++] = (uint32_t)(next - a->func_start);
  a->changed = true;
}

/* A realigned frame's recipe (frame_state): the CFA loaded from the DRAP
 * register's saved copy, the caller's rbp from the slot rbp points at, the
 * return address where the call left it. Before the copy is saved, and
 * after rbp is restored, the CFA is only in a register, which no recipe
 * can name: a flagged guess then, as before the realignment was modeled. */
static void recipe_realigned(const frame_state *s, knit_recipe *r) {
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

static void recipe_from_state(const frame_state *s, uint64_t start,
                              uint64_t end, knit_recipe *r) {
  memset(r, 0, sizeof *r);
  r->start = start;
  r->end = end;
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

static bool same_rule(const knit_recipe *a, const knit_recipe *b) {
  return a->cfa_base == b->cfa_base && a->cfa_offset == b->cfa_offset &&
         a->ra_rule == b->ra_rule && a->ra_offset == b->ra_offset &&
         a->fp_rule == b->fp_rule && a->fp_offset == b->fp_offset &&
         a->flags == b->flags;
}

/* Appends the recipe of [start, end), merging it into the previous interval
 * when the rule is the same. When out is full, the last interval is
 * stretched over the rest and flagged, so the function stays covered. */
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

/* Whether insn is a direct jmp or jcc to `to`. */
static bool jumps_to(const analysis *a, const cs_insn *insn, uint64_t to) {
  const cs_x86 *x = &insn->detail->x86;
  return x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
         (uint64_t)x->operands[0].imm == to && insn->id != X86_INS_CALL &&
         cs_insn_group(a->handle, insn, X86_GRP_JUMP);
}

/* One linear pass over the function with the targets recorded so far,
 * emitting its recipes into a->out. Returns the instructions decoded. */
static int sweep(analysis *a, cs_insn *insn, const uint8_t *code, size_t len,
                 const frame_state *start) {
  frame_state cur = *start;
  canonical_search canonical = {.state = cur};
  canonical.state.guessed = true; /* used where no flow is known */
  bool path_ended = false; /* the previous instruction ended a path */
  bool prev_call = false;  /* ... was a call */
  bool padded = false;     /* ... was padding right after a call */
  bool dead_call = false;  /* ... was a call known not to return, or its
                              padding */
  /* The address after the last call, while the state has not changed
   * since it (0: none): a conflict with a branch's state in that stretch
   * means the call did not return. */
  uint64_t call_next = 0;
  int decoded = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = a->func_start;
  a->count = 0;
  a->changed = false;
  a->jump_found = false;
  while (left > 0) {
    uint64_t at = pc;
    bool decodes = cs_disasm_iter(a->handle, &p, &left, &pc, insn);
    bool padding = decodes && (insn->id == X86_INS_NOP || insn->id == X86_INS_INT3);
    if (prev_call && !path_ended && noreturn_find(a, at)) {
      /* An earlier pass learnt that the call before does not return. Its
       * padding keeps the call's state, as the CFI does. */
      canonical_provisional(&canonical, &cur);
      dead_call = true;
    }
    if (dead_call && !padding) {
      path_ended = true;
      dead_call = false;
    }
    bool resumed = path_ended;
    const frame_state *known = target_find(a, at);
    if (resumed) {
      /* Only a branch gets here: its state, else a guess. A branch state
       * spoiled by an unmodeled instruction (in libc: AVX-512 code that
       * Capstone 4 misdecodes) is a worse guess than the canonical one. */
      bool use_known = known && (!known->uncertain || canonical.state.uncertain);
      cur = use_known ? *known : canonical.state;
      call_next = 0;
    } else if (known && call_next && !same_state(known, &cur) && !cur.guessed &&
               state_rank(known) >= state_rank(&cur)) {
      /* The state that fell through from a call meets a branch's other
       * state: the call did not return (abort, __stack_chk_fail, a
       * runtime error), and the code here belongs to the branch. The next
       * pass ends the path at the call, so that the stretch after it does
       * not leave its wrong state for branch targets. A guessed state is
       * no evidence: a loop body placed after a jump into its condition
       * is guessed on the first pass and gets its branch's state on the
       * next (the call in it returns). */
      noreturn_record(a, call_next);
      canonical_provisional(&canonical, &cur);
      cur = *known;
      call_next = 0;
    } else if (known && state_rank(known) > state_rank(&cur)) {
      /* A guessed or spoiled state gives way to a better one recorded for
       * this address (when both are equal, it becomes a followed one). */
      cur = *known;
      call_next = 0;
    } else if (padded) {
      /* Padding after a call: probably a noreturn call, and this code is
       * reached from elsewhere; the call's state is kept, as a guess. */
      cur.guessed = true;
    } else if (known) {
      call_next = 0; /* a branch agrees: the call returned */
    }
    if (!decodes) {
      /* Not an instruction Capstone knows (data, or too new): cover the
       * byte with a flagged guess and try again at the next one. */
      frame_state guess = cur;
      guess.uncertain = true;
      emit(a, &guess, at, at + 1);
      p++;
      left--;
      pc++;
      call_next = 0;
      continue;
    }
    decoded++;
    if (knit_x86_64_is_return(insn->id)) {
      /* At a return the return address is at [rsp] and the callee-saved
       * rbp is back, whatever came before: this also recovers from an
       * earlier unmodeled change of rsp. */
      cur = entry_state;
    }
    emit(a, &cur, at, pc);

    frame_state before = cur;
    uint64_t target = 0;
    flow_kind flow = knit_x86_64_model_insn(a, &cur, insn, &target);
    canonical_step(&canonical, &before, &cur, insn, flow);
    if (canonical.found)
      canonical.state.guessed = true;
    if (flow == FLOW_BRANCH || flow == FLOW_JUMP)
      target_record(a, at, target, &cur);
    if (a->jump_to && jumps_to(a, insn, a->jump_to) &&
        (!a->jump_found || (a->jump_state.guessed && !before.guessed))) {
      /* A jump does not change the frame: the state before it is the one
       * its target is entered with. */
      a->jump_found = true;
      a->jump_state = before;
    }
    /* Alignment padding after the end of a path is never executed: the
     * code after it is still entered only by branches. */
    path_ended = flow == FLOW_END || flow == FLOW_JUMP || (resumed && padding);
    padded = !path_ended && padding && (prev_call || padded);
    prev_call = insn->id == X86_INS_CALL;
    if (prev_call)
      call_next = pc;
    else if (path_ended || !same_state(&before, &cur))
      call_next = 0;
  }
  return decoded;
}

/* The ISA-neutral form of a state at a jump, and back. The rule keeps
 * what recipes say; sp_depth keeps rsp's distance when the CFA is on rbp. */
static void state_to_jump(const frame_state *s, knit_jump_state *j) {
  recipe_from_state(s, 0, 0, &j->rule);
  j->sp_depth = s->sp_depth;
  j->sp_known = s->sp_known;
  j->found = true;
}

static frame_state state_from_jump(const knit_jump_state *j) {
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

int knit_x86_64_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code,
                        size_t len, uint64_t addr, knit_recipe *out, int max,
                        knit_analyze_work *work) {
  (void)work; /* its tables fit on the stack so far */
  return knit_x86_64_analyze_entered(cs_handle, insn_buf, code, len, addr, NULL,
                                     0, NULL, out, max);
}

int knit_x86_64_analyze_entered(size_t cs_handle, void *insn_buf, const uint8_t *code,
                                size_t len, uint64_t addr,
                                const knit_jump_state *entry, uint64_t jump_to,
                                knit_jump_state *at_jump, knit_recipe *out, int max) {
  analysis a;
  a.handle = (csh)cs_handle;
  a.func_start = addr;
  a.func_end = addr + len;
  a.out = out;
  a.max = max;
  a.count = 0;
  a.target_count = 0;
  a.noreturn_count = 0;
  /* Only a jump out of the code is a way into another part. */
  a.jump_to = at_jump && (jump_to < addr || jump_to >= addr + len) ? jump_to : 0;
  a.jump_found = false;
  if (at_jump)
    at_jump->found = false;

  frame_state start = entry_state;
  if (entry)
    start = state_from_jump(entry);
  else if (is_plt0(code, len))
    start.sp_depth = 16;
  /* Iterate the sweep until it learns no new target state: a block placed
   * after a path end and entered only by a later backward branch gets the
   * branch's state on the next pass. Only code no recorded branch reaches
   * keeps the canonical guess. */
  for (int pass = 1;; pass++) {
    if (sweep(&a, insn_buf, code, len, &start) == 0)
      return -1;
    if (!a.changed || pass == PASSES_MAX)
      break;
  }
  if (a.jump_to && a.jump_found)
    state_to_jump(&a.jump_state, at_jump);
  return a.count;
}
