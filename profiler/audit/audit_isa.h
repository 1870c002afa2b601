/* The audit's machine table: what knit audit knows of an ISA's
 * instructions beyond the unwinder's row (unwind/isa.h), one row per ISA,
 * each defined in profiler/unwind/<isa>/<isa>_audit.c and compiled into the
 * knit command only (never into libknit.so). The audit reads Capstone's
 * text (its walk decodes without detail), so the rows speak of mnemonics
 * and operand text. Internal to profiler/audit. */
#ifndef KNIT_AUDIT_ISA_H
#define KNIT_AUDIT_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/isa.h"

struct knit_audit_model; /* audit_model.h */
struct knit_audit_lr;    /* audit_lr.h */

/* The frame model's step (model_step below). */
typedef void knit_audit_model_step_fn(struct knit_audit_model *m, const char *mnemonic,
                                      const char *op_str);

typedef struct knit_audit_isa {
  const knit_isa_ops *isa; /* the unwinder's row this one completes */

  /* --- control flow (audit_flow.h), by mnemonic; NULL-terminated --- */
  /* Capstone's groups do not say this for every ISA (ppc has no call or
   * return group). A trap may be both a path end and padding. */
  const char *const *ends; /* return, unconditional jump, trap */
  const char *const *calls;
  const char *const *padding; /* nop or trap, which may be alignment filler */
  /* No-op forms of ordinary instructions used as padding, by operand text
   * (op_str may be NULL); NULL when the ISA has none. */
  bool (*also_padding)(const char *mnemonic, const char *op_str);
  /* The target of a direct branch, from its operand text
   * (knit_audit_hex_operand reads the usual form); false for other
   * instructions. Only for ISAs with a frame model (which forgets its state
   * where a branch enters); NULL otherwise. */
  bool (*branch_target)(const char *mnemonic, const char *op_str, uint64_t *target);
  /* Whether the instruction is a conditional branch (it may go to its
   * target or fall through; a conditional return or indirect branch too,
   * whose target is unknown); NULL where the row does not say. Control-flow
   * graphs (profiler/structure) need it; the audit does not. */
  bool (*conditional)(const char *mnemonic);
  /* Whether the instruction jumps through a register or memory: a jump
   * table's dispatch (or a tail call through a pointer). Control-flow
   * graphs give such a jump the blocks no edge reaches as its cases; NULL
   * where the row does not say (they then stay unreachable). */
  bool (*indirect_jump)(const char *mnemonic, const char *op_str);

  /* --- the audit's frame model (audit_model.h); NULL: no model --- */
  /* The state after one ordinary instruction (neither a path end, a call
   * nor padding): sp and fp depths, the return address's slot and copies;
   * anything it cannot follow sets m->known to false. */
  knit_audit_model_step_fn *model_step;
  /* Whether the instruction is a plain return (to the link register, with
   * the caller's sp back): the model's entry state holds before it. */
  bool (*plain_return)(const char *mnemonic, const char *op_str);

  /* --- the return address in a register (audit_lr.h); NULL: not
   * tracked --- */
  /* The state after an instruction that does not end a path. */
  void (*lr_step)(struct knit_audit_lr *s, const char *mnemonic, const char *op_str);
} knit_audit_isa;

extern const knit_audit_isa knit_audit_x86_64;
extern const knit_audit_isa knit_audit_aarch64;
extern const knit_audit_isa knit_audit_ppc64le;
extern const knit_audit_isa knit_audit_ppc64;

/* Every row, NULL-terminated (audit_isa.c). */
extern const knit_audit_isa *const knit_audit_isas[];

/* The audit's row for an unwinder's row, or NULL when it has none. */
const knit_audit_isa *knit_audit_isa_of(const knit_isa_ops *isa);

#endif /* KNIT_AUDIT_ISA_H */
