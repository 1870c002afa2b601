/* Where the return address is, as far as the instruction stream shows it,
 * for the link-register ISAs whose CFI and recipes may describe the same
 * moment in two true ways. Internal to profiler/audit.
 *
 * Code may copy LR to a GPR before saving it (ppc64's mflr r0); the CFI
 * then says "return address in r0" while a recipe says "still in LR": both
 * hold until LR is overwritten. In an epilogue LR may be restored from the
 * register loaded from the save slot before the CFI drops the slot rule:
 * again both hold. After the copy is stored the CFI names the slot while
 * the recipe, until a call, still says LR: both hold while LR is unchanged,
 * the slot is not overwritten and sp (through which the slot is named) has
 * not moved. The walk here follows the instructions of one function in
 * address order, each through its ISA's audit row (lr_step in
 * audit_isa.h; which ISAs it applies to is the row's to say), and says when
 * such a difference is this equivalence, never more: after a path end the
 * state that reaches the next block is unknown, so nothing is accepted
 * until the stream shows it again. */
#ifndef KNIT_AUDIT_LR_H
#define KNIT_AUDIT_LR_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

#include "audit/audit_rule.h"
#include "unwind/isa.h"

typedef struct knit_audit_lr {
  /* The ISA's audit row's lr_step; NULL: LR is not followed, and no
   * equivalence is accepted. */
  void (*step)(struct knit_audit_lr *s, const char *mnemonic, const char *op_str);
  bool lr_is_ra;   /* LR holds the return address */
  bool restored;   /* ... because LR was set from a loaded register */
  int copy_reg;    /* GPR the return address was copied into, LR
                       unchanged since; -1 when none */
  uint32_t loaded; /* GPRs whose last write was a load from memory */
  bool slot_saved; /* the copy was stored at sp + slot_off, LR, sp and
                       that word unchanged since */
  int64_t slot_off;
} knit_audit_lr;

/* Which equivalence, if any, makes a recipe and a CFI rule agree. */
typedef enum knit_lr_equiv {
  KNIT_LR_EQUIV_NONE = 0,
  KNIT_LR_EQUIV_COPIED,   /* CFI: in LR's copy; recipe: in LR */
  KNIT_LR_EQUIV_RESTORED, /* CFI: in the save slot; recipe: LR restored
                             from a load */
  KNIT_LR_EQUIV_SAVED,    /* CFI: in the save slot; recipe: LR, intact
                             since the copy was stored there */
} knit_lr_equiv;

/* The state at a function's entry: the return address in LR. */
void knit_audit_lr_start(knit_audit_lr *s, const knit_isa_ops *isa);

/* The state after insn (decoded without detail: mnemonic and operand
 * text); path_end tells that nothing falls through from it. */
void knit_audit_lr_step(knit_audit_lr *s, const cs_insn *insn, bool path_end);

/* Before the instruction the state describes: whether the two rules,
 * which differ only in where the return address is, are the same frame. */
knit_lr_equiv knit_audit_lr_equivalent(const knit_audit_lr *s, const knit_frame_rule *recipe,
                                       const knit_frame_rule *cfi, const knit_isa_ops *isa);

#endif /* KNIT_AUDIT_LR_H */
