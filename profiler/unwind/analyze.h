/* The recipe analyzer's driver, one for every ISA: the fixed point over a
 * function's instructions and the recipes it writes. Each ISA brings its
 * instruction model and its frame state as a table of hooks
 * (knit_analyzer, filled in profiler/unwind/<isa>/<isa>_analyze.c); the
 * driver knows neither.
 *
 * The analysis decodes one function linearly and tracks, before every
 * instruction, the ISA's frame state (where the CFA, the return address
 * and the caller's frame pointer are). Equal recipes of adjacent
 * instructions become one interval. Control flow is followed by repeating
 * the linear pass (a sweep) until it learns nothing new (at most
 * KNIT_ANALYZE_PASSES_MAX): every branch into the function, forward or
 * backward, records the state it leaves for its target, and the records
 * persist across passes. After an unconditional end of a path decoding
 * resumes with the state recorded for that address, which on a later pass
 * includes blocks entered only by a backward branch (loop bodies placed
 * after the jump into their condition); only code no recorded branch
 * reaches falls back to a guess, normally the "canonical" state (the one
 * that held after the prologue and before the first epilogue). States
 * carry how they were founded (the ISA's rank): one followed from the
 * entry beats a guessed one, so a guess never overrides what a branch
 * left. Alignment padding after a path end keeps the path ended. At every
 * return the state is the entry state again, whatever came before.
 *
 * Where a call's fall-through meets a branch target with another state,
 * the call did not return (abort, __stack_chk_fail): the branch's state
 * holds. How long after a call that is judged, and whether the analysis
 * learns it for the next pass, is the ISA's policy (knit_call_policy).
 *
 * Each instruction is decoded once per analysis: the ISA's model is split
 * into classify (Capstone's instruction to a compact record, which
 * depends on the bytes only) and apply (the record's effect on a state),
 * and the records of a function are kept in the caller's workspace for
 * the passes after the first (and a second run). A function with more
 * instructions than the workspace holds is decoded again from where the
 * records end; without a workspace every pass decodes.
 *
 * The analyzer runs inside the profiler's signal handler: it allocates
 * nothing, keeps no global state and calls only cs_disasm_iter and
 * cs_regs_access, which work on caller-provided memory.
 */
#ifndef KNIT_UNWIND_ANALYZE_H
#define KNIT_UNWIND_ANALYZE_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"
#include "unwind/recipe.h"

/* How an instruction continues the control flow. */
typedef enum knit_flow_kind {
  FLOW_NEXT,   /* falls through to the next instruction */
  FLOW_BRANCH, /* conditional: falls through and may go to target */
  FLOW_JUMP,   /* unconditional to target inside the function */
  FLOW_END,    /* return, tail call, indirect jump, trap: the path ends */
} knit_flow_kind;

/* What the driver reads of an instruction's record. Every ISA's record
 * begins with this head; the rest is the ISA's own. */
typedef struct knit_insn_head {
  uint64_t jump_target; /* with KNIT_INSN_JUMPS */
  uint16_t flags;       /* KNIT_INSN_* */
  uint8_t size;         /* bytes taken, or skipped when it did not decode */
} knit_insn_head;

#define KNIT_INSN_UNDECODED 0x01 /* Capstone decoded nothing here */
#define KNIT_INSN_PADDING   0x02 /* alignment padding (nop and the like) */
#define KNIT_INSN_RETURN    0x04 /* a return: the state is the entry's */
#define KNIT_INSN_CALL                                                                             \
  0x08 /* a call whose fall-through may be
                                     dead (knit_call_policy) */
#define KNIT_INSN_BREAKS_RUN                                                                       \
  0x10 /* a call or branch: no epilogue runs
                                     across it (the canonical search) */
#define KNIT_INSN_CALL_SEQ                                                                         \
  0x20 /* still part of the call before it
                                     (KNIT_CALLS_SEQUENCE) */
#define KNIT_INSN_JUMPS                                                                            \
  0x40 /* a direct jump or conditional jump to
                                     jump_target */

/* Largest frame state and instruction record an ISA may have. */
#define KNIT_ANALYZE_STATE_MAX 64
#define KNIT_ANALYZE_INSN_MAX  128

/* Passes over the function at most. Each pass but the last learns a state
 * for a target already passed; well under ten passes suffice for every
 * function of libc, the cap only bounds the time spent on pathological
 * code (the last pass's recipes are kept). */
#define KNIT_ANALYZE_PASSES_MAX 16

/* Calls learnt not to return, per function (KNIT_CALLS_LEARNED); more are
 * still handled within each pass, only their fall-through's branch
 * records are not corrected. */
#define KNIT_ANALYZE_NORETURN_MAX 64

/* Where a call's fall-through meets a branch target whose state conflicts
 * (knit_analyzer.call_conflict), the branch's state wins. The policies
 * differ in how long the fall-through lasts and in what is learnt. */
typedef enum knit_call_policy {
  /* While the state has not changed since the call (padding and other
   * instructions that leave the frame alone included; bytes that do not
   * decode and branch targets end it). The call is then learnt not to
   * return: later passes end the path at it, its padding keeping its
   * state, and the canonical state it stood in stands for the canonical
   * one until a real path end is found. Padding right after a call is
   * taken to follow a call that does not return: its state a guess. */
  KNIT_CALLS_LEARNED,
  /* Over the instruction right after the call and those the model marks
   * KNIT_INSN_CALL_SEQ; nothing is learnt across passes. */
  KNIT_CALLS_SEQUENCE,
} knit_call_policy;

typedef struct knit_analysis knit_analysis;

/* An ISA's analyzer. States are the ISA's frame state, records its
 * instruction record, both opaque here (at most KNIT_ANALYZE_STATE_MAX
 * and KNIT_ANALYZE_INSN_MAX bytes), copied as bytes. model is the ISA's
 * per-analysis context (knit_analysis.model). Optional hooks may be NULL. */
typedef struct knit_analyzer {
  size_t state_size;
  size_t insn_size;
  /* Bytes covered by one flagged guess where nothing decodes (at most
   * what is left): 1 on x86-64, the instruction width elsewhere. */
  uint8_t undecoded_skip;
  /* The state at a function's first instruction, entered by a call; also
   * the state at every return. */
  const void *entry_state;
  /* Branch targets recorded at most, with the caller's workspace and
   * without one (then on the analyzer's stack, at most
   * KNIT_ANALYZE_STACK_TARGET_BYTES). When the table is full, further
   * targets are not recorded: code reached only through them gets a
   * guess, and the passes still end. */
  int targets_work;
  int targets_stack;
  knit_call_policy call_policy;
  /* A branch target starts a block: padding there is code. */
  bool target_padding_is_code;
  /* ... and so are bytes that do not decode there (an instruction
   * Capstone does not know, on a live path). */
  bool target_undecoded_is_code;

  /* --- the instruction model --- */
  /* Fills rec (insn_size bytes, head included but for size, which the
   * driver sets) from a decoded instruction. Depends on the instruction
   * only: records are kept across passes. */
  void (*classify)(size_t cs_handle, const cs_insn *insn, void *rec);
  /* Updates state for one decoded instruction at `at` and says how
   * control continues (*target for FLOW_BRANCH and FLOW_JUMP). */
  knit_flow_kind (*apply)(knit_analysis *an, void *state, const void *rec, uint64_t at,
                          uint64_t *target);
  /* Adjusts the state before the instruction's recipe is written, after
   * the reset at a return (NULL: nothing). */
  void (*prepare)(knit_analysis *an, void *state, const void *rec);
  /* A sweep begins; pass 0 is the first of a run (NULL: nothing). */
  void (*begin_pass)(knit_analysis *an, int pass);
  /* Paths join before the next instruction (a branch target, or a path
   * resumed after its end): what the model knows along one path only is
   * forgotten (NULL: nothing). */
  void (*join)(knit_analysis *an);
  /* After a run that produced recipes: whether to run the analysis again
   * (with what the model learnt in the run). NULL: never. */
  bool (*run_again)(knit_analysis *an);

  /* --- the frame state --- */
  /* The rule of a state (start and end are the driver's). */
  void (*recipe)(const void *state, knit_recipe *r);
  /* Equal as far as recipes and the model go (the guessed mark aside). */
  bool (*same)(const void *x, const void *y);
  /* How much a state can be trusted: higher wins at a branch target. */
  int (*rank)(const void *s);
  bool (*guessed)(const void *s);
  void (*mark_guessed)(void *s);
  /* The state was spoiled by an instruction the model does not follow:
   * after a path end the canonical guess is preferred to it, unless that
   * is spoiled too (NULL: never). */
  bool (*spoiled)(const void *s);
  /* The instruction built up or took down part of the frame (the
   * canonical search: an epilogue is a straight run of tear-downs). */
  bool (*grows)(const void *before, const void *after);
  bool (*shrinks)(const void *before, const void *after);
  /* The state known at a branch target conflicts with the one that fell
   * through from a call: the call did not return. */
  bool (*call_conflict)(const void *known, const void *fell);
  /* The guess a path resumes with after its end where no branch is
   * recorded (NULL: the canonical state). The driver marks it guessed. */
  void (*resume_guess)(knit_analysis *an, const void *canonical, void *out);

  /* --- code entered by a jump (NULL where the ISA does not model it) --- */
  /* The state at the start of the analysis: entry (from the parent's
   * jump), or NULL for a call (NULL hook: entry_state). */
  void (*start_state)(const uint8_t *code, size_t len, const knit_jump_state *entry, void *state);
  void (*to_jump)(const void *state, knit_jump_state *j);
} knit_analyzer;

/* Stack room for the branch targets of an analysis without a workspace. */
#define KNIT_ANALYZE_STACK_TARGET_BYTES (16u * 1024)

/* The bytes of one branch target's entry: its offset, the branch's, and
 * the state, 8-byte aligned. */
#define KNIT_ANALYZE_TARGET_BYTES(state_size) ((8u + (size_t)(state_size) + 7u) & ~(size_t)7)

/* An ISA's state and record fit the driver's room, and so do its target
 * tables (with and without a workspace). */
#define KNIT_ANALYZER_FITS(state, record, targets_stack, targets_work)                             \
  _Static_assert(sizeof(state) <= KNIT_ANALYZE_STATE_MAX, "the state fits the driver's");          \
  _Static_assert(sizeof(record) <= KNIT_ANALYZE_INSN_MAX &&                                        \
                     sizeof(record) >= sizeof(knit_insn_head),                                     \
                 "the record fits the driver's");                                                  \
  _Static_assert((targets_stack)*KNIT_ANALYZE_TARGET_BYTES(sizeof(state)) <=                       \
                     KNIT_ANALYZE_STACK_TARGET_BYTES,                                              \
                 "the target table fits the driver's stack room");                                 \
  _Static_assert((targets_work)*KNIT_ANALYZE_TARGET_BYTES(sizeof(state)) <                         \
                     KNIT_ANALYZE_WORK_BYTES,                                                      \
                 "the target table leaves the workspace room for records")

/* One analysis. The ISA's hooks read the function's bounds and code, and
 * their own context, model. */
struct knit_analysis {
  const knit_analyzer *az;
  void *model;
  csh handle;
  cs_insn *insn;
  const uint8_t *code;
  uint64_t func_start;
  uint64_t func_end;
  knit_recipe *out;
  int max;
  int count;
  bool changed; /* this pass learnt something for code it had passed */
  /* Branch targets, sorted by address: entries of a target offset, the
   * offset of the branch whose state was recorded, and the state. */
  unsigned char *targets;
  size_t target_stride;
  int target_count;
  int targets_max;
  /* Calls found not to return (offsets of the instruction after them). */
  int noreturn_count;
  uint32_t noreturn[KNIT_ANALYZE_NORETURN_MAX];
  /* Records of the first instructions (records_filled of records_max). */
  unsigned char *records;
  int records_max;
  int records_filled;
  /* The jumps asked for, into [jump_lo, jump_hi) (at_jumps NULL: none),
   * and the state at each address jumped to, written into the caller's
   * set (the handler's stack has no room for them) anew by every pass
   * (the last pass's are kept), with whether each was guessed. */
  uint64_t jump_lo, jump_hi;
  knit_part_entries *at_jumps;
  bool jump_guessed[KNIT_MAX_PART_ENTRIES];
  /* The addresses the code is entered at besides its start, with their
   * states: recorded as branch targets at the start of every run. */
  const knit_part_entries *entries;
};

/* Analyzes the function [addr, addr+len) at code (isa.h, analyze and
 * analyze_entered: the same arguments and contract). model is the ISA's
 * context, which its hooks find in the analysis. */
int knit_analyze_function(const knit_analyzer *az, void *model, size_t cs_handle, void *insn,
                          const uint8_t *code, size_t len, uint64_t addr,
                          const knit_part_entries *entries, uint64_t into, uint64_t into_end,
                          knit_part_entries *at_jumps, knit_recipe *out, int max,
                          knit_analyze_work *work);

/* For the ISAs' hooks: */

/* Whether target lies inside the function analysed. */
static inline bool knit_analysis_in_function(const knit_analysis *an, uint64_t target)
{
  return target >= an->func_start && target < an->func_end;
}

/* Records the state a branch at `at` leaves for target (apply may record
 * more targets than the one it returns: the cases of a jump table). */
void knit_analysis_record_target(knit_analysis *an, uint64_t at, uint64_t target,
                                 const void *state);

/* The function's bytes from addr (inside it) on; *left receives their
 * number. */
const uint8_t *knit_analysis_code_at(const knit_analysis *an, uint64_t addr, size_t *left);

/* Whether two recipes say the same (their intervals aside). */
bool knit_recipe_same_rule(const knit_recipe *a, const knit_recipe *b);

#endif /* KNIT_UNWIND_ANALYZE_H */
