/* The x86-64 recipe analyzer.
 *
 * It decodes one function linearly with Capstone and tracks, before every
 * instruction, where the CFA is (rsp+n or rbp+n) and whether the caller's
 * rbp has been saved, and where. The return address is always at CFA-8 on
 * x86-64. Equal states of adjacent instructions become one recipe interval.
 *
 * Control flow is followed only as far as a linear pass allows: a branch
 * forward into the function leaves its state for the target; after an
 * unconditional end of a path (ret, jmp, ud2, hlt) decoding resumes with the
 * state a branch left for that address, or else with the "canonical" state,
 * the one that held after the prologue and before the first epilogue. That
 * covers functions with several epilogues and returns in the middle.
 * Alignment padding after a path end keeps the path ended, so shrink-wrapped
 * blocks placed after it still get their branch's state. At every ret the
 * state is known outright (CFA = rsp+8, rbp restored), which also recovers
 * from an earlier unmodeled change of rsp.
 *
 * What was learned from comparing with gcc's CFI (test_x86_64_analyze audits
 * the test itself and libc): "mov rbp,rsp" is a frame set-up only right
 * after rbp was saved, since -O2 code also copies rsp into rbp used as a
 * general register; pops of pushed call arguments are not an epilogue; and
 * PLT0 is entered by a jmp with CFA = rsp+16.
 *
 * Not modeled: code entered by a jump rather than a call (the foo.cold part
 * of a hot/cold split, _start), gcc's DRAP realignment (CFA through r10 or
 * an expression), stack switches, and anything not listed in model_insn;
 * those rsp writes make the recipe KNIT_RECIPE_UNCERTAIN.
 *
 * The analyzer runs inside the profiler's signal handler: it allocates
 * nothing, keeps no global state and calls only cs_disasm_iter and
 * cs_regs_access, which work on caller-provided memory.
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/x86_64/x86_64_analyze.h"

/* What the analyzer knows about the frame before one instruction. */
typedef struct frame_state {
  int32_t sp_depth;  /* CFA - rsp, valid when sp_known */
  int32_t fp_depth;  /* CFA - rbp, valid when fp_is_frame */
  int32_t fp_slot;   /* the caller's rbp is at CFA + fp_slot, when fp_saved */
  bool sp_known;     /* rsp is a known distance below the CFA */
  bool fp_is_frame;  /* rbp was set from rsp and is a known distance below */
  bool fp_saved;     /* the caller's rbp is in memory at CFA + fp_slot */
  bool cfa_on_fp;    /* the recipe computes the CFA from rbp */
  bool uncertain;    /* an instruction that was not modeled moved rsp */
} frame_state;

/* A state left by a forward branch for its target. */
typedef struct pending_state {
  uint64_t addr;
  frame_state state;
} pending_state;

/* Enough for the forward branches of large functions; when the table is
 * full, later targets fall back to the canonical state. The table lives on
 * the stack of the analyzer (about 4 KiB). */
#define PENDING_MAX 128

/* How an instruction continues the control flow. */
typedef enum flow_kind {
  FLOW_NEXT,    /* falls through to the next instruction */
  FLOW_BRANCH,  /* conditional: falls through and may go to target */
  FLOW_JUMP,    /* unconditional to target; the path ends here */
  FLOW_END,     /* ret, tail call, trap: the path ends here */
} flow_kind;

/* Everything one analysis run needs, kept together so that helpers stay
 * small and the run stays free of global state. */
typedef struct analysis {
  csh handle;
  uint64_t func_start;
  uint64_t func_end;
  knit_recipe *out;
  int max;
  int count;
  pending_state pending[PENDING_MAX];
  int pending_count;
} analysis;

static const frame_state entry_state = {
  .sp_depth = 8, .sp_known = true,
};

static bool is_rsp(unsigned reg) {
  return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP ||
         reg == X86_REG_SPL;
}

static bool is_rbp(unsigned reg) {
  return reg == X86_REG_RBP || reg == X86_REG_EBP || reg == X86_REG_BP ||
         reg == X86_REG_BPL;
}

static bool op_is_reg(const cs_x86_op *op, x86_reg reg) {
  return op->type == X86_OP_REG && op->reg == reg;
}

/* rsp changed in a way the model does not follow. That only matters when
 * the CFA is computed from rsp; a frame-pointer recipe stays right. */
static void lose_sp(frame_state *s) {
  s->sp_known = false;
  if (!s->cfa_on_fp)
    s->uncertain = true;
}

/* rbp no longer holds the frame address (it was popped or overwritten):
 * the CFA must come from rsp again. */
static void lose_frame(frame_state *s) {
  s->fp_is_frame = false;
  if (s->cfa_on_fp) {
    s->cfa_on_fp = false;
    if (!s->sp_known)
      s->uncertain = true;
  }
}

/* rbp is set to rsp + offset (mov rbp,rsp; lea rbp,[rsp+n]; enter). It is
 * the frame set-up, after which the CFA is computed from rbp, only when rbp
 * then points at the slot where the caller's rbp was just saved. Optimized
 * gcc code also uses rbp as a general register and copies rsp into it to
 * address a local buffer; the CFA stays on rsp then, as in gcc's CFI. */
static void set_frame(frame_state *s, int64_t offset) {
  if (!s->sp_known) {
    s->uncertain = true;
    lose_frame(s);
    return;
  }
  int32_t depth = s->sp_depth - (int32_t)offset;
  if (!s->fp_saved || s->fp_slot != -depth) {
    lose_frame(s);
    return;
  }
  s->fp_is_frame = true;
  s->fp_depth = depth;
  s->cfa_on_fp = true;
}

static void push_bytes(frame_state *s, int32_t size, bool pushes_rbp) {
  if (!s->sp_known)
    return;
  s->sp_depth += size;
  /* The first push of rbp before rbp has become a frame saves the caller's
   * value. A later push of rbp (a frame pointer, or an argument) does not
   * move the saved copy. */
  if (pushes_rbp && !s->fp_saved && !s->fp_is_frame) {
    s->fp_saved = true;
    s->fp_slot = -s->sp_depth;
  }
}

static void pop_into_rbp(frame_state *s, int32_t slot) {
  if (s->fp_saved && s->fp_slot == slot)
    s->fp_saved = false; /* the caller's rbp is back in rbp */
  lose_frame(s);
}

static void model_push(frame_state *s, const cs_x86 *x) {
  int32_t size = x->op_count > 0 && x->operands[0].size ? x->operands[0].size : 8;
  bool pushes_rbp = x->op_count > 0 && op_is_reg(&x->operands[0], X86_REG_RBP);
  if (pushes_rbp && !s->sp_known && !s->fp_saved)
    s->uncertain = true; /* the save slot cannot be placed */
  push_bytes(s, size, pushes_rbp);
}

static void model_pop(frame_state *s, const cs_x86 *x) {
  const cs_x86_op *op = &x->operands[0];
  int32_t size = x->op_count > 0 && op->size ? op->size : 8;
  int32_t slot = -s->sp_depth;
  bool known = s->sp_known;
  if (known)
    s->sp_depth -= size;
  if (x->op_count > 0 && op->type == X86_OP_REG) {
    if (is_rsp(op->reg))
      lose_sp(s);
    else if (is_rbp(op->reg))
      pop_into_rbp(s, known ? slot : 1 /* never a slot */);
  }
}

/* add/sub rsp: a constant moves the stack, anything else (alloca) loses it. */
static void model_add_sub_rsp(frame_state *s, const cs_x86 *x, bool is_sub) {
  const cs_x86_op *src = &x->operands[1];
  if (src->type != X86_OP_IMM) {
    lose_sp(s);
    return;
  }
  if (s->sp_known)
    s->sp_depth += (int32_t)(is_sub ? src->imm : -src->imm);
}

static void model_lea(frame_state *s, const cs_x86 *x) {
  const cs_x86_op *dst = &x->operands[0];
  const x86_op_mem *m = &x->operands[1].mem;
  bool simple = m->index == X86_REG_INVALID && m->segment == X86_REG_INVALID;
  if (op_is_reg(dst, X86_REG_RSP)) {
    if (simple && m->base == X86_REG_RSP && s->sp_known) {
      s->sp_depth -= (int32_t)m->disp;
    } else if (simple && m->base == X86_REG_RBP && s->fp_is_frame) {
      s->sp_depth = s->fp_depth - (int32_t)m->disp;
      s->sp_known = true;
    } else {
      lose_sp(s);
    }
  } else if (op_is_reg(dst, X86_REG_RBP)) {
    if (simple && m->base == X86_REG_RSP)
      set_frame(s, m->disp);
    else
      lose_frame(s);
  }
}

static void model_mov(frame_state *s, const cs_x86 *x) {
  const cs_x86_op *dst = &x->operands[0], *src = &x->operands[1];
  if (op_is_reg(dst, X86_REG_RBP) && op_is_reg(src, X86_REG_RSP)) {
    set_frame(s, 0);
  } else if (op_is_reg(dst, X86_REG_RSP) && op_is_reg(src, X86_REG_RBP) &&
             s->fp_is_frame) {
    s->sp_depth = s->fp_depth;
    s->sp_known = true;
  } else if (dst->type == X86_OP_REG && is_rsp(dst->reg)) {
    lose_sp(s); /* a stack switch */
  } else if (dst->type == X86_OP_REG && is_rbp(dst->reg)) {
    lose_frame(s);
  }
}

static void model_leave(frame_state *s) {
  if (!s->fp_is_frame) {
    s->uncertain = true;
    s->sp_known = false;
    lose_frame(s);
    return;
  }
  int32_t slot = -s->fp_depth;
  s->sp_depth = s->fp_depth - 8;
  s->sp_known = true;
  pop_into_rbp(s, slot);
}

static void model_enter(frame_state *s, const cs_x86 *x) {
  if (x->op_count < 2 || x->operands[1].imm != 0) {
    /* Nested frames copy frame pointers around: not modeled. */
    s->uncertain = true;
    s->sp_known = false;
    lose_frame(s);
    return;
  }
  push_bytes(s, 8, true);
  set_frame(s, 0);
  if (s->sp_known)
    s->sp_depth += (int32_t)x->operands[0].imm;
}

/* Any other instruction: if it writes rsp or rbp, the model loses track. */
static void model_other(analysis *a, frame_state *s, const cs_insn *insn) {
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (cs_regs_access(a->handle, insn, read, &nread, written, &nwritten) != CS_ERR_OK)
    return;
  for (uint8_t i = 0; i < nwritten; i++) {
    if (is_rsp(written[i]))
      lose_sp(s);
    else if (is_rbp(written[i]))
      lose_frame(s);
  }
}

static bool is_return(unsigned id) {
  return id == X86_INS_RET; /* far returns pop more than rip */
}

static bool in_function(const analysis *a, uint64_t target) {
  return target >= a->func_start && target < a->func_end;
}

/* Updates s for one instruction and says how control continues. */
static flow_kind model_insn(analysis *a, frame_state *s, const cs_insn *insn,
                            uint64_t *target) {
  const cs_x86 *x = &insn->detail->x86;
  const cs_x86_op *op0 = &x->operands[0];
  switch (insn->id) {
  case X86_INS_PUSH:
    model_push(s, x);
    return FLOW_NEXT;
  case X86_INS_POP:
    model_pop(s, x);
    return FLOW_NEXT;
  case X86_INS_PUSHF:
  case X86_INS_PUSHFQ:
    push_bytes(s, insn->id == X86_INS_PUSHF ? 2 : 8, false);
    return FLOW_NEXT;
  case X86_INS_POPF:
  case X86_INS_POPFQ:
    if (s->sp_known)
      s->sp_depth -= insn->id == X86_INS_POPF ? 2 : 8;
    return FLOW_NEXT;
  case X86_INS_SUB:
  case X86_INS_ADD:
    if (x->op_count == 2 && op_is_reg(op0, X86_REG_RSP)) {
      model_add_sub_rsp(s, x, insn->id == X86_INS_SUB);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_AND:
    if (x->op_count == 2 && op_is_reg(op0, X86_REG_RSP)) {
      /* Stack realignment: only a frame-pointer CFA survives it. */
      lose_sp(s);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_LEA:
    if (x->op_count == 2 && op0->type == X86_OP_REG &&
        (op0->reg == X86_REG_RSP || op0->reg == X86_REG_RBP)) {
      model_lea(s, x);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_MOV:
    if (x->op_count == 2 && op0->type == X86_OP_REG &&
        (is_rsp(op0->reg) || is_rbp(op0->reg))) {
      model_mov(s, x);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_LEAVE:
    model_leave(s);
    return FLOW_NEXT;
  case X86_INS_ENTER:
    model_enter(s, x);
    return FLOW_NEXT;
  case X86_INS_CALL:
    /* The callee pops its own return address: no net change. */
    return FLOW_NEXT;
  case X86_INS_RET:
  case X86_INS_RETF:
  case X86_INS_RETFQ:
  case X86_INS_LJMP:
  case X86_INS_UD2:
  case X86_INS_UD2B:
  case X86_INS_HLT:
  case X86_INS_INT3:
    return FLOW_END;
  case X86_INS_JMP:
    /* A direct jump inside the function continues the path there; one to
     * elsewhere is a tail call; an indirect one (switch table or tail call)
     * ends the path, and what follows resumes as after a ret. */
    if (x->op_count == 1 && op0->type == X86_OP_IMM &&
        in_function(a, (uint64_t)op0->imm)) {
      *target = (uint64_t)op0->imm;
      return FLOW_JUMP;
    }
    return FLOW_END;
  default:
    if (cs_insn_group(a->handle, insn, X86_GRP_JUMP)) {
      /* Conditional jumps, jrcxz and loop: all fall through or branch. */
      if (x->op_count == 1 && op0->type == X86_OP_IMM) {
        *target = (uint64_t)op0->imm;
        return FLOW_BRANCH;
      }
      return FLOW_NEXT;
    }
    break;
  }
  model_other(a, s, insn);
  return FLOW_NEXT;
}

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
  bool in_run;              /* inside a run of tear-down instructions */
  frame_state before_run;   /* the state before the current run */
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

static void pending_add(analysis *a, uint64_t at, uint64_t target,
                        const frame_state *s) {
  if (target <= at || !in_function(a, target))
    return; /* backward targets have been decoded already */
  for (int i = 0; i < a->pending_count; i++)
    if (a->pending[i].addr == target)
      return; /* the first branch to a target decides */
  if (a->pending_count == PENDING_MAX) {
    /* Drop the targets already passed to make room. */
    int kept = 0;
    for (int i = 0; i < a->pending_count; i++)
      if (a->pending[i].addr > at)
        a->pending[kept++] = a->pending[i];
    a->pending_count = kept;
    if (kept == PENDING_MAX)
      return;
  }
  a->pending[a->pending_count].addr = target;
  a->pending[a->pending_count].state = *s;
  a->pending_count++;
}

static const frame_state *pending_find(const analysis *a, uint64_t addr) {
  for (int i = 0; i < a->pending_count; i++)
    if (a->pending[i].addr == addr)
      return &a->pending[i].state;
  return NULL;
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

int knit_x86_64_analyze(size_t cs_handle, void *insn_buf, const uint8_t *code,
                        size_t len, uint64_t addr, knit_recipe *out, int max) {
  cs_insn *insn = insn_buf;
  analysis a;
  a.handle = (csh)cs_handle;
  a.func_start = addr;
  a.func_end = addr + len;
  a.out = out;
  a.max = max;
  a.count = 0;
  a.pending_count = 0;

  frame_state cur = entry_state;
  if (is_plt0(code, len))
    cur.sp_depth = 16;
  canonical_search canonical = {.state = cur};
  bool path_ended = false;
  int decoded = 0;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = addr;
  while (left > 0) {
    uint64_t at = pc;
    bool resumed = path_ended;
    if (resumed) {
      const frame_state *branch_state = pending_find(&a, at);
      cur = branch_state ? *branch_state : canonical.state;
    }
    if (!cs_disasm_iter(a.handle, &p, &left, &pc, insn)) {
      /* Not an instruction Capstone knows (data, or too new): cover the
       * byte with a flagged guess and try again at the next one. */
      frame_state guess = cur;
      guess.uncertain = true;
      emit(&a, &guess, at, at + 1);
      p++;
      left--;
      pc++;
      continue;
    }
    decoded++;
    if (is_return(insn->id)) {
      /* At a return the return address is at [rsp] and the callee-saved
       * rbp is back, whatever came before: this also recovers from an
       * earlier unmodeled change of rsp. */
      cur = entry_state;
    }
    emit(&a, &cur, at, pc);

    frame_state before = cur;
    uint64_t target = 0;
    flow_kind flow = model_insn(&a, &cur, insn, &target);
    canonical_step(&canonical, &before, &cur, insn, flow);
    if (flow == FLOW_BRANCH || flow == FLOW_JUMP)
      pending_add(&a, at, target, &cur);
    /* Alignment padding after the end of a path is never executed: the
     * code after it is still entered only by branches. */
    bool padding = insn->id == X86_INS_NOP || insn->id == X86_INS_INT3;
    path_ended = flow == FLOW_END || flow == FLOW_JUMP || (resumed && padding);
  }
  return decoded == 0 ? -1 : a.count;
}
