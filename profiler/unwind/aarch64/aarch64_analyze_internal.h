/* The aarch64 analyzer's parts shared by its files: the frame state, the
 * analysis run and the per-instruction model (aarch64_analyze_insn.c) that
 * the sweep (aarch64_analyze.c) drives.
 * Private to profiler/unwind/aarch64. */
#ifndef KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/aarch64/aarch64_analyze.h"

/* What the analyzer knows about the frame before one instruction. */
typedef struct frame_state {
  int32_t sp_depth;  /* CFA - sp, valid when sp_known */
  int32_t fp_depth;  /* CFA - x29, valid when fp_is_frame */
  int32_t fp_slot;   /* the caller's x29 is at CFA + fp_slot, when fp_saved */
  int32_t ra_slot;   /* the return address is at CFA + ra_slot, when ra_saved */
  bool sp_known;     /* sp is a known distance below the CFA */
  bool fp_is_frame;  /* x29 points at this function's saved x29 */
  bool fp_saved;     /* the caller's x29 is in memory */
  bool ra_saved;     /* the return address is in memory, not in x30 */
  bool fp_reloaded;  /* x29 was loaded back from its slot, still allocated */
  bool ra_reloaded;  /* x30 was loaded back from its slot, still allocated */
  bool record_pushed; /* x29 was saved by a pre-index store that also
                         allocated the frame (stp x29, x30, [sp, #-n]!) */
  bool restore_soon; /* x29/x30 were reloaded from [sp]: see run() */
  bool cfa_on_fp;    /* the recipe computes the CFA from x29 */
  bool uncertain;    /* an instruction that was not modeled moved sp or x30 */
  bool guessed;      /* derived from the canonical state, not along a
                        followed path: gives way to a branch's state */
} frame_state;

/* The state a branch leaves for its target, forward or backward, kept
 * across passes. Offsets into the function keep the table small. */
typedef struct target_state {
  uint32_t addr; /* the target */
  uint32_t from; /* the branch whose state was recorded */
  frame_state state;
} target_state;

/* Enough for the branches of large functions; when the table is full,
 * further targets are not recorded and code reached only through them gets
 * the canonical state. With the constant table the analysis keeps about
 * 10 KiB on the stack, within a signal stack. */
#define TARGETS_MAX 256

/* Passes over the function at most: each pass but the last learns a state
 * for a target already passed (a block entered by a backward branch); the
 * cap bounds the time spent on pathological code, and the last pass's
 * recipes are kept. */
#define PASSES_MAX 16

/* General registers x0..x30 (and their w views) for the constant table. */
#define GPR_COUNT 31

typedef enum flow_kind {
  FLOW_NEXT,    /* falls through to the next instruction */
  FLOW_BRANCH,  /* conditional: falls through and may go to target */
  FLOW_JUMP,    /* unconditional to target inside the function */
  FLOW_END,     /* ret, tail call, indirect branch, trap */
} flow_kind;

/* Everything one analysis run needs, kept together so that the helpers stay
 * small and the run stays free of global state. */
typedef struct analysis {
  csh handle;
  uint64_t func_start;
  uint64_t func_end;
  knit_recipe *out;
  int max;
  int count;
  bool changed;       /* this pass learnt a state for code it had passed */
  int target_count;   /* sorted by address */
  target_state targets[TARGETS_MAX];
  bool cfa_from_fp;   /* this pass moves the CFA to x29 at the frame set-up */
  bool wants_fp;      /* sp was restored from x29 or lost under a frame */
  uint32_t const_known;          /* bit i: x_i holds const_value[i] */
  int64_t const_value[GPR_COUNT];
} analysis;

_Static_assert(sizeof(((analysis *)0)->targets) <= 12 * 1024,
               "the target table must stay small enough for a signal stack");

static const frame_state entry_state = {.sp_known = true};

/* ---- The per-instruction model (aarch64_analyze_insn.c) ---- */

/* Completes the restores of x29 and x30 that were reloaded. */
void knit_aarch64_complete_restores(frame_state *s);

/* A load from the stack: part of an epilogue's run of restores. */
bool knit_aarch64_is_stack_load(const cs_insn *insn);

/* add sp, sp, #n: the instruction that frees a frame. */
bool knit_aarch64_frees_stack(const cs_insn *insn);

/* Whether target lies inside the function analysed. */
bool knit_aarch64_in_function(const analysis *a, uint64_t target);

/* Updates s for one instruction and says how control continues. */
flow_kind knit_aarch64_model_insn(analysis *a, frame_state *s, const cs_insn *insn,
                                  uint64_t *target);

#endif /* KNIT_UNWIND_AARCH64_ANALYZE_INTERNAL_H */
