/* The POWER audit model (power_audit.c), and the audit row each POWER ISA
 * makes of it in its own folder. Compiled into the knit command only. */
#ifndef KNIT_UNWIND_POWER_AUDIT_H
#define KNIT_UNWIND_POWER_AUDIT_H

#include "audit/audit_isa.h"

extern const char *const knit_power_audit_ends[];
extern const char *const knit_power_audit_calls[];
extern const char *const knit_power_audit_padding[];
bool knit_power_audit_nop_form(const char *mnemonic, const char *op_str);
bool knit_power_audit_branch_target(const char *mnemonic, const char *op_str, uint64_t *target);
void knit_power_audit_model_step(struct knit_audit_model *m, const char *mnemonic,
                                 const char *op_str);
bool knit_power_audit_conditional(const char *mnemonic);
bool knit_power_audit_plain_return(const char *mnemonic, const char *op_str);
bool knit_power_audit_indirect_jump(const char *mnemonic, const char *op_str);
void knit_power_audit_lr_step(struct knit_audit_lr *s, const char *mnemonic, const char *op_str);

/* The initializer of a POWER ISA's audit row for its unwinder row. */
#define KNIT_POWER_AUDIT_ROW(unwinder_row)                                                         \
  {                                                                                                \
    .isa = (unwinder_row), .ends = knit_power_audit_ends, .calls = knit_power_audit_calls,         \
    .padding = knit_power_audit_padding, .also_padding = knit_power_audit_nop_form,                \
    .branch_target = knit_power_audit_branch_target, .conditional = knit_power_audit_conditional,  \
    .model_step = knit_power_audit_model_step, .plain_return = knit_power_audit_plain_return,      \
    .lr_step = knit_power_audit_lr_step, .indirect_jump = knit_power_audit_indirect_jump,          \
  }

#endif /* KNIT_UNWIND_POWER_AUDIT_H */
