/* The x86_64 analyzer's parts shared by its files: the frame state, the
 * analysis run and the per-instruction model (x86_64_analyze_insn.c) that
 * the sweep (x86_64_analyze.c) drives.
 * Private to profiler/unwind/x86_64. */
#ifndef KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H
#define KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>
#include <stdint.h>

#include "unwind/x86_64/x86_64_analyze.h"

/* What the analyzer knows about the frame before one instruction. */
typedef struct frame_state {
  int32_t sp_depth;  /* CFA - rsp, valid when sp_known */
  int32_t fp_depth;  /* CFA - rbp, valid when fp_is_frame */
  int32_t fp_slot;   /* the caller's rbp is at CFA + fp_slot, when fp_saved */
  bool sp_known : 1;     /* rsp is a known distance below the CFA */
  bool fp_is_frame : 1;  /* rbp was set from rsp and is a known distance below */
  bool fp_saved : 1;     /* the caller's rbp is in memory at CFA + fp_slot */
  bool cfa_on_fp : 1;    /* the recipe computes the CFA from rbp */
  bool uncertain : 1;    /* an instruction that was not modeled moved rsp */
  bool guessed : 1;      /* derived from the canonical state (or the state after
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
  uint16_t drap_reg; /* the 64-bit register that holds the CFA (0: none) */
} frame_state;

/* The state a branch leaves for its target, kept across passes. Addresses
 * are offsets into the function (which is far below 4 GiB) to keep the
 * table small. */
typedef struct target_state {
  uint32_t addr;       /* the target */
  uint32_t from;       /* the branch whose state was recorded */
  frame_state state;
} target_state;

/* Branch targets recorded per function. Large -O2 functions of libc have a
 * few hundred (two, printf's workers, have more); the table lives on the
 * analyzer's stack (14 KiB). When it is full, further targets are not
 * recorded: code reached only through them gets the canonical state, as
 * unreached code does (the behaviour of the single-pass analyzer), and the
 * passes still end. */
#define TARGETS_MAX 512

/* Calls learnt not to return, per function; more are still handled
 * within each pass (see sweep), only their fall-through's branch records
 * are not corrected. */
#define NORETURN_MAX 64

/* Passes over the function at most. Each pass but the last learns a state
 * for a new target or a better one for a known target; well under ten
 * passes suffice for every function of libc, the cap only bounds the time
 * spent on pathological code (the last pass's recipes are kept). */
#define PASSES_MAX 16

/* How an instruction continues the control flow. */
typedef enum flow_kind {
  FLOW_NEXT,    /* falls through to the next instruction */
  FLOW_BRANCH,  /* conditional: falls through and may go to target */
  FLOW_JUMP,    /* unconditional to target; the path ends here */
  FLOW_END,     /* ret, tail call, trap: the path ends here */
} flow_kind;

/* Everything one analysis run needs, kept together so that helpers stay
 * small and the run stays free of global state. */
typedef struct analysis {
  csh handle;
  uint64_t func_start;
  uint64_t func_end;
  knit_recipe *out;
  int max;
  int count;
  bool changed;      /* this pass learnt something for code it had passed:
                        a target state or a noreturn call */
  int target_count;  /* sorted by address */
  target_state targets[TARGETS_MAX];
  /* Calls found not to return (offsets of the instruction after them):
   * later passes end the path there. */
  int noreturn_count;
  uint32_t noreturn[NORETURN_MAX];
  /* The jump asked for by knit_x86_64_analyze_entered (0: none) and the
   * state at it, found anew by every pass (the last pass's is kept). */
  uint64_t jump_to;
  bool jump_found;
  frame_state jump_state;
} analysis;

_Static_assert(sizeof(((analysis *)0)->targets) <= 16 * 1024,
               "the target table must stay small enough for a signal stack");

static const frame_state entry_state = {
  .sp_depth = 8, .sp_known = true,
};

/* ---- The per-instruction model (x86_64_analyze_insn.c) ---- */

/* A near ret: the return the state resets at (far returns pop more). */
bool knit_x86_64_is_return(unsigned id);

/* Whether target lies inside the function analysed. */
bool knit_x86_64_in_function(const analysis *a, uint64_t target);

/* Updates s for one instruction and says how control continues. */
flow_kind knit_x86_64_model_insn(analysis *a, frame_state *s, const cs_insn *insn,
                                 uint64_t *target);

#endif /* KNIT_UNWIND_X86_64_ANALYZE_INTERNAL_H */
