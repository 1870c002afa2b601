/* Where the return address is, as far as the instruction stream shows it,
 * for the link-register ISAs whose CFI and recipes may describe the same
 * moment in two true ways. Internal to profiler/audit.
 *
 * ppc64 code copies LR to a GPR (mflr r0) before saving it; gcc's CFI then
 * says "return address in r0" while a recipe says "still in LR": both hold
 * until LR is overwritten. In an epilogue `mtlr r0` restores LR from the
 * register loaded from the save slot before the CFI drops the slot rule:
 * again both hold. After the save (`std r0,16(r1)` of that copy) gcc's CFI
 * names the slot while the recipe, until a call, still says LR: both hold
 * while LR is unchanged, the slot is not overwritten and r1 (through which
 * the slot is named) has not moved. The walk here follows the instructions of one function
 * in address order and says when such a difference is this equivalence,
 * never more: after a path end the state that reaches the next block is
 * unknown, so nothing is accepted until the stream shows it again. */
#ifndef KNIT_AUDIT_LR_H
#define KNIT_AUDIT_LR_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

#include "audit/audit_rule.h"
#include "unwind/isa.h"

typedef struct knit_audit_lr {
  bool tracked;     /* the ISA has a table here (ppc64le) */
  bool lr_is_ra;    /* LR holds the return address */
  bool restored;    /* ... because of an mtlr from a loaded register */
  int copy_reg;     /* GPR mflr copied the return address into, LR
                       unchanged since; -1 when none */
  uint32_t loaded;  /* GPRs whose last write was a load from memory */
  bool slot_saved;  /* the copy was stored at r1 + slot_off, LR, r1 and
                       that word unchanged since */
  int64_t slot_off;
} knit_audit_lr;

/* Which equivalence, if any, makes a recipe and a CFI rule agree. */
typedef enum knit_lr_equiv {
  KNIT_LR_EQUIV_NONE = 0,
  KNIT_LR_EQUIV_COPIED,   /* CFI: in the mflr destination; recipe: in LR */
  KNIT_LR_EQUIV_RESTORED, /* CFI: in the save slot; recipe: LR after mtlr */
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
knit_lr_equiv knit_audit_lr_equivalent(const knit_audit_lr *s,
                                       const knit_frame_rule *recipe,
                                       const knit_frame_rule *cfi,
                                       const knit_isa_ops *isa);

/* ppc64 instruction text, shared with audit_model.c: the GPR named by
 * operand text "rN..." at p (or -1); whether a branch mnemonic writes LR
 * (bl, bctrl, beql+...); whether an instruction writes its first operand
 * when that is a GPR (stores, compares, traps and branches only read). */
int knit_audit_ppc_gpr(const char *p);
bool knit_audit_ppc_links(const char *mn);
bool knit_audit_ppc_writes_first(const char *mn);

#endif /* KNIT_AUDIT_LR_H */
