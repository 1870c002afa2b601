/* The aarch64 analyzer's parts shared by its files: the frame state, the
 * instruction record, the analysis context and the per-instruction model
 * (aarch64_analyze_insn.c) that the ISA-neutral driver (unwind/analyze.c)
 * runs through the hooks in aarch64_analyze.c.
 * Private to profiler/unwind/aarch64. */
#ifndef KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/analyze.h"
#include "unwind/aarch64/aarch64_analyze.h"

/* What the analyzer knows about the frame before one instruction. */
typedef struct frame_state {
  int32_t sp_depth;   /* CFA - sp, valid when sp_known */
  int32_t fp_depth;   /* CFA - x29, valid when fp_is_frame */
  int32_t fp_slot;    /* the caller's x29 is at CFA + fp_slot, when fp_saved */
  int32_t ra_slot;    /* the return address is at CFA + ra_slot, when ra_saved */
  bool sp_known;      /* sp is a known distance below the CFA */
  bool fp_is_frame;   /* x29 points at this function's saved x29 */
  bool fp_saved;      /* the caller's x29 is in memory */
  bool ra_saved;      /* the return address is in memory, not in x30 */
  bool fp_reloaded;   /* x29 was loaded back from its slot, still allocated */
  bool ra_reloaded;   /* x30 was loaded back from its slot, still allocated */
  bool record_pushed; /* x29 was saved by a pre-index store that also
                         allocated the frame (stp x29, x30, [sp, #-n]!) */
  bool restore_soon;  /* x29/x30 were reloaded from [sp]: see prepare() */
  bool cfa_on_fp;     /* the recipe computes the CFA from x29 */
  bool uncertain;     /* an instruction that was not modeled moved sp or x30 */
  bool guessed;       /* derived from the canonical state, not along a
                        followed path: gives way to a branch's state */
} frame_state;

/* Enough for the branches of large functions (knit_analyzer.targets_work);
 * when the table is full, further targets are not recorded and code
 * reached only through them gets the canonical state. */
#define TARGETS_MAX 256

/* General registers x0..x30 (and their w views) for the constant table. */
#define GPR_COUNT 31

/* What one analysis keeps besides the frame state (knit_analysis.model). */
typedef struct a64_model {
  bool cfa_from_fp;     /* this run moves the CFA to x29 at the frame set-up */
  bool wants_fp;        /* sp was restored from x29 or lost under a frame */
  uint32_t const_known; /* bit i: x_i holds const_value[i] */
  int64_t const_value[GPR_COUNT];
} a64_model;

/* An operand as the model reads it. */
typedef struct a64_operand {
  int64_t imm;        /* ARM64_OP_IMM: the immediate; ARM64_OP_MEM: disp */
  uint16_t reg;       /* ARM64_OP_REG: the register; ARM64_OP_MEM: base */
  uint16_t index;     /* ARM64_OP_MEM */
  uint8_t type;       /* arm64_op_type */
  uint8_t shift_type; /* arm64_shifter */
  uint8_t shift_value;
  uint8_t ext; /* arm64_extender */
} a64_operand;

/* Operands kept of an instruction: enough for every form the model reads
 * (a load or store pair with post-index has four). */
#define A64_OPERANDS 4

#define A64_WRITES_SP 0x01
#define A64_WRITES_FP 0x02
#define A64_WRITES_LR 0x04
#define A64_SP_FIRST  0x08 /* sp comes before x29 in the written list */

/* One instruction, classified once (knit_aarch64_classify): what the model
 * reads of it. */
typedef struct a64_record {
  knit_insn_head head;
  a64_operand op[A64_OPERANDS];
  int64_t post_imm;     /* the post-index increment, when post_index */
  uint32_t forget;      /* bit i: x_i written (cs_regs_access) */
  uint32_t load_forget; /* bit i: x_i among a load's leading registers */
  uint16_t id;          /* arm64_insn */
  uint8_t op_count;     /* Capstone's (the first A64_OPERANDS are kept) */
  uint8_t cc;           /* arm64_cc */
  int8_t mem_at;        /* the index of the memory operand, or -1 */
  uint8_t writes;       /* A64_WRITES_*, A64_SP_FIRST */
  bool writeback;
  bool post_index;  /* writeback, with the increment after the memory
                           operand */
  bool has_target;  /* target: the last operand is an immediate */
  bool stack_load;  /* a load from the stack: an epilogue's restore */
  bool frees_stack; /* add sp, sp, #n: frees a frame */
  uint64_t target;
} a64_record;

static const frame_state entry_state = {.sp_known = true};

/* ---- The per-instruction model (aarch64_analyze_insn.c) ---- */

/* Completes the restores of x29 and x30 that were reloaded. */
void knit_aarch64_complete_restores(frame_state *s);

/* Fills an a64_record from a decoded instruction (knit_analyzer.classify). */
void knit_aarch64_classify(size_t cs_handle, const cs_insn *insn, void *rec);

/* Updates s for one instruction and says how control continues
 * (knit_analyzer.apply). */
knit_flow_kind knit_aarch64_apply(knit_analysis *an, void *s, const void *rec, uint64_t at,
                                  uint64_t *target);

#endif /* KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H */
