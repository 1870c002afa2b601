/* Following LR through a function's instructions, by mnemonic and operand
 * text (the audit's walk decodes without detail), to accept the two true
 * descriptions of the return address described in audit_lr.h. What each
 * instruction does to it is the ISA's audit row's (lr_step). */
#include <string.h>

#include "audit/audit_isa.h"
#include "audit/audit_lr.h"

void knit_audit_lr_start(knit_audit_lr *s, const knit_isa_ops *isa)
{
  const knit_audit_isa *a = knit_audit_isa_of(isa);
  memset(s, 0, sizeof *s);
  s->step = a ? a->lr_step : NULL;
  s->lr_is_ra = true;
  s->copy_reg = -1;
}

static void forget(knit_audit_lr *s)
{
  s->lr_is_ra = false;
  s->restored = false;
  s->copy_reg = -1;
  s->loaded = 0;
  s->slot_saved = false;
}

void knit_audit_lr_step(knit_audit_lr *s, const cs_insn *insn, bool path_end)
{
  if (!s->step)
    return;
  if (path_end) {
    /* The next block is entered by a branch from a state not seen here. */
    forget(s);
    return;
  }
  s->step(s, insn->mnemonic, insn->op_str);
}

knit_lr_equiv knit_audit_lr_equivalent(const knit_audit_lr *s, const knit_frame_rule *recipe,
                                       const knit_frame_rule *cfi, const knit_isa_ops *isa)
{
  if (!s->step || !s->lr_is_ra || recipe->ra_kind != KNIT_AUDIT_RA_IN_REG ||
      recipe->ra_reg != isa->dwarf_lr)
    return KNIT_LR_EQUIV_NONE;
  if (cfi->ra_kind == KNIT_AUDIT_RA_IN_REG && cfi->ra_reg != isa->dwarf_lr &&
      cfi->ra_reg == s->copy_reg)
    return KNIT_LR_EQUIV_COPIED;
  if (cfi->ra_kind == KNIT_AUDIT_RA_AT_CFA && s->restored)
    return KNIT_LR_EQUIV_RESTORED;
  if (cfi->ra_kind == KNIT_AUDIT_RA_AT_CFA && s->slot_saved &&
      cfi->cfa_kind == KNIT_AUDIT_CFA_REG && cfi->cfa_reg == isa->dwarf_sp &&
      cfi->cfa_offset + cfi->ra_offset == s->slot_off)
    return KNIT_LR_EQUIV_SAVED;
  return KNIT_LR_EQUIV_NONE;
}
