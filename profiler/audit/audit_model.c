/* The audit's frame model: see audit_model.h. It reads Capstone's text
 * (the audit's walk decodes without detail) and knows only the handful of
 * instructions that build and tear down frames; every other write of sp
 * ends what it knows, so that it never vouches for a state it did not
 * follow. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"
#include "audit/audit_model.h"

void knit_audit_model_start(knit_audit_model *m, const knit_isa_ops *isa)
{
  const knit_audit_isa *a = knit_audit_isa_of(isa);
  memset(m, 0, sizeof *m);
  m->step = a ? a->model_step : NULL;
  m->known = m->step != NULL;
  m->ra_in_lr = true;
  m->ra_copy = -1;
}

/* The return address must be somewhere the model can name, and a slot
 * below sp may be overwritten by anything (signal frames included). */
static void settle(knit_audit_model *m)
{
  if (m->ra_in_slot && m->ra_slot < -m->sp_depth)
    m->ra_in_slot = false;
  if (!m->ra_in_lr && !m->ra_in_slot && m->ra_copy < 0)
    m->known = false;
}

void knit_audit_model_step(knit_audit_model *m, const char *mnemonic, const char *op_str,
                           unsigned flow)
{
  if (!m->known)
    return;
  /* Whatever follows a path end is entered from a state this walk did not
   * see; so is what follows a call that does not return (gcc's CFI then
   * describes the branch that leads there) and alignment padding, which
   * marks a branch target. The model vouches only for fall-through that
   * happens, and learns the state again at the next agreement. */
  if (flow & (KNIT_FLOW_PATH_END | KNIT_FLOW_CALL | KNIT_FLOW_PADDING)) {
    m->known = false;
    return;
  }
  m->step(m, mnemonic, op_str);
  settle(m);
}

void knit_audit_model_at_return(knit_audit_model *m, const knit_isa_ops *isa, const char *mnemonic,
                                const char *op_str)
{
  const knit_audit_isa *a = knit_audit_isa_of(isa);
  if (a && a->model_step && a->plain_return && a->plain_return(mnemonic, op_str))
    knit_audit_model_start(m, isa);
}

bool knit_audit_model_holds(const knit_audit_model *m, const knit_frame_rule *r,
                            const knit_isa_ops *isa)
{
  if (!m->known || r->cfa_kind != KNIT_AUDIT_CFA_REG)
    return false;
  bool cfa = (r->cfa_reg == isa->dwarf_sp && r->cfa_offset == m->sp_depth) ||
             (r->cfa_reg == isa->dwarf_fp && m->fp_known && r->cfa_offset == m->fp_depth);
  bool ra = false;
  if (r->ra_kind == KNIT_AUDIT_RA_AT_CFA)
    ra = m->ra_in_slot && r->ra_offset == m->ra_slot;
  else if (r->ra_kind == KNIT_AUDIT_RA_IN_REG)
    ra =
        (r->ra_reg == isa->dwarf_lr && m->ra_in_lr) || (m->ra_copy >= 0 && r->ra_reg == m->ra_copy);
  return cfa && ra;
}

void knit_audit_model_agreed(knit_audit_model *m, const knit_frame_rule *r, const knit_isa_ops *isa)
{
  if (knit_audit_model_holds(m, r, isa))
    return;
  knit_audit_model_step_fn *step = m->step;
  memset(m, 0, sizeof *m);
  m->step = step;
  m->ra_copy = -1;
  /* No model for the ISA: an agreement teaches it nothing. */
  if (!step)
    return;
  if (r->cfa_kind != KNIT_AUDIT_CFA_REG)
    return;
  if (r->cfa_reg == isa->dwarf_sp) {
    m->sp_depth = r->cfa_offset;
    m->fp_known = r->fp_known;
    m->fp_depth = r->cfa_offset - r->fp_sp_delta;
  } else if (r->cfa_reg == isa->dwarf_fp && r->fp_known) {
    m->fp_known = true;
    m->fp_depth = r->cfa_offset;
    m->sp_depth = r->cfa_offset + r->fp_sp_delta;
  } else {
    return;
  }
  if (r->ra_kind == KNIT_AUDIT_RA_AT_CFA) {
    m->ra_in_slot = true;
    m->ra_slot = r->ra_offset;
  } else if (r->ra_kind == KNIT_AUDIT_RA_IN_REG && r->ra_reg == isa->dwarf_lr) {
    m->ra_in_lr = true;
  } else {
    return;
  }
  m->known = true;
}
