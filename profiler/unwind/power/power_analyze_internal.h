/* The POWER analyzer's parts shared by its files: the frame state, the
 * instruction record, the analysis context and the per-instruction model
 * (power_analyze_insn.c) that the ISA-neutral driver (unwind/analyze.c)
 * runs through the hooks in power_analyze.c.
 * Private to profiler/unwind/power. */
#ifndef KNIT_UNWIND_POWER_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_POWER_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/analyze.h"
#include "unwind/power/power_analyze.h"

#define NO_REG (-1)
#define GPR_SP 1
#define GPR_FP 31

/* What the analyzer knows about the frame before one instruction. Kept
 * small: one copy is stored per recorded branch target. */
typedef struct frame_state {
  int32_t sp_depth;    /* CFA - r1, when sp_known */
  int32_t fp_depth;    /* CFA - r31, when fp_frame */
  int32_t chain_depth; /* the word at r1 is CFA - chain_depth, when chain_known */
  int32_t alloc_depth; /* the frame's own back chain word lies at CFA - alloc_depth */
  int32_t alloc_chain; /* and holds CFA - alloc_chain, when alloc_known */
  int32_t ra_slot;     /* the return address is at CFA + ra_slot, when ra_saved */
  int32_t fp_slot;     /* the caller's r31 is at CFA + fp_slot, when fp_saved */
  uint32_t queued;     /* callee-saved GPRs stored, not reported yet */
  int8_t ra_reg;       /* a GPR holding the return address, or NO_REG */
  int8_t lr_home;      /* the GPR gcc's CFI last named as LR's copy */
  unsigned sp_known : 1;
  unsigned fp_frame : 1;  /* r31 = CFA - fp_depth */
  unsigned cfa_on_fp : 1; /* the recipe computes the CFA from r31 */
  unsigned chain_known : 1;
  unsigned alloc_known : 1;
  unsigned lr_has_ra : 1; /* LR still holds the return address */
  unsigned ra_saved : 1;
  unsigned ra_pending : 1; /* saved, but not reported yet (see above) */
  unsigned lr_queued : 1;  /* a copy or save of LR is not reported yet */
  unsigned fp_saved : 1;
  unsigned fp_pending : 1;
  unsigned r31_caller : 1; /* r31 still holds the caller's value */
  unsigned guessed : 1;    /* derived from the canonical state, not along
                               control flow from the entry: gives way to a
                               followed state at a branch target */
} frame_state;

/* What a general register holds, as far as the prologue and alloca code
 * need it: a constant (frame sizes beyond 16 bits) or an address at a
 * known distance below the CFA (copies of r1, back chain words). */
typedef enum value_kind { VAL_UNKNOWN = 0, VAL_CONST, VAL_CFA_REL } value_kind;

typedef struct reg_value {
  int64_t v; /* the constant, or CFA - value */
  uint8_t kind;
} reg_value;

/* Branch targets recorded per function, forward and backward
 * (knit_analyzer.targets_work and targets_stack). When the table is full,
 * further targets are not recorded: code reached only through them gets
 * the canonical state (or the jump table's), which in a large switch lacks
 * what each case does itself (libstdc++'s fn_10ced0 has 387 targets, and
 * each case saves LR on its own). The table lives in the caller's
 * workspace (knit_analyze_work: 4468 targets, the 192 KiB it had to
 * itself when entries took 44 bytes; more than any function of libc,
 * libstdc++ or libgomp needs) and, without one, on the analyzer's stack,
 * where it must stay small (about 12 KiB, within a signal stack). */
#define TARGETS_MAX      256
#define TARGETS_WORK_MAX 4468

/* What one analysis keeps besides the frame state (knit_analysis.model).
 * Register values are known only along a straight run of code: they are
 * forgotten at every branch target and path start, which keeps the
 * recorded states small. */
typedef struct ppc_model {
  const knit_power_abi *abi;
  reg_value regs[32];
  /* The state at a bctr that leaves the frame in place, in this pass: a
   * jump through a table to blocks of this function (a tail call through
   * CTR tears the frame down first). Those blocks are placed after it and
   * no recorded branch names them, so they resume with this state, not
   * the canonical one: in shrink-wrapped code the two differ in LR's
   * save. */
  frame_state table_state;
  bool have_table;
  /* The state at the last call made with the return address saved, in
   * this pass. A block after a path end that no branch enters is mostly
   * an exception landing pad, entered by the unwinder from a call site,
   * where LR was saved: in shrink-wrapped code (an early return before
   * the prologue) the canonical state says LR holds the return address,
   * which a landing pad has long overwritten. */
  frame_state call_state;
  bool have_call;
} ppc_model;

static const frame_state entry_state = {
    .sp_known = 1,
    .lr_has_ra = 1,
    .r31_caller = 1,
    .ra_reg = NO_REG,
    .lr_home = NO_REG,
};

/* A branch as the model needs it (classified by mnemonic). */
typedef struct branch_info {
  bool is_branch;
  bool links; /* writes LR (a call, or bcl to get the pc) */
  bool conditional;
  bool to_lr;  /* blr and its conditional forms */
  bool to_ctr; /* bctr and its conditional forms */
  bool has_target;
  uint64_t target;
} branch_info;

/* What the model reads of an instruction's mnemonic. */
typedef enum ppc_kind {
  PPC_OTHER = 0,
  PPC_MFLR,
  PPC_MTLR,
  PPC_STORE, /* st... */
  PPC_LD,
  PPC_MR,
  PPC_ADDI,
  PPC_SUBI,
  PPC_LI,
  PPC_LIS,
  PPC_ORI,
  PPC_ADD,
  PPC_TRAP, /* trap itself */
} ppc_kind;

#define PPC_TRAP_FORM   0x01 /* the mnemonic begins with "trap" */
#define PPC_STORE_DWORD 0x02 /* std, stdu, stdx, stdux */
#define PPC_STORE_STDU  0x04
#define PPC_STORE_STDUX 0x08

/* One instruction, classified once (knit_power_classify): what the
 * model reads of it. */
typedef struct ppc_record {
  knit_insn_head head;
  branch_info branch;
  int64_t imm1, imm2; /* operands 1 and 2, when immediates (imm*_ok) */
  int32_t mem_disp;   /* operand 1, when a memory operand (mem1) */
  uint32_t written;   /* the GPRs it writes (knit_power_gprs_written) */
  int8_t gpr[3];      /* operands 0 to 2 as GPRs, or NO_REG */
  int8_t mem_base;    /* operand 1's base as a GPR, or NO_REG */
  uint8_t kind;       /* ppc_kind */
  uint8_t form;       /* PPC_TRAP_FORM, PPC_STORE_* */
  uint8_t op_count;
  bool mem1;
  bool imm1_ok, imm2_ok;
} ppc_record;

/* The recipe of a state (knit_analyzer.recipe, power_analyze.c). */
void knit_power_recipe(const void *state, knit_recipe *r);

/* ---- The per-instruction model (power_analyze_insn.c) ---- */

/* Reports the queued saves (see power_analyze.c). As in gcc, a copy of
 * LR in a GPR that is reported makes that GPR LR's home until LR is
 * saved. */
void knit_power_publish(frame_state *s);

/* Fills a ppc_record from a decoded instruction (knit_analyzer.classify). */
void knit_power_classify(size_t cs_handle, const cs_insn *insn, void *rec);

/* Updates s for one instruction and says how control continues
 * (knit_analyzer.apply). */
knit_flow_kind knit_power_apply(knit_analysis *an, void *s, const void *rec, uint64_t at,
                                uint64_t *target);

#endif /* KNIT_UNWIND_POWER_ANALYZE_INTERNAL_H */
