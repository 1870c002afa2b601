/* What the audit needs to know about control flow: which instructions end
 * a path (nothing after them runs unless a branch goes there), which are
 * calls, and which are alignment padding, by mnemonic, from each ISA's
 * audit row (audit_isa.h). Internal to profiler/audit. */
#ifndef KNIT_AUDIT_FLOW_H
#define KNIT_AUDIT_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/isa.h"

/* Flags; a trap is both a path end and possible padding. */
enum {
  KNIT_FLOW_PATH_END = 1, /* return, unconditional jump, trap */
  KNIT_FLOW_CALL = 2,
  KNIT_FLOW_PADDING = 4, /* nop or trap, which may be alignment filler */
};

/* Classifies one decoded instruction by its Capstone mnemonic, and for
 * the no-op forms of ordinary instructions by its operand text (op_str,
 * may be NULL): flags above, 0 for an ordinary instruction or an ISA
 * without an audit row. */
unsigned knit_audit_flow(const knit_isa_ops *isa, const char *mnemonic, const char *op_str);

/* The target of a direct branch, from its operand text, by the ISA's audit
 * row (branch_target); false for other instructions and ISAs without one.
 * Used to find where blocks begin (for the frame model). */
bool knit_audit_branch_target(const knit_isa_ops *isa, const char *mnemonic, const char *op_str,
                              uint64_t *target);

/* For the rows' branch_target: the last operand of op_str as an address in
 * hex ("0x3baa8", or "#0x1f364" with an immediate's '#'); false for any
 * other last operand. */
bool knit_audit_hex_operand(const char *op_str, uint64_t *target);

#endif /* KNIT_AUDIT_FLOW_H */
