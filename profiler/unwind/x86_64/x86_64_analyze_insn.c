/* The x86_64 analyzer's model of single instructions: how each one changes
 * the frame state. Pushes, pops, moves and arithmetic on rsp and rbp, leave
 * and enter, and the register that holds the CFA through a DRAP
 * realignment (set, saved, clobbered, reloaded). Each instruction is first
 * classified into a record of what the model reads of it (once per
 * analysis), then applied to a state (on every pass). The driver is
 * unwind/analyze.c; x86_64_analyze.c says what is modelled and why. */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/x86_64/x86_64_analyze_internal.h"

static bool is_rsp(unsigned reg)
{
  return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP || reg == X86_REG_SPL;
}

static bool is_rbp(unsigned reg)
{
  return reg == X86_REG_RBP || reg == X86_REG_EBP || reg == X86_REG_BP || reg == X86_REG_BPL;
}

static bool op_is_reg(const x86_operand *op, x86_reg reg)
{
  return op->type == X86_OP_REG && op->reg == reg;
}

/* The 64-bit general registers (not rsp or rbp) and their parts: a write
 * to eax, ax or al changes rax too. */
static const x86_reg parts[][5] = {
    {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH},
    {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH},
    {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH},
    {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH},
    {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL},
    {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL},
    {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B},
    {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B},
    {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B},
    {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B},
    {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B},
    {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B},
    {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B},
    {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B},
};

/* The row of parts that reg names or is part of, or -1. */
static int gpr_row(unsigned reg)
{
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    for (size_t k = 0; k < 5; k++)
      if (parts[i][k] == reg)
        return (int)i;
  return -1;
}

/* The 64-bit general register (not rsp or rbp) that reg names or is part
 * of, or X86_REG_INVALID. */
static x86_reg gpr64(unsigned reg)
{
  int i = gpr_row(reg);
  return i < 0 ? X86_REG_INVALID : parts[i][0];
}

/* rsp changed in a way the model does not follow. That only matters when
 * the CFA is computed from rsp; a frame-pointer recipe stays right. */
static void lose_sp(frame_state *s)
{
  s->sp_known = false;
  if (!s->cfa_on_fp)
    s->uncertain = true;
}

/* rbp no longer holds the frame address (it was popped or overwritten):
 * the CFA must come from rsp again. */
static void lose_frame(frame_state *s)
{
  s->fp_is_frame = false;
  if (s->cfa_on_fp) {
    s->cfa_on_fp = false;
    if (!s->sp_known)
      s->uncertain = true;
  }
}

/* The registers a call may change (System V): a DRAP register among them
 * holds the CFA no more after a call. */
static bool call_clobbers(x86_reg reg64)
{
  switch (reg64) {
  case X86_REG_RAX:
  case X86_REG_RCX:
  case X86_REG_RDX:
  case X86_REG_RSI:
  case X86_REG_RDI:
  case X86_REG_R8:
  case X86_REG_R9:
  case X86_REG_R10:
  case X86_REG_R11: return true;
  default: return false;
  }
}

/* A general register was written: if it held the CFA, it does no more. */
static void drap_overwritten(frame_state *s, unsigned reg)
{
  if (s->drap_reg && gpr64(reg) == s->drap_reg)
    s->drap_reg = 0;
}

/* The word at A + slot was loaded into reg (a pop, a mov): the saved DRAP
 * register, reloaded, holds the CFA again. */
static void drap_loaded(frame_state *s, unsigned reg, int32_t slot)
{
  if (s->realigned && s->drap_saved && slot == s->drap_slot && gpr64(reg) == reg)
    s->drap_reg = (uint8_t)reg;
  else
    drap_overwritten(s, reg);
}

/* rsp was set from the DRAP register (lea rsp,[r10-8]; mov rsp,r10): the
 * stack is measured from the CFA again. What the realigned frame held
 * (rbp as its base, the caller's rbp in it) cannot be named from the CFA:
 * by then gcc's epilogue has restored rbp. */
static void drap_unwind_to(frame_state *s, int64_t disp)
{
  s->sp_depth = -(int32_t)disp;
  s->sp_known = true;
  if (!s->realigned)
    return;
  s->realigned = false;
  s->drap_saved = false;
  s->fp_is_frame = false;
  s->cfa_on_fp = false;
  if (s->fp_saved) {
    s->fp_saved = false;
    s->uncertain = true;
  }
}

/* and rsp,-N while a register holds the CFA and nothing of the frame is
 * on rbp or saved yet (gcc's DRAP prologue): depths count from the aligned
 * point from now on. Any other realignment loses rsp, which only a
 * frame-pointer CFA survives. */
static void model_realign(frame_state *s)
{
  if (s->drap_reg && s->sp_known && !s->cfa_on_fp && !s->fp_saved && !s->realigned) {
    s->realigned = true;
    s->sp_depth = 0;
    return;
  }
  lose_sp(s);
}

/* rbp is set to rsp + offset (mov rbp,rsp; lea rbp,[rsp+n]; enter). It is
 * the frame set-up, after which the CFA is computed from rbp, only when rbp
 * then points at the slot where the caller's rbp was just saved. Optimized
 * gcc code also uses rbp as a general register and copies rsp into it to
 * address a local buffer; the CFA stays on rsp then, as in gcc's CFI. */
static void set_frame(frame_state *s, int64_t offset)
{
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

static void push_bytes(frame_state *s, int32_t size, bool pushes_rbp)
{
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

static void pop_into_rbp(frame_state *s, int32_t slot)
{
  if (s->fp_saved && s->fp_slot == slot)
    s->fp_saved = false; /* the caller's rbp is back in rbp */
  lose_frame(s);
}

static void model_push(frame_state *s, const x86_record *x)
{
  int32_t size = x->op_count > 0 && x->op[0].size ? x->op[0].size : 8;
  bool pushes_rbp = x->op_count > 0 && op_is_reg(&x->op[0], X86_REG_RBP);
  if (pushes_rbp && !s->sp_known && !s->fp_saved)
    s->uncertain = true; /* the save slot cannot be placed */
  push_bytes(s, size, pushes_rbp);
  /* The DRAP register saved in the realigned frame: the CFA is there. */
  if (s->realigned && s->drap_reg && !s->drap_saved && s->sp_known && s->sp_depth <= INT16_MAX &&
      op_is_reg(&x->op[0], (x86_reg)s->drap_reg)) {
    s->drap_saved = true;
    s->drap_slot = (int16_t)-s->sp_depth;
  }
}

static void model_pop(frame_state *s, const x86_record *x)
{
  const x86_operand *op = &x->op[0];
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
    else if (known)
      drap_loaded(s, op->reg, slot);
    else
      drap_overwritten(s, op->reg);
  }
}

/* add/sub rsp: a constant moves the stack, anything else (alloca) loses it. */
static void model_add_sub_rsp(frame_state *s, const x86_record *x, bool is_sub)
{
  const x86_operand *src = &x->op[1];
  if (src->type != X86_OP_IMM) {
    lose_sp(s);
    return;
  }
  if (s->sp_known)
    s->sp_depth += (int32_t)(is_sub ? src->value : -src->value);
}

static void model_lea(frame_state *s, const x86_record *x)
{
  const x86_operand *dst = &x->op[0];
  const x86_operand *m = &x->op[1];
  bool simple = m->simple;
  if (op_is_reg(dst, X86_REG_RSP)) {
    if (simple && m->base == X86_REG_RSP && s->sp_known) {
      s->sp_depth -= (int32_t)m->value;
    } else if (simple && m->base == X86_REG_RBP && s->fp_is_frame) {
      s->sp_depth = s->fp_depth - (int32_t)m->value;
      s->sp_known = true;
    } else if (simple && s->drap_reg && m->base == s->drap_reg) {
      drap_unwind_to(s, m->value);
    } else {
      lose_sp(s);
    }
  } else if (op_is_reg(dst, X86_REG_RBP)) {
    if (simple && m->base == X86_REG_RSP)
      set_frame(s, m->value);
    else
      lose_frame(s);
  } else if (dst->type == X86_OP_REG) {
    /* lea r10,[rsp+n] with rsp+n the CFA: the first step of gcc's DRAP
     * prologue (and, as often, the address of a variadic function's stack
     * arguments: only a realignment that follows makes it a DRAP). */
    if (simple && m->base == X86_REG_RSP && s->sp_known && !s->realigned &&
        m->value == s->sp_depth && gpr64(dst->reg) == dst->reg)
      s->drap_reg = (uint8_t)dst->reg;
    else
      drap_overwritten(s, dst->reg);
  }
}

/* mov reg,[rbp+n] or [rsp+n] of the saved DRAP register: reloaded (gcc's
 * epilogue, after calls took the register). False for any other mov into
 * a general register, which the caller models as any write. */
static bool model_drap_reload(frame_state *s, const x86_record *x)
{
  const x86_operand *dst = &x->op[0], *src = &x->op[1];
  if (!s->realigned || !s->drap_saved || dst->type != X86_OP_REG || src->type != X86_OP_MEM ||
      gpr64(dst->reg) != dst->reg || !src->simple)
    return false;
  int32_t slot;
  if (src->base == X86_REG_RBP && s->fp_is_frame)
    slot = (int32_t)src->value - s->fp_depth;
  else if (src->base == X86_REG_RSP && s->sp_known)
    slot = (int32_t)src->value - s->sp_depth;
  else
    return false;
  if (slot != s->drap_slot)
    return false;
  s->drap_reg = (uint8_t)dst->reg;
  return true;
}

/* ---- A frame moved to memory the caller provides (frame_state) ---- */

static void forget_relocation_base(frame_state *s)
{
  s->reloc_reg = 0;
  s->reloc_ra_stored = false;
  s->reloc_fp_stored = false;
}

/* General registers were written (any part of them): a copy of the return
 * address, or the base the frame was stored relative to, is gone. */
static void relocation_forget(frame_state *s, uint16_t writes_gpr)
{
  int row;
  if (s->ra_copy_reg && (row = gpr_row(s->ra_copy_reg)) >= 0 && (writes_gpr & (1u << row)))
    s->ra_copy_reg = 0;
  if (s->reloc_reg && (row = gpr_row(s->reloc_reg)) >= 0 && (writes_gpr & (1u << row)))
    forget_relocation_base(s);
}

/* A call may change every caller-saved register. */
static void relocation_call(frame_state *s)
{
  if (s->ra_copy_reg && call_clobbers((x86_reg)s->ra_copy_reg))
    s->ra_copy_reg = 0;
  if (s->reloc_reg && call_clobbers((x86_reg)s->reloc_reg))
    forget_relocation_base(s);
}

/* rbp still holds the caller's value: nothing saved or built on it yet
 * (it is callee-saved: code that uses it saves it first). */
static bool rbp_is_callers(const frame_state *s)
{
  return !s->fp_saved && !s->fp_is_frame && !s->realigned;
}

/* mov reg,[rsp+n] of the return address's slot makes reg a copy of it;
 * mov [base+n],reg of that copy, or of rbp while it is the caller's, stores
 * part of a frame relative to base. */
static void relocation_mov(frame_state *s, const x86_record *x)
{
  const x86_operand *dst = &x->op[0], *src = &x->op[1];
  if (dst->type == X86_OP_REG && src->type == X86_OP_MEM && src->simple &&
      src->base == X86_REG_RSP && s->sp_known && !s->realigned && src->value == s->sp_depth - 8 &&
      gpr64(dst->reg) == dst->reg) {
    s->ra_copy_reg = (uint8_t)dst->reg;
    return;
  }
  if (dst->type != X86_OP_MEM || !dst->simple || src->type != X86_OP_REG ||
      gpr64(dst->base) != dst->base || dst->value < 0 || dst->value > INT8_MAX)
    return;
  bool stores_ra = s->ra_copy_reg && src->reg == s->ra_copy_reg;
  bool stores_fp = src->reg == X86_REG_RBP && rbp_is_callers(s);
  if (!stores_ra && !stores_fp)
    return;
  if (s->reloc_reg != dst->base) {
    forget_relocation_base(s);
    s->reloc_reg = (uint8_t)dst->base;
  }
  if (stores_ra) {
    s->reloc_ra_stored = true;
    s->reloc_ra = (int8_t)dst->value;
  } else {
    s->reloc_fp_stored = true;
    s->reloc_fp = (int8_t)dst->value;
  }
}

/* mov rbp,reg with the return address's copy and the caller's rbp stored
 * relative to reg: rbp is the base of the moved frame, whose CFA lies just
 * above the copy (where the return through it leaves rsp). rsp is no
 * fixed distance from that CFA: the recipe goes by rbp. */
static bool relocate_frame(frame_state *s, const x86_operand *src)
{
  if (src->type != X86_OP_REG || !s->reloc_reg || src->reg != s->reloc_reg || !s->reloc_ra_stored ||
      !s->reloc_fp_stored || s->reloc_fp == s->reloc_ra || !rbp_is_callers(s))
    return false;
  int32_t depth = s->reloc_ra + 8;
  s->fp_is_frame = true;
  s->cfa_on_fp = true;
  s->fp_depth = depth;
  s->fp_saved = true;
  s->fp_slot = s->reloc_fp - depth;
  s->sp_known = false;
  s->ra_copy_reg = 0;
  forget_relocation_base(s);
  return true;
}

/* mov rbp,[rbp+n] or [rsp+n]: the caller's rbp reloaded when the word is
 * where it was saved (a relocated frame's epilogue), which the CFI calls
 * restored; any other load makes rbp a general register. */
static void load_rbp(frame_state *s, const x86_operand *src)
{
  int32_t slot = 1; /* never a slot */
  if (src->type == X86_OP_MEM && src->simple && src->base == X86_REG_RBP && s->fp_is_frame &&
      !s->realigned)
    slot = (int32_t)src->value - s->fp_depth;
  else if (src->type == X86_OP_MEM && src->simple && src->base == X86_REG_RSP && s->sp_known &&
           !s->realigned)
    slot = (int32_t)src->value - s->sp_depth;
  pop_into_rbp(s, slot);
}

static void model_mov(frame_state *s, const x86_record *x)
{
  const x86_operand *dst = &x->op[0], *src = &x->op[1];
  if (op_is_reg(dst, X86_REG_RBP) && op_is_reg(src, X86_REG_RSP)) {
    set_frame(s, 0);
  } else if (op_is_reg(dst, X86_REG_RSP) && op_is_reg(src, X86_REG_RBP) && s->fp_is_frame) {
    s->sp_depth = s->fp_depth;
    s->sp_known = true;
  } else if (op_is_reg(dst, X86_REG_RSP) && s->drap_reg && op_is_reg(src, (x86_reg)s->drap_reg)) {
    drap_unwind_to(s, 0);
  } else if (dst->type == X86_OP_REG && is_rsp(dst->reg)) {
    lose_sp(s); /* a stack switch */
  } else if (op_is_reg(dst, X86_REG_RBP) && relocate_frame(s, src)) {
    return;
  } else if (op_is_reg(dst, X86_REG_RBP)) {
    load_rbp(s, src);
  } else if (dst->type == X86_OP_REG && is_rbp(dst->reg)) {
    lose_frame(s);
  }
}

static void model_leave(frame_state *s)
{
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

static void model_enter(frame_state *s, const x86_record *x)
{
  if (x->op_count < 2 || x->op[1].value != 0) {
    /* Nested frames copy frame pointers around: not modeled. */
    s->uncertain = true;
    s->sp_known = false;
    lose_frame(s);
    return;
  }
  push_bytes(s, 8, true);
  set_frame(s, 0);
  if (s->sp_known)
    s->sp_depth += (int32_t)x->op[0].value;
}

/* Any other instruction: if it writes rsp or rbp, the model loses track. */
static void model_other(frame_state *s, const x86_record *x)
{
  if (x->writes_sp)
    lose_sp(s);
  if (x->writes_fp)
    lose_frame(s);
  /* A general register was written: if it held the CFA, it does no more. */
  int row = s->drap_reg ? gpr_row(s->drap_reg) : -1;
  if (row >= 0 && (x->writes_gpr & (1u << row)))
    s->drap_reg = 0;
}

/* ---- Classifying: what the model reads of an instruction ---- */

static void classify_operand(const cs_x86_op *op, x86_operand *out)
{
  out->type = (uint8_t)op->type;
  out->size = op->size;
  if (op->type == X86_OP_REG) {
    out->reg = (uint16_t)op->reg;
  } else if (op->type == X86_OP_IMM) {
    out->value = op->imm;
  } else if (op->type == X86_OP_MEM) {
    out->base = (uint16_t)op->mem.base;
    out->value = op->mem.disp;
    out->simple = op->mem.index == X86_REG_INVALID && op->mem.segment == X86_REG_INVALID;
  }
}

void knit_x86_64_classify(size_t cs_handle, const cs_insn *insn, void *rec)
{
  x86_record *x = rec;
  memset(x, 0, sizeof *x);
  const cs_x86 *d = &insn->detail->x86;
  x->id = (uint16_t)insn->id;
  x->op_count = d->op_count;
  classify_operand(&d->operands[0], &x->op[0]);
  classify_operand(&d->operands[1], &x->op[1]);
  x->jump_group = cs_insn_group((csh)cs_handle, insn, X86_GRP_JUMP);
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (cs_regs_access((csh)cs_handle, insn, read, &nread, written, &nwritten) == CS_ERR_OK) {
    for (uint8_t i = 0; i < nwritten; i++) {
      int row = gpr_row(written[i]);
      if (is_rsp(written[i]))
        x->writes_sp = true;
      else if (is_rbp(written[i]))
        x->writes_fp = true;
      else if (row >= 0)
        x->writes_gpr |= (uint16_t)(1u << row);
    }
  }
  if (insn->id == X86_INS_NOP || insn->id == X86_INS_INT3)
    x->head.flags |= KNIT_INSN_PADDING;
  if (insn->id == X86_INS_RET) /* far returns pop more than rip */
    x->head.flags |= KNIT_INSN_RETURN;
  if (insn->id == X86_INS_CALL)
    x->head.flags |= KNIT_INSN_CALL | KNIT_INSN_BREAKS_RUN;
  if (d->op_count == 1 && d->operands[0].type == X86_OP_IMM && insn->id != X86_INS_CALL &&
      x->jump_group) {
    x->head.flags |= KNIT_INSN_JUMPS;
    x->head.jump_target = (uint64_t)d->operands[0].imm;
  }
}

/* ---- Applying a record to a state ---- */

knit_flow_kind knit_x86_64_apply(knit_analysis *an, void *state, const void *rec, uint64_t at,
                                 uint64_t *target)
{
  (void)at;
  frame_state *s = state;
  const x86_record *x = rec;
  const x86_operand *op0 = &x->op[0];
  if ((s->ra_copy_reg || s->reloc_reg) && x->writes_gpr)
    relocation_forget(s, x->writes_gpr);
  switch (x->id) {
  case X86_INS_PUSH: model_push(s, x); return FLOW_NEXT;
  case X86_INS_POP: model_pop(s, x); return FLOW_NEXT;
  case X86_INS_PUSHF:
  case X86_INS_PUSHFQ: push_bytes(s, x->id == X86_INS_PUSHF ? 2 : 8, false); return FLOW_NEXT;
  case X86_INS_POPF:
  case X86_INS_POPFQ:
    if (s->sp_known)
      s->sp_depth -= x->id == X86_INS_POPF ? 2 : 8;
    return FLOW_NEXT;
  case X86_INS_SUB:
  case X86_INS_ADD:
    if (x->op_count == 2 && op_is_reg(op0, X86_REG_RSP)) {
      model_add_sub_rsp(s, x, x->id == X86_INS_SUB);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_AND:
    if (x->op_count == 2 && op_is_reg(op0, X86_REG_RSP)) {
      model_realign(s);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_LEA:
    /* Into rsp, rbp or a general register; esp or ebp (never in code
     * that keeps a frame) goes to model_other. */
    if (x->op_count == 2 && op0->type == X86_OP_REG && x->op[1].type == X86_OP_MEM &&
        (op0->reg == X86_REG_RSP || op0->reg == X86_REG_RBP ||
         (!is_rsp(op0->reg) && !is_rbp(op0->reg)))) {
      model_lea(s, x);
      return FLOW_NEXT;
    }
    break;
  case X86_INS_MOV:
    if (x->op_count == 2 && op0->type == X86_OP_REG && (is_rsp(op0->reg) || is_rbp(op0->reg))) {
      model_mov(s, x);
      return FLOW_NEXT;
    }
    if (x->op_count == 2 && model_drap_reload(s, x))
      return FLOW_NEXT;
    if (x->op_count == 2)
      relocation_mov(s, x);
    break;
  case X86_INS_LEAVE: model_leave(s); return FLOW_NEXT;
  case X86_INS_ENTER: model_enter(s, x); return FLOW_NEXT;
  case X86_INS_CALL:
    /* The callee pops its own return address: no net change, but it may
     * change the caller-saved registers. */
    if (s->drap_reg && call_clobbers((x86_reg)s->drap_reg))
      s->drap_reg = 0;
    relocation_call(s);
    return FLOW_NEXT;
  case X86_INS_RET:
  case X86_INS_RETF:
  case X86_INS_RETFQ:
  case X86_INS_LJMP:
  case X86_INS_UD2:
  case X86_INS_UD2B:
  case X86_INS_HLT:
  case X86_INS_INT3: return FLOW_END;
  case X86_INS_JMP:
    /* A direct jump inside the function continues the path there; one to
     * elsewhere is a tail call; an indirect one (switch table or tail call)
     * ends the path, and what follows resumes as after a ret. */
    if (x->op_count == 1 && op0->type == X86_OP_IMM &&
        knit_analysis_in_function(an, (uint64_t)op0->value)) {
      *target = (uint64_t)op0->value;
      return FLOW_JUMP;
    }
    return FLOW_END;
  default:
    if (x->jump_group) {
      /* Conditional jumps, jrcxz and loop: all fall through or branch. */
      if (x->op_count == 1 && op0->type == X86_OP_IMM) {
        *target = (uint64_t)op0->value;
        return FLOW_BRANCH;
      }
      return FLOW_NEXT;
    }
    break;
  }
  model_other(s, x);
  return FLOW_NEXT;
}
