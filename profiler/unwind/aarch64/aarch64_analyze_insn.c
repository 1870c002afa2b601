/* The aarch64 analyzer's model of single instructions: how each one changes
 * the frame state. Loads and stores of the frame record and of callee-saved
 * registers, sp and x29 arithmetic, constants in registers. Each
 * instruction is first classified into a record of what the model reads of
 * it (once per analysis), then applied to a state (on every pass). The
 * driver is unwind/analyze.c; aarch64_analyze.c says what is modelled and
 * why. */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/aarch64/aarch64_analyze_internal.h"

static bool is_sp(unsigned reg)
{
  return reg == ARM64_REG_SP || reg == ARM64_REG_WSP;
}

static bool is_fp(unsigned reg)
{
  return reg == ARM64_REG_X29 || reg == ARM64_REG_W29;
}

static bool is_lr(unsigned reg)
{
  return reg == ARM64_REG_X30 || reg == ARM64_REG_W30;
}

/* The index of a general register (x or w view), or -1. */
static int gpr_index(unsigned reg)
{
  if (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28)
    return (int)(reg - ARM64_REG_X0);
  if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
    return (int)(reg - ARM64_REG_W0);
  if (reg == ARM64_REG_X29)
    return 29;
  if (reg == ARM64_REG_X30)
    return 30;
  return -1;
}

static void const_forget(a64_model *a, unsigned reg)
{
  int i = gpr_index(reg);
  if (i >= 0)
    a->const_known &= ~(1u << i);
}

static void const_set(a64_model *a, unsigned reg, int64_t value)
{
  int i = gpr_index(reg);
  if (i < 0)
    return;
  /* A write of the w view clears the upper half. */
  if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
    value = (int64_t)(uint32_t)value;
  a->const_value[i] = value;
  a->const_known |= 1u << i;
}

/* An immediate operand with its optional "lsl #12" (or movk's lsl #16..). */
static bool imm_value(const a64_operand *op, int64_t *v)
{
  if (op->type != ARM64_OP_IMM)
    return false;
  if (op->shift_type == ARM64_SFT_LSL)
    *v = (int64_t)((uint64_t)op->imm << op->shift_value);
  else if (op->shift_type == ARM64_SFT_INVALID)
    *v = op->imm;
  else
    return false;
  return true;
}

/* An immediate, or a 64-bit register known to hold a constant. */
static bool const_value(const a64_model *a, const a64_operand *op, int64_t *v)
{
  if (imm_value(op, v))
    return true;
  if (op->type != ARM64_OP_REG)
    return false;
  int i = gpr_index(op->reg);
  if (i < 0 || !(a->const_known & (1u << i)) ||
      (op->reg >= ARM64_REG_W0 && op->reg <= ARM64_REG_W30))
    return false;
  if (op->ext != ARM64_EXT_INVALID && op->ext != ARM64_EXT_UXTX && op->ext != ARM64_EXT_SXTX)
    return false;
  uint64_t x = (uint64_t)a->const_value[i];
  if (op->shift_type == ARM64_SFT_LSL)
    x <<= op->shift_value;
  else if (op->shift_type != ARM64_SFT_INVALID)
    return false;
  *v = (int64_t)x;
  return true;
}

/* sp changed in a way the model does not follow. That only matters when
 * the CFA is computed from sp; an x29 recipe stays right. Under a frame
 * record it is also the sign that gcc's CFI uses x29 (alloca). */
static void lose_sp(a64_model *a, frame_state *s)
{
  s->sp_known = false;
  if (s->fp_is_frame)
    a->wants_fp = true;
  if (!s->cfa_on_fp)
    s->uncertain = true;
}

/* x29 no longer holds the frame address: the CFA must come from sp. */
static void lose_frame(frame_state *s)
{
  s->fp_is_frame = false;
  if (s->cfa_on_fp) {
    s->cfa_on_fp = false;
    if (!s->sp_known)
      s->uncertain = true;
  }
}

/* x29 = sp + offset. It becomes the frame pointer only when it then points
 * at the saved caller's x29 (the frame record); otherwise optimized code
 * uses x29 as a general register. */
static void set_frame(const a64_model *a, frame_state *s, int64_t offset)
{
  if (!s->sp_known) {
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
  if (a->cfa_from_fp)
    s->cfa_on_fp = true;
}

/* sp = x29 + offset: known again when x29 is the frame. */
static void sp_from_fp(a64_model *a, frame_state *s, int64_t offset)
{
  a->wants_fp = true;
  if (!s->fp_is_frame) {
    lose_sp(a, s);
    return;
  }
  s->sp_depth = s->fp_depth - (int32_t)offset;
  s->sp_known = true;
  /* gcc's epilogue moves the CFA back to sp here, unless the frame record
   * was pushed with the frame and its pop (ldp x29, x30, [sp], #n) will
   * do that. */
  if (s->cfa_on_fp && !s->record_pushed)
    s->cfa_on_fp = false;
}

/* A store of reg at CFA + slot (placed: the slot is known). The first store
 * of x29 before it becomes a frame saves the caller's value; the first
 * store of x30 saves the return address. Stores of x29/x30 elsewhere than
 * the stack (setjmp's buffer) save nothing. */
static void store_reg(frame_state *s, unsigned reg, bool on_stack, bool placed, int32_t slot)
{
  if (!on_stack)
    return;
  if (reg == ARM64_REG_X29 && !s->fp_saved && !s->fp_is_frame) {
    if (placed) {
      s->fp_saved = true;
      s->fp_slot = slot;
    } else {
      s->uncertain = true;
    }
  } else if (reg == ARM64_REG_X30 && !s->ra_saved) {
    if (placed) {
      s->ra_saved = true;
      s->ra_slot = slot;
    } else {
      s->uncertain = true;
    }
  }
}

/* A load into reg from CFA + slot. Loading x29/x30 back from their slots
 * restores the caller's values; the slots stay valid until sp moves above
 * them, and gcc's CFI keeps naming them until then (see
 * finish_restores), so the recipe does too. Loading x30 from anywhere
 * else while the return address is still in it loses the return address. */
static void load_reg(a64_model *a, frame_state *s, unsigned reg, bool placed, int32_t slot)
{
  if (is_fp(reg)) {
    if (reg == ARM64_REG_X29 && placed && s->fp_saved && s->fp_slot == slot)
      s->fp_reloaded = true;
    lose_frame(s);
  } else if (is_lr(reg)) {
    if (reg == ARM64_REG_X30 && placed && s->ra_saved && s->ra_slot == slot)
      s->ra_reloaded = true;
    else if (!s->ra_saved)
      s->uncertain = true;
  }
  const_forget(a, reg);
}

/* Completes the restores of x29 and x30 that were reloaded. */
void knit_aarch64_complete_restores(frame_state *s)
{
  if (s->fp_reloaded)
    s->fp_saved = false;
  if (s->ra_reloaded)
    s->ra_saved = false;
  s->fp_reloaded = s->ra_reloaded = false;
}

/* Completes the restores of x29 and x30 whose slots sp has moved past:
 * from there on the registers are the only copies. */
static void finish_restores(frame_state *s)
{
  if (!s->sp_known)
    return;
  int32_t sp = -s->sp_depth;
  if (s->fp_reloaded && s->fp_slot < sp) {
    s->fp_saved = false;
    s->fp_reloaded = false;
  }
  if (s->ra_reloaded && s->ra_slot < sp) {
    s->ra_saved = false;
    s->ra_reloaded = false;
  }
  if (!s->fp_reloaded && !s->ra_reloaded)
    s->restore_soon = false;
}

/* Loads and stores (single and pair; offset, pre-index and post-index).
 * Capstone gives the transferred registers first, then the memory operand,
 * then, for post-index, the increment as an immediate. */
static void model_mem(a64_model *a, frame_state *s, const a64_record *d, bool is_store)
{
  int m = d->mem_at;
  if (m < 0)
    return; /* pc-relative literal load: writes only its register */
  const a64_operand *mem = &d->op[m];
  bool post = d->post_index;
  bool on_stack = is_sp(mem->reg) || (is_fp(mem->reg) && s->fp_is_frame);
  /* Locals addressed through x29: gcc does that only when the function
   * needs its frame pointer, and then its CFI has the CFA on x29. */
  if (is_fp(mem->reg) && s->fp_is_frame && m > 0 &&
      !(d->op[0].type == ARM64_OP_REG && d->op[0].reg == ARM64_REG_X29))
    a->wants_fp = true;
  bool placed = mem->index == ARM64_REG_INVALID &&
                ((is_sp(mem->reg) && s->sp_known) || (is_fp(mem->reg) && s->fp_is_frame));
  int32_t base = is_sp(mem->reg) ? -s->sp_depth : -s->fp_depth;
  int32_t addr = base + (post ? 0 : mem->imm);
  bool fp_was_saved = s->fp_saved;
  for (int i = 0; i < m; i++) {
    const a64_operand *op = &d->op[i];
    if (op->type != ARM64_OP_REG)
      continue;
    /* x29 and x30 are 8 bytes, and so is the other register of their pair. */
    int32_t slot = addr + 8 * i;
    if (is_store)
      store_reg(s, op->reg, on_stack, placed, slot);
    else
      load_reg(a, s, op->reg, placed, slot);
  }
  if (d->writeback) {
    int64_t delta = post ? d->post_imm : mem->imm;
    if (is_sp(mem->reg)) {
      if (s->sp_known)
        s->sp_depth -= (int32_t)delta;
    } else if (is_fp(mem->reg)) {
      lose_frame(s);
    }
    const_forget(a, mem->reg);
  }
  if (is_store && !fp_was_saved && s->fp_saved && d->writeback && !post && is_sp(mem->reg))
    s->record_pushed = true;
  if (!is_store && (s->fp_reloaded || s->ra_reloaded) && is_sp(mem->reg) && !d->writeback &&
      mem->imm == 0)
    s->restore_soon = true;
  finish_restores(s);
}

/* add/sub with sp or x29 as destination; sign is +1 for add, -1 for sub. */
static void model_add_sub(a64_model *a, frame_state *s, const a64_record *d, int sign)
{
  const a64_operand *dst = &d->op[0], *src = &d->op[1];
  int64_t v = 0;
  bool known = d->op_count == 3 && src->type == ARM64_OP_REG && const_value(a, &d->op[2], &v);
  if (is_sp(dst->reg)) {
    if (known && is_sp(src->reg)) {
      if (s->sp_known)
        s->sp_depth -= (int32_t)(sign * v);
      finish_restores(s);
    } else if (known && src->reg == ARM64_REG_X29) {
      sp_from_fp(a, s, sign * v);
    } else {
      lose_sp(a, s);
    }
  } else if (dst->reg == ARM64_REG_X29 && known && is_sp(src->reg)) {
    set_frame(a, s, sign * v);
  } else {
    lose_frame(s);
  }
}

static void model_mov(a64_model *a, frame_state *s, const a64_record *d)
{
  const a64_operand *dst = &d->op[0], *src = &d->op[1];
  int64_t v;
  if (is_sp(dst->reg)) {
    if (src->type == ARM64_OP_REG && src->reg == ARM64_REG_X29)
      sp_from_fp(a, s, 0);
    else
      lose_sp(a, s);
  } else if (is_fp(dst->reg)) {
    if (dst->reg == ARM64_REG_X29 && src->type == ARM64_OP_REG && is_sp(src->reg))
      set_frame(a, s, 0);
    else
      lose_frame(s);
  } else if (is_lr(dst->reg)) {
    if (!s->ra_saved)
      s->uncertain = true;
  } else if (const_value(a, src, &v)) {
    const_set(a, dst->reg, v);
    return;
  }
  const_forget(a, dst->reg);
}

/* movz, movn, movk: the forms gcc builds large frame sizes with. */
static void model_mov_wide(a64_model *a, frame_state *s, const a64_record *d)
{
  const a64_operand *dst = &d->op[0];
  int64_t v;
  if (is_sp(dst->reg) || is_fp(dst->reg) || is_lr(dst->reg) || d->op_count != 2 ||
      !imm_value(&d->op[1], &v)) {
    if (is_fp(dst->reg))
      lose_frame(s);
    else if (is_lr(dst->reg) && !s->ra_saved)
      s->uncertain = true;
    const_forget(a, dst->reg);
    return;
  }
  int i = gpr_index(dst->reg);
  if (d->id == ARM64_INS_MOVZ) {
    const_set(a, dst->reg, v);
  } else if (d->id == ARM64_INS_MOVN) {
    const_set(a, dst->reg, ~v);
  } else if (i >= 0 && (a->const_known & (1u << i))) {
    unsigned shift = d->op[1].shift_type == ARM64_SFT_LSL ? d->op[1].shift_value : 0;
    uint64_t mask = (uint64_t)0xffff << shift;
    uint64_t x = ((uint64_t)a->const_value[i] & ~mask) | ((uint64_t)v & mask);
    const_set(a, dst->reg, (int64_t)x);
  } else {
    const_forget(a, dst->reg);
  }
}

/* Any other instruction: what it writes is no longer a known constant, and
 * a write of sp, x29 or an unsaved x30 loses track of the frame. */
static void model_other(a64_model *a, frame_state *s, const a64_record *d)
{
  /* In the order Capstone lists them: losing sp first notes whether x29
   * was the frame still (wants_fp). */
  if ((d->writes & A64_WRITES_SP) && (d->writes & A64_SP_FIRST))
    lose_sp(a, s);
  if (d->writes & A64_WRITES_FP)
    lose_frame(s);
  if ((d->writes & A64_WRITES_SP) && !(d->writes & A64_SP_FIRST))
    lose_sp(a, s);
  if ((d->writes & A64_WRITES_LR) && !s->ra_saved)
    s->uncertain = true;
  a->const_known &= ~d->forget;
}

/* x29, while it is the frame, used as a source: the address of a local
 * or __builtin_frame_address. As with locals addressed through x29, gcc
 * does that only in functions whose CFI has the CFA on x29. */
static void note_frame_use(a64_model *a, const frame_state *s, const a64_record *d)
{
  if (s->fp_is_frame && d->op_count >= 2 && d->op[1].type == ARM64_OP_REG &&
      d->op[1].reg == ARM64_REG_X29 && !(d->op[0].type == ARM64_OP_REG && is_sp(d->op[0].reg)))
    a->wants_fp = true;
}

/* ---- Classifying: what the model reads of an instruction ---- */

static void classify_operand(const cs_arm64_op *op, a64_operand *out)
{
  out->type = (uint8_t)op->type;
  out->shift_type = (uint8_t)op->shift.type;
  out->shift_value = (uint8_t)op->shift.value;
  out->ext = (uint8_t)op->ext;
  if (op->type == ARM64_OP_REG) {
    out->reg = (uint16_t)op->reg;
  } else if (op->type == ARM64_OP_IMM) {
    out->imm = op->imm;
  } else if (op->type == ARM64_OP_MEM) {
    out->reg = (uint16_t)op->mem.base;
    out->index = (uint16_t)op->mem.index;
    out->imm = op->mem.disp;
  }
}

static uint32_t gpr_bit(unsigned reg)
{
  int i = gpr_index(reg);
  return i < 0 ? 0 : 1u << i;
}

void knit_aarch64_classify(size_t cs_handle, const cs_insn *insn, void *rec)
{
  a64_record *d = rec;
  memset(d, 0, sizeof *d);
  const cs_arm64 *c = &insn->detail->arm64;
  d->id = (uint16_t)insn->id;
  d->op_count = c->op_count;
  d->cc = (uint8_t)c->cc;
  d->writeback = c->writeback;
  for (int i = 0; i < A64_OPERANDS; i++)
    classify_operand(&c->operands[i], &d->op[i]);
  /* The memory operand (the transferred registers come before it; for
   * post-index, the increment as an immediate after it). */
  d->mem_at = -1;
  for (int i = 0; i < c->op_count; i++)
    if (c->operands[i].type == ARM64_OP_MEM) {
      d->mem_at = (int8_t)(i < A64_OPERANDS ? i : -1);
      break;
    }
  if (d->mem_at >= 0 && c->writeback && d->mem_at + 1 < c->op_count &&
      c->operands[d->mem_at + 1].type == ARM64_OP_IMM) {
    d->post_index = true;
    d->post_imm = c->operands[d->mem_at + 1].imm;
  }
  for (int i = 0; i < c->op_count && c->operands[i].type == ARM64_OP_REG; i++)
    d->load_forget |= gpr_bit(c->operands[i].reg);
  /* The branch target: the last immediate operand. */
  if (c->op_count > 0 && c->operands[c->op_count - 1].type == ARM64_OP_IMM) {
    d->has_target = true;
    d->target = (uint64_t)c->operands[c->op_count - 1].imm;
  }
  /* A load from the stack: part of an epilogue's run of restores. */
  if (insn->id == ARM64_INS_LDP || insn->id == ARM64_INS_LDR) {
    for (int i = 0; i < c->op_count; i++)
      if (c->operands[i].type == ARM64_OP_MEM) {
        d->stack_load = is_sp(c->operands[i].mem.base);
        break;
      }
  }
  /* add sp, sp, #n: the instruction that frees a frame. */
  d->frees_stack = insn->id == ARM64_INS_ADD && c->op_count == 3 &&
                   c->operands[0].type == ARM64_OP_REG && is_sp(c->operands[0].reg) &&
                   c->operands[1].type == ARM64_OP_REG && is_sp(c->operands[1].reg);
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (cs_regs_access((csh)cs_handle, insn, read, &nread, written, &nwritten) == CS_ERR_OK) {
    for (uint8_t i = 0; i < nwritten; i++) {
      if (is_sp(written[i])) {
        if (!(d->writes & A64_WRITES_FP))
          d->writes |= A64_SP_FIRST;
        d->writes |= A64_WRITES_SP;
      } else if (is_fp(written[i])) {
        d->writes |= A64_WRITES_FP;
      } else if (is_lr(written[i])) {
        d->writes |= A64_WRITES_LR;
      }
      d->forget |= gpr_bit(written[i]);
    }
  }
  if (insn->id == ARM64_INS_NOP)
    d->head.flags |= KNIT_INSN_PADDING;
  /* A ret through x30 (the plain ret): the only return the state resets
   * at. */
  if (insn->id == ARM64_INS_RET && (c->op_count == 0 || (c->operands[0].type == ARM64_OP_REG &&
                                                         c->operands[0].reg == ARM64_REG_X30)))
    d->head.flags |= KNIT_INSN_RETURN;
  if (insn->id == ARM64_INS_BL || insn->id == ARM64_INS_BLR)
    d->head.flags |= KNIT_INSN_CALL | KNIT_INSN_BREAKS_RUN;
}

/* ---- Applying a record to a state ---- */

knit_flow_kind knit_aarch64_apply(knit_analysis *an, void *state, const void *rec, uint64_t at,
                                  uint64_t *target)
{
  (void)at;
  a64_model *a = an->model;
  frame_state *s = state;
  const a64_record *d = rec;
  const a64_operand *op0 = &d->op[0];
  switch (d->id) {
  case ARM64_INS_STP:
  case ARM64_INS_STNP:
  case ARM64_INS_STR:
  case ARM64_INS_STUR:
  case ARM64_INS_STRB:
  case ARM64_INS_STRH:
  case ARM64_INS_STURB:
  case ARM64_INS_STURH: model_mem(a, s, d, true); return FLOW_NEXT;
  case ARM64_INS_LDP:
  case ARM64_INS_LDNP:
  case ARM64_INS_LDPSW:
  case ARM64_INS_LDR:
  case ARM64_INS_LDUR:
  case ARM64_INS_LDRB:
  case ARM64_INS_LDRH:
  case ARM64_INS_LDRSB:
  case ARM64_INS_LDRSH:
  case ARM64_INS_LDRSW:
  case ARM64_INS_LDURB:
  case ARM64_INS_LDURH:
  case ARM64_INS_LDURSB:
  case ARM64_INS_LDURSH:
  case ARM64_INS_LDURSW:
    /* The loaded registers (x29/x30 included) are handled by model_mem;
     * the rest of what a load writes is its destination registers. */
    model_mem(a, s, d, false);
    a->const_known &= ~d->load_forget;
    return FLOW_NEXT;
  case ARM64_INS_ADD:
  case ARM64_INS_SUB:
    if (d->op_count >= 2 && op0->type == ARM64_OP_REG && (is_sp(op0->reg) || is_fp(op0->reg))) {
      model_add_sub(a, s, d, d->id == ARM64_INS_ADD ? 1 : -1);
      return FLOW_NEXT;
    }
    note_frame_use(a, s, d);
    break;
  case ARM64_INS_MOV:
    note_frame_use(a, s, d);
    if (d->op_count == 2 && op0->type == ARM64_OP_REG) {
      model_mov(a, s, d);
      return FLOW_NEXT;
    }
    break;
  case ARM64_INS_MOVZ:
  case ARM64_INS_MOVN:
  case ARM64_INS_MOVK:
    if (d->op_count >= 1 && op0->type == ARM64_OP_REG) {
      model_mov_wide(a, s, d);
      return FLOW_NEXT;
    }
    break;
  case ARM64_INS_BL:
  case ARM64_INS_BLR:
    /* The callee returns with sp as it was; the x30 a call writes is its
     * own return address, not this function's (which must be saved by now
     * in any function that returns). It may clobber x0..x18. */
    a->const_known = 0;
    return FLOW_NEXT;
  case ARM64_INS_RET:
  case ARM64_INS_BR:
  case ARM64_INS_BRK:
  case ARM64_INS_HLT:
  case ARM64_INS_ERET: return FLOW_END;
  case ARM64_INS_B:
    if (!d->has_target)
      return FLOW_END;
    *target = d->target;
    if (d->cc != ARM64_CC_INVALID && d->cc != ARM64_CC_AL && d->cc != ARM64_CC_NV)
      return FLOW_BRANCH;
    /* Unconditional: inside the function the path goes on there; a branch
     * elsewhere is a tail call. */
    return knit_analysis_in_function(an, *target) ? FLOW_JUMP : FLOW_END;
  case ARM64_INS_CBZ:
  case ARM64_INS_CBNZ:
  case ARM64_INS_TBZ:
  case ARM64_INS_TBNZ:
    if (!d->has_target)
      return FLOW_NEXT;
    *target = d->target;
    return FLOW_BRANCH;
  case ARM64_INS_NOP:
  case ARM64_INS_HINT:
    /* bti, paciasp, autiasp and friends. */
    return FLOW_NEXT;
  default: break;
  }
  model_other(a, s, d);
  return FLOW_NEXT;
}
