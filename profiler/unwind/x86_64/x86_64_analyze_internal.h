/* The x86_64 analyzer's parts shared by its files: the frame state, the
 * instruction record and the per-instruction model (x86_64_analyze_insn.c)
 * that the ISA-neutral driver (unwind/analyze.c) runs through the hooks in
 * x86_64_analyze.c. Private to profiler/unwind/x86_64. */
#ifndef KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/analyze.h"
#include "unwind/x86_64/x86_64_analyze.h"

/* What the analyzer knows about the frame before one instruction. */
typedef struct frame_state {
  int32_t sp_depth;     /* CFA - rsp, valid when sp_known */
  int32_t fp_depth;     /* CFA - rbp, valid when fp_is_frame */
  int32_t fp_slot;      /* the caller's rbp is at CFA + fp_slot, when fp_saved */
  bool sp_known : 1;    /* rsp is a known distance below the CFA */
  bool fp_is_frame : 1; /* rbp was set from rsp and is a known distance below */
  bool fp_saved : 1;    /* the caller's rbp is in memory at CFA + fp_slot */
  bool cfa_on_fp : 1;   /* the recipe computes the CFA from rbp */
  bool uncertain : 1;   /* an instruction that was not modeled moved rsp */
  bool guessed : 1;     /* derived from the canonical state (or the state after
                        a possibly noreturn call), not along control flow
                        from the entry: such states give way to followed
                        ones at branch targets */
  /* gcc's DRAP realignment (an over-aligned local in a function that also
   * moves rsp by a register amount): lea r10,[rsp+8] puts the CFA in a
   * register, and rsp, r10; push [r10-8]; push rbp; mov rbp,rsp; push r10
   * builds a frame below an aligned point A that is no fixed distance from
   * the CFA. From the `and` on (realigned), sp_depth, fp_depth, fp_slot and
   * drap_slot count down from A instead of the CFA, and the CFA is found
   * again through the register's copy saved in the frame. */
  bool realigned : 1;
  bool drap_saved : 1; /* the CFA is in memory at A + drap_slot */
  int16_t drap_slot;
  uint8_t drap_reg; /* the 64-bit register that holds the CFA (0: none) */
  /* A frame moved to memory the caller provides (libffi's ffi_call_unix64,
   * which calls a function with a stack of arguments built in its
   * caller's alloca): mov r10,[rsp] copies the return address, mov
   * [rax+24],r10 and mov [rax+16],rbp store it and the caller's rbp in
   * that memory, and mov rbp,rax makes rbp the base of a frame whose CFA
   * is where the copy's slot says (rax+32): the return goes through the
   * copy. Followed through ra_copy_reg (a 64-bit register holding the
   * return address, 0: none) and reloc_reg (the register both were stored
   * relative to, 0: none), forgotten when either register is written.
   * Registers are Capstone's ids of the 64-bit ones (all below 256), and
   * the state stays within 24 bytes: 512 branch targets fill the driver's
   * 16 KiB of stack room. */
  bool reloc_ra_stored : 1; /* the copy is at reloc_reg + reloc_ra */
  bool reloc_fp_stored : 1; /* the caller's rbp is at reloc_reg + reloc_fp */
  uint8_t ra_copy_reg;
  uint8_t reloc_reg;
  int8_t reloc_ra;
  int8_t reloc_fp;
} frame_state;

/* Branch targets recorded per function (knit_analyzer.targets_work). Large
 * -O2 functions of libc have a few hundred (two, printf's workers, have
 * more); without a workspace the table lives on the analyzer's stack
 * (16 KiB). */
#define TARGETS_MAX 512

/* An operand as the model reads it. */
typedef struct x86_operand {
  int64_t value; /* X86_OP_IMM: the immediate; X86_OP_MEM: the displacement */
  uint16_t reg;  /* X86_OP_REG */
  uint16_t base; /* X86_OP_MEM */
  bool simple;   /* X86_OP_MEM: no index and no segment */
  uint8_t type;  /* x86_op_type */
  uint8_t size;
} x86_operand;

/* One instruction, classified once (knit_x86_64_classify): what the model
 * reads of it. */
typedef struct x86_record {
  knit_insn_head head;
  x86_operand op[2]; /* the first two operands */
  uint16_t id;       /* x86_record */
  uint8_t op_count;
  bool jump_group; /* X86_GRP_JUMP */
  /* The registers it writes (cs_regs_access): rsp, rbp, and bit i for
   * the i-th 64-bit general register of gpr64's table, any part of it. */
  bool writes_sp;
  bool writes_fp;
  uint16_t writes_gpr;
} x86_record;

static const frame_state entry_state = {
    .sp_depth = 8,
    .sp_known = true,
};

/* ---- The per-instruction model (x86_64_analyze_insn.c) ---- */

/* Fills an x86_record from a decoded instruction (knit_analyzer.classify). */
void knit_x86_64_classify(size_t cs_handle, const cs_insn *insn, void *rec);

/* Updates s for one instruction and says how control continues
 * (knit_analyzer.apply). */
knit_flow_kind knit_x86_64_apply(knit_analysis *an, void *s, const void *rec, uint64_t at,
                                 uint64_t *target);

#endif /* KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H */
