/* The ppc64le analyzer's parts shared by its files: the frame state, the
 * analysis run and the per-instruction model (ppc64le_analyze_insn.c) that
 * the sweep (ppc64le_analyze.c) drives.
 * Private to profiler/unwind/ppc64le. */
#ifndef KNIT_UNWIND_PPC64LE_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_PPC64LE_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/ppc64le/ppc64le_analyze.h"

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
  unsigned fp_frame : 1;    /* r31 = CFA - fp_depth */
  unsigned cfa_on_fp : 1;   /* the recipe computes the CFA from r31 */
  unsigned chain_known : 1;
  unsigned alloc_known : 1;
  unsigned lr_has_ra : 1;   /* LR still holds the return address */
  unsigned ra_saved : 1;
  unsigned ra_pending : 1;  /* saved, but not reported yet (see above) */
  unsigned lr_queued : 1;   /* a copy or save of LR is not reported yet */
  unsigned fp_saved : 1;
  unsigned fp_pending : 1;
  unsigned r31_caller : 1;  /* r31 still holds the caller's value */
  unsigned guessed : 1;     /* derived from the canonical state, not along
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

/* The state a branch leaves for its target, kept across passes. Offsets
 * into the function keep the table small. */
typedef struct target_state {
  uint32_t addr; /* the target */
  uint32_t from; /* the branch whose state was recorded */
  frame_state state;
} target_state;

/* Branch targets recorded per function, forward and backward. When the
 * table is full, further targets are not recorded: code reached only
 * through them gets the canonical state (or the jump table's), which in a
 * large switch lacks what each case does itself (libstdc++'s fn_10ced0
 * has 387 targets, and each case saves LR on its own). The table lives in
 * the caller's workspace (knit_analyze_work: 4096 targets, more than any
 * function of libc, libstdc++ or libgomp needs) and, without one, on the
 * analyzer's stack, where it must stay small (about 12 KiB, within a
 * signal stack). */
#define TARGETS_MAX 256
#define TARGETS_WORK_MAX ((int)(KNIT_ANALYZE_WORK_BYTES / sizeof(target_state)))

/* Passes over the function at most: each pass but the last learns a state
 * for a target already passed (a block entered by a backward branch); the
 * cap bounds the time spent on pathological code, and the last pass's
 * recipes are kept. */
#define PASSES_MAX 16

typedef enum flow_kind {
  FLOW_NEXT,   /* falls through to the next instruction */
  FLOW_BRANCH, /* conditional: falls through and may go to target */
  FLOW_JUMP,   /* unconditional to target inside the function */
  FLOW_END,    /* blr, tail call, bctr, trap: the path ends here */
} flow_kind;

/* Everything one analysis run needs, kept together so that helpers stay
 * small and the run stays free of global state. Register values are known
 * only along a straight run of code: they are forgotten at every branch
 * target and path start, which keeps the recorded states small. */
typedef struct analysis {
  uint64_t func_start;
  uint64_t func_end;
  knit_recipe *out;
  int max;
  int count;
  reg_value regs[32];
  bool changed; /* this pass learnt a state for code it had passed */
  int target_count; /* sorted by address */
  int targets_max;
  target_state *targets; /* the workspace's, or the stack's */
} analysis;

_Static_assert(TARGETS_MAX * sizeof(target_state) <= 16 * 1024,
               "the stack's target table must stay small enough for a signal stack");
_Static_assert(TARGETS_WORK_MAX >= 4096, "the workspace holds 4096 targets");

static const frame_state entry_state = {
  .sp_known = 1, .lr_has_ra = 1, .r31_caller = 1, .ra_reg = NO_REG,
  .lr_home = NO_REG,
};

/* A branch as the sweep needs it (see knit_ppc64le_classify_branch). */
typedef struct branch_info {
  bool is_branch;
  bool links;        /* writes LR (a call, or bcl to get the pc) */
  bool conditional;
  bool to_lr;        /* blr and its conditional forms */
  bool to_ctr;       /* bctr and its conditional forms */
  bool has_target;
  uint64_t target;
} branch_info;

/* ---- The per-instruction model (ppc64le_analyze_insn.c) ---- */

/* Whether the mnemonic s begins with prefix. */
bool knit_ppc64le_starts(const char *s, const char *prefix);

/* Collects the GPRs an instruction writes, as a mask. */
uint32_t knit_ppc64le_gprs_written(const cs_insn *insn);

/* Classifies by mnemonic: Capstone 4 gives PPC branches neither groups nor
 * a consistent id for the many conditional aliases (ble, bdnz, beqlr+...). */
branch_info knit_ppc64le_classify_branch(const cs_insn *insn);

/* Reports the queued saves (see the file comment). As in gcc, a copy of LR
 * in a GPR that is reported makes that GPR LR's home until LR is saved. */
void knit_ppc64le_publish(frame_state *s);

/* Whether target lies inside the function analysed. */
/* Whether target lies inside the function analysed. */
bool knit_ppc64le_in_function(const analysis *a, uint64_t target);

/* Updates s for one instruction other than a branch. */
void knit_ppc64le_model_insn(analysis *a, frame_state *s, const cs_insn *insn);

#endif /* KNIT_UNWIND_PPC64LE_ANALYZE_INTERNAL_H */
