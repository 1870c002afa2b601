/* What the audit needs to know about control flow, per ISA: which
 * instructions end a path (nothing after them runs unless a branch goes
 * there), which are calls, and which are alignment padding. Capstone's
 * groups do not say this for every ISA (ppc has no call or return group),
 * so it goes by mnemonic. Internal to profiler/audit.
 *
 * This is per-ISA knowledge outside profiler/unwind/<isa>/; it belongs in
 * the ops table once that table grows a field for it. */
#ifndef KNIT_AUDIT_FLOW_H
#define KNIT_AUDIT_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/isa.h"

/* Flags; a trap is both a path end and possible padding. */
enum {
  KNIT_FLOW_PATH_END = 1, /* return, unconditional jump, trap */
  KNIT_FLOW_CALL = 2,
  KNIT_FLOW_PADDING = 4,  /* nop or trap, which may be alignment filler */
};

/* Classifies one decoded instruction by its Capstone mnemonic, and for
 * the no-op forms of ordinary instructions by its operand text (op_str,
 * may be NULL): flags above, 0 for an ordinary instruction or an ISA
 * without a table. */
unsigned knit_audit_flow(const knit_isa_ops *isa, const char *mnemonic,
                         const char *op_str);

/* The target of a direct branch, from its operand text; false for other
 * instructions. Used to find where blocks begin (aarch64, ppc64). */
bool knit_audit_branch_target(const char *mnemonic, const char *op_str,
                              uint64_t *target);

#endif /* KNIT_AUDIT_FLOW_H */
