/* The audit's own model of a frame, for the instructions where the CFI is
 * not exact. Internal to profiler/audit.
 *
 * clang emits synchronous unwind tables on aarch64 and ppc64le: the CFI is
 * exact where an exception can be thrown (at calls) and nowhere it need
 * not be. aarch64 CFI keeps the entry rule (cfa=sp+0, ra=lr) until the
 * frame record is complete (after stp x29, x30, [sp, #-n]! it still says
 * sp+0) and keeps the body rule (cfa=x29+16) after the epilogue reloaded
 * x29 and x30; ppc64le CFI gives the body rule (cfa=r1+64, ra=[cfa+16])
 * from the first instruction of the prologue, before the stdu that
 * allocates the frame, and keeps it after the epilogue freed it.
 *
 * To tell such a CFI row from an analyzer error, the audit follows the
 * instructions itself, by mnemonic and operand text, independently of the
 * analyzers: from the ABI's entry state, and from every instruction where
 * the recipe and the CFI agree (both witnesses say the same), through the
 * few instructions that build and tear down frames (sp adjustments, stores
 * and loads of the frame record and the return address, setting x29/r31,
 * mflr/mtlr, calls), each ISA's in its audit row (model_step in
 * audit_isa.h). Anything else that writes sp makes the model unknown
 * until the next agreement, as does the end of a path (the next block is
 * entered from elsewhere). The model keeps every true description of the
 * moment (the return address in LR and in its slot while both hold it; the
 * CFA from sp and, when known, from fp), so a rule "holds" when it is one
 * of them. */
#ifndef KNIT_AUDIT_MODEL_H
#define KNIT_AUDIT_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "audit/audit_isa.h"
#include "audit/audit_rule.h"
#include "unwind/isa.h"

typedef struct knit_audit_model {
  bool known;                     /* the rest is valid; false: no claim at all */
  knit_audit_model_step_fn *step; /* the ISA's (audit_isa.h); NULL: no
                                     model, never known */
  int64_t sp_depth;               /* CFA - sp */
  bool fp_known;                  /* fp (x29/r31) = CFA - fp_depth */
  int64_t fp_depth;
  bool ra_in_lr;   /* LR holds the return address */
  bool ra_in_slot; /* so does the word at CFA + ra_slot */
  int64_t ra_slot;
  int ra_copy; /* ppc: a GPR holding it (mflr, or ld from the slot) */
} knit_audit_model;

/* The state at a function's entry by a call, for ISAs whose audit row has
 * a model; unknown for the others. */
void knit_audit_model_start(knit_audit_model *m, const knit_isa_ops *isa);

/* Sets the model from a rule both the recipe and the CFI give (r is the
 * recipe's, with its fp knowledge), unless the model already holds it:
 * then the model knows at least as much and is kept. */
void knit_audit_model_agreed(knit_audit_model *m, const knit_frame_rule *r,
                             const knit_isa_ops *isa);

/* The state after one instruction (text as Capstone prints it), by the
 * ISA's model_step; flow is its knit_audit_flow classification. */
void knit_audit_model_step(knit_audit_model *m, const char *mnemonic, const char *op_str,
                           unsigned flow);

/* Before a plain return (the audit row's plain_return: aarch64's ret
 * through x30, ppc64's blr) the state is the entry state whatever led
 * there: the return goes to LR, and the
 * caller's sp must be back (the ABI's contract with the caller, which every
 * correct function keeps). Sets the model to it there, also where the walk
 * had lost it (a ret that branches enter, a shrink-wrapped early return
 * placed after a tail call); clang's synchronous CFI keeps the body rule
 * there. Other instructions leave the model as it is. */
void knit_audit_model_at_return(knit_audit_model *m, const knit_isa_ops *isa, const char *mnemonic,
                                const char *op_str);

/* Whether r (CFA and return address) is a true description of the state:
 * false when the model is unknown. */
bool knit_audit_model_holds(const knit_audit_model *m, const knit_frame_rule *r,
                            const knit_isa_ops *isa);

#endif /* KNIT_AUDIT_MODEL_H */
