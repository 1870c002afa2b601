/* Reading the CFI's rules with libdw, translating recipes into the same
 * vocabulary, comparing the two and printing them. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_rule.h"

void knit_audit_cfi_open(knit_audit_cfi *cfi, Elf *elf)
{
  memset(cfi, 0, sizeof *cfi);
  cfi->eh_frame = dwarf_getcfi_elf(elf);
  /* .debug_frame lives with the DWARF sections: a file without any has no
   * Dwarf handle, which is not an error. */
  cfi->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  if (cfi->dwarf)
    cfi->debug_frame = dwarf_getcfi(cfi->dwarf);
}

void knit_audit_cfi_close(knit_audit_cfi *cfi)
{
  /* The .debug_frame CFI belongs to its Dwarf handle and goes with it. */
  if (cfi->dwarf)
    dwarf_end(cfi->dwarf);
  if (cfi->eh_frame)
    dwarf_cfi_end(cfi->eh_frame);
  memset(cfi, 0, sizeof *cfi);
}

bool knit_audit_cfi_present(const knit_audit_cfi *cfi)
{
  return cfi->eh_frame != NULL || cfi->debug_frame != NULL;
}

/* Reads "at CFA + n" from the location libdw gives for an offset(N) rule. */
static bool cfa_slot(const Dwarf_Op *ops, size_t n, int64_t *offset)
{
  if (n < 1 || ops[0].atom != DW_OP_call_frame_cfa)
    return false;
  if (n == 1) {
    *offset = 0;
    return true;
  }
  if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
    *offset = (int64_t)ops[1].number; /* libdw stores negative offsets so */
    return true;
  }
  if (n == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus) {
    *offset = (int64_t)ops[1].number;
    return true;
  }
  return false;
}

/* A register-relative operation: bregN or bregx. */
static bool breg(const Dwarf_Op *op, int *reg, int64_t *offset)
{
  if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
    *reg = op->atom - DW_OP_breg0;
    *offset = (int64_t)op->number;
    return true;
  }
  if (op->atom == DW_OP_bregx) {
    *reg = (int)op->number;
    *offset = (int64_t)op->number2;
    return true;
  }
  return false;
}

/* Reads the CFA rule: register + offset (def_cfa), or the expressions
 * recipes can say: a load, *(reg + k) + offset (a back chain, a saved DRAP
 * register). */
static void read_cfa(Dwarf_Frame *frame, knit_frame_rule *out)
{
  Dwarf_Op *ops;
  size_t n;
  out->cfa_kind = KNIT_AUDIT_CFA_OTHER;
  if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0)
    return;
  int reg;
  int64_t off;
  if (!breg(&ops[0], &reg, &off))
    return;
  if (n == 1) {
    out->cfa_kind = KNIT_AUDIT_CFA_REG;
    out->cfa_reg = reg;
    out->cfa_offset = off;
    return;
  }
  if (ops[1].atom != DW_OP_deref)
    return;
  int64_t add = 0;
  if (n == 3 && ops[2].atom == DW_OP_plus_uconst)
    add = (int64_t)ops[2].number;
  else if (n != 2)
    return;
  out->cfa_kind = KNIT_AUDIT_CFA_DEREF;
  out->cfa_reg = reg;
  out->cfa_deref_offset = off;
  out->cfa_offset = add;
}

static void read_ra(Dwarf_Frame *frame, int column, knit_frame_rule *out)
{
  Dwarf_Op mem[3], *ops;
  size_t n;
  out->ra_kind = KNIT_AUDIT_RA_OTHER;
  if (dwarf_frame_register(frame, column, mem, &ops, &n) != 0)
    return;
  if (n == 0 && ops == NULL) { /* same_value: still in that register */
    out->ra_kind = KNIT_AUDIT_RA_IN_REG;
    out->ra_reg = column;
  } else if (n == 0) {
    out->ra_kind = KNIT_AUDIT_RA_UNDEFINED;
  } else if (cfa_slot(ops, n, &out->ra_offset)) {
    out->ra_kind = KNIT_AUDIT_RA_AT_CFA;
  } else if (n == 1 && ops[0].atom == DW_OP_regx) {
    out->ra_kind = KNIT_AUDIT_RA_IN_REG;
    out->ra_reg = (int)ops[0].number;
  } else if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
    out->ra_kind = KNIT_AUDIT_RA_IN_REG;
    out->ra_reg = ops[0].atom - DW_OP_reg0;
  }
}

static void read_fp(Dwarf_Frame *frame, int column, knit_frame_rule *out)
{
  Dwarf_Op mem[3], *ops;
  size_t n;
  int reg;
  out->fp_kind = KNIT_AUDIT_FP_OTHER;
  if (dwarf_frame_register(frame, column, mem, &ops, &n) != 0)
    return;
  if (n == 0 && ops == NULL)
    out->fp_kind = KNIT_AUDIT_FP_SAME;
  else if (cfa_slot(ops, n, &out->fp_offset))
    out->fp_kind = KNIT_AUDIT_FP_AT_CFA;
  else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && breg(&ops[1], &reg, &out->fp_offset) &&
           reg == column)
    /* expression(breg fp k): saved at fp + k (libdw puts the CFA first, on
     * the stack the expression starts with, where the expression leaves
     * it unused). */
    out->fp_kind = KNIT_AUDIT_FP_AT_FP;
}

static bool rule_from(Dwarf_CFI *cfi, const knit_isa_ops *isa, uint64_t pc, knit_frame_rule *out,
                      uint64_t *row_end)
{
  Dwarf_Frame *frame;
  if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
    return false;
  memset(out, 0, sizeof *out);
  if (row_end) {
    Dwarf_Addr start, end;
    bool signalp;
    *row_end = dwarf_frame_info(frame, &start, &end, &signalp) >= 0 ? end : pc + 1;
  }
  read_cfa(frame, out);
  read_ra(frame, isa->dwarf_ra, out);
  read_fp(frame, isa->dwarf_fp, out);
  free(frame);
  return true;
}

bool knit_audit_cfi_at(const knit_audit_cfi *cfi, const knit_isa_ops *isa, uint64_t pc,
                       knit_frame_rule *out, uint64_t *row_end)
{
  return rule_from(cfi->eh_frame, isa, pc, out, row_end) ||
         rule_from(cfi->debug_frame, isa, pc, out, row_end);
}

void knit_audit_rule_from_recipe(const knit_recipe *r, const knit_isa_ops *isa,
                                 knit_frame_rule *out)
{
  memset(out, 0, sizeof *out);
  switch (r->cfa_base) {
  case KNIT_CFA_SP:
    out->cfa_kind = KNIT_AUDIT_CFA_REG;
    out->cfa_reg = isa->dwarf_sp;
    break;
  case KNIT_CFA_FP:
    out->cfa_kind = KNIT_AUDIT_CFA_REG;
    out->cfa_reg = isa->dwarf_fp;
    break;
  case KNIT_CFA_SP_DEREF:
    out->cfa_kind = KNIT_AUDIT_CFA_DEREF;
    out->cfa_reg = isa->dwarf_sp;
    break;
  case KNIT_CFA_FP_DEREF:
    out->cfa_kind = KNIT_AUDIT_CFA_DEREF;
    out->cfa_reg = isa->dwarf_fp;
    break;
  default: out->cfa_kind = KNIT_AUDIT_CFA_OTHER; break;
  }
  if (r->cfa_base == KNIT_CFA_FP_DEREF)
    out->cfa_deref_offset = r->cfa_offset; /* the load's, nothing added after */
  else
    out->cfa_offset = r->cfa_offset;
  if (r->ra_rule == KNIT_RA_IN_LR) {
    out->ra_kind = KNIT_AUDIT_RA_IN_REG;
    out->ra_reg = isa->dwarf_lr;
  } else {
    out->ra_kind = KNIT_AUDIT_RA_AT_CFA;
    out->ra_offset = r->ra_offset;
  }
  out->fp_kind = r->fp_rule == KNIT_FP_AT_CFA  ? KNIT_AUDIT_FP_AT_CFA
                 : r->fp_rule == KNIT_FP_AT_FP ? KNIT_AUDIT_FP_AT_FP
                                               : KNIT_AUDIT_FP_SAME;
  out->fp_offset = r->fp_offset;
  out->fp_known = (r->flags & KNIT_RECIPE_FP_KNOWN) != 0;
  out->fp_sp_delta = r->fp_sp_delta;
}

bool knit_audit_cfa_on_cfi_register(const knit_frame_rule *recipe, const knit_frame_rule *cfi,
                                    const knit_isa_ops *isa, knit_frame_rule *out)
{
  if (!recipe->fp_known || recipe->cfa_kind != KNIT_AUDIT_CFA_REG ||
      cfi->cfa_kind != KNIT_AUDIT_CFA_REG || recipe->cfa_reg == cfi->cfa_reg)
    return false;
  *out = *recipe;
  if (recipe->cfa_reg == isa->dwarf_sp && cfi->cfa_reg == isa->dwarf_fp)
    out->cfa_offset = recipe->cfa_offset - recipe->fp_sp_delta;
  else if (recipe->cfa_reg == isa->dwarf_fp && cfi->cfa_reg == isa->dwarf_sp)
    out->cfa_offset = recipe->cfa_offset + recipe->fp_sp_delta;
  else
    return false;
  out->cfa_reg = cfi->cfa_reg;
  return true;
}

/* 0 agree, 1 disagree, 2 not comparable. */
static int compare_cfa(const knit_frame_rule *a, const knit_frame_rule *b)
{
  if (a->cfa_kind == KNIT_AUDIT_CFA_OTHER || b->cfa_kind == KNIT_AUDIT_CFA_OTHER)
    return 2;
  /* A back chain and "sp + frame size" both hold in a ppc64 body; neither
   * says the other is wrong. */
  if (a->cfa_kind != b->cfa_kind)
    return 2;
  return a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
                 a->cfa_deref_offset == b->cfa_deref_offset
             ? 0
             : 1;
}

static int compare_ra(const knit_frame_rule *a, const knit_frame_rule *b)
{
  if (a->ra_kind >= KNIT_AUDIT_RA_UNDEFINED || b->ra_kind >= KNIT_AUDIT_RA_UNDEFINED)
    return 2;
  if (a->ra_kind != b->ra_kind)
    return 1;
  if (a->ra_kind == KNIT_AUDIT_RA_AT_CFA)
    return a->ra_offset == b->ra_offset ? 0 : 1;
  return a->ra_reg == b->ra_reg ? 0 : 1;
}

/* Registers a recipe can name: the CFA from sp or fp, the return address
 * in lr. A CFI rule through any other register says something recipes
 * cannot, right or wrong. */
static bool expressible(const knit_frame_rule *r, const knit_isa_ops *isa)
{
  if (r->cfa_kind != KNIT_AUDIT_CFA_OTHER && r->cfa_reg != isa->dwarf_sp &&
      r->cfa_reg != isa->dwarf_fp)
    return false;
  return r->ra_kind != KNIT_AUDIT_RA_IN_REG || r->ra_reg == isa->dwarf_lr;
}

knit_rule_verdict knit_audit_compare(const knit_frame_rule *recipe, const knit_frame_rule *cfi,
                                     const knit_isa_ops *isa)
{
  if (cfi->ra_kind == KNIT_AUDIT_RA_UNDEFINED || !expressible(cfi, isa))
    return KNIT_RULE_NOT_COMPARABLE;
  int cfa = compare_cfa(recipe, cfi), ra = compare_ra(recipe, cfi);
  /* A definite difference in either part outweighs a part that cannot be
   * compared. */
  if (cfa == 1 || ra == 1)
    return KNIT_RULE_DISAGREE;
  if (cfa == 2 || ra == 2)
    return KNIT_RULE_NOT_COMPARABLE;
  return KNIT_RULE_AGREE;
}

bool knit_audit_fp_agrees(const knit_frame_rule *recipe, const knit_frame_rule *cfi, bool *stale)
{
  *stale = false;
  if (recipe->fp_kind == KNIT_AUDIT_FP_AT_CFA || recipe->fp_kind == KNIT_AUDIT_FP_AT_FP)
    return cfi->fp_kind == recipe->fp_kind && cfi->fp_offset == recipe->fp_offset;
  if (cfi->fp_kind == KNIT_AUDIT_FP_AT_CFA || cfi->fp_kind == KNIT_AUDIT_FP_AT_FP) {
    /* gcc often leaves the save-slot rule in place after pop rbp or leave
     * (a realigned frame's rule too, until its last instruction): rbp
     * holds the caller's value again, which the recipe says. */
    *stale = true;
    return true;
  }
  return cfi->fp_kind == KNIT_AUDIT_FP_SAME;
}

static const char *reg_name(int reg, const knit_isa_ops *isa, char *buf, size_t len)
{
  if (reg == isa->dwarf_sp)
    return "sp";
  if (reg == isa->dwarf_fp)
    return "fp";
  if (reg == isa->dwarf_lr)
    return "lr";
  snprintf(buf, len, "r%d", reg);
  return buf;
}

void knit_audit_rule_format(const knit_frame_rule *r, const knit_isa_ops *isa, char *buf,
                            size_t len)
{
  char cfa[48], ra[48], fp[48], rn[16];
  switch (r->cfa_kind) {
  case KNIT_AUDIT_CFA_REG:
    snprintf(cfa, sizeof cfa, "%s%+" PRId64, reg_name(r->cfa_reg, isa, rn, sizeof rn),
             r->cfa_offset);
    break;
  case KNIT_AUDIT_CFA_DEREF:
    snprintf(cfa, sizeof cfa, "[%s%+" PRId64 "]%+" PRId64, reg_name(r->cfa_reg, isa, rn, sizeof rn),
             r->cfa_deref_offset, r->cfa_offset);
    break;
  default: snprintf(cfa, sizeof cfa, "expression"); break;
  }
  switch (r->ra_kind) {
  case KNIT_AUDIT_RA_AT_CFA: snprintf(ra, sizeof ra, "[cfa%+" PRId64 "]", r->ra_offset); break;
  case KNIT_AUDIT_RA_IN_REG:
    snprintf(ra, sizeof ra, "%s", reg_name(r->ra_reg, isa, rn, sizeof rn));
    break;
  case KNIT_AUDIT_RA_UNDEFINED: snprintf(ra, sizeof ra, "undefined"); break;
  default: snprintf(ra, sizeof ra, "expression"); break;
  }
  if (r->fp_kind == KNIT_AUDIT_FP_AT_CFA)
    snprintf(fp, sizeof fp, "[cfa%+" PRId64 "]", r->fp_offset);
  else if (r->fp_kind == KNIT_AUDIT_FP_AT_FP)
    snprintf(fp, sizeof fp, "[fp%+" PRId64 "]", r->fp_offset);
  else
    snprintf(fp, sizeof fp, "%s", r->fp_kind == KNIT_AUDIT_FP_SAME ? "same" : "other");
  snprintf(buf, len, "cfa=%s ra=%s fp=%s", cfa, ra, fp);
}
