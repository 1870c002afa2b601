/* The x86_64 analyzer's model of single instructions: how each one changes
 * the frame state. Pushes, pops, moves and arithmetic on rsp and rbp, leave
 * and enter. The sweep over a function and the recipes it writes are in
 * x86_64_analyze.c; the file comment there says what is modelled and why. */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/x86_64/x86_64_analyze_internal.h"

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

bool knit_x86_64_is_return(unsigned id) {
  return id == X86_INS_RET; /* far returns pop more than rip */
}

bool knit_x86_64_in_function(const analysis *a, uint64_t target) {
  return target >= a->func_start && target < a->func_end;
}

/* Updates s for one instruction and says how control continues. */
flow_kind knit_x86_64_model_insn(analysis *a, frame_state *s, const cs_insn *insn,
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
        knit_x86_64_in_function(a, (uint64_t)op0->imm)) {
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
