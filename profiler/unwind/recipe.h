/* Unwind recipes: how to find a caller's frame from anywhere in a function.
 *
 * A recipe covers one address interval of one function and says where the
 * canonical frame address (CFA: the caller's stack pointer just before the
 * call), the return address and the caller's frame pointer are at every
 * instruction in that interval. Recipes are built by decoding the function's
 * machine code (one analyzer per ISA) and applied by a pure step function, so
 * both are testable on any host from recorded bytes.
 */
#ifndef KNIT_UNWIND_RECIPE_H
#define KNIT_UNWIND_RECIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which register the CFA is computed from. */
typedef enum knit_cfa_base {
  KNIT_CFA_SP = 0,       /* CFA = sp + cfa_offset */
  KNIT_CFA_FP = 1,       /* CFA = fp + cfa_offset */
  KNIT_CFA_SP_DEREF = 2, /* CFA = *(sp) + cfa_offset (ppc64 back chain) */
  /* CFA = *(fp + cfa_offset): a frame that realigned the stack through a
   * register holding the CFA (gcc's DRAP on x86-64) and saved that
   * register in the frame it then built; nothing in it lies at a fixed
   * distance from the CFA any more. */
  KNIT_CFA_FP_DEREF = 3,
} knit_cfa_base;

/* Where the return address is. */
typedef enum knit_ra_rule {
  KNIT_RA_AT_CFA = 0, /* in memory at cfa + ra_offset */
  KNIT_RA_IN_LR = 1,  /* still in the link register (leaf code) */
} knit_ra_rule;

/* Where the caller's frame pointer is. */
typedef enum knit_fp_rule {
  KNIT_FP_SAME = 0,   /* not changed by this function (yet, or any more) */
  KNIT_FP_AT_CFA = 1, /* saved in memory at cfa + fp_offset */
  KNIT_FP_AT_FP = 2,  /* saved in memory at the callee's fp + fp_offset (a
                         realigned frame: KNIT_CFA_FP_DEREF) */
} knit_fp_rule;

typedef struct knit_recipe {
  uint64_t start; /* first address covered */
  uint64_t end;   /* one past the last address covered */
  int32_t cfa_offset;
  int32_t ra_offset;
  int32_t fp_offset;
  uint8_t cfa_base; /* knit_cfa_base */
  uint8_t ra_rule;  /* knit_ra_rule */
  uint8_t fp_rule;  /* knit_fp_rule */
  uint8_t flags;    /* KNIT_RECIPE_* */
  /* --- frame pointer relative to sp (for knit audit) --- */
  /* fp == sp + fp_sp_delta over the whole interval, when flags has
   * KNIT_RECIPE_FP_KNOWN. The step does not need it; the audit does, to
   * accept CFI that computes the CFA from the other of two registers
   * holding the same frame (clang keeps it on x29 where gcc keeps it on
   * sp). Grows the recipe from 32 to 40 bytes. */
  int32_t fp_sp_delta;
} knit_recipe;

/* The interval follows an instruction the analyzer could not model (for
 * example an indirect change of the stack pointer): the recipe is a guess. */
#define KNIT_RECIPE_UNCERTAIN 0x01

/* fp_sp_delta holds: the analyzer knows fp - sp over the interval. */
#define KNIT_RECIPE_FP_KNOWN 0x02

/* No recipe was found for the code (no function bounds): the ISA's entry
 * recipe stands in, a guess that holds only at a function's first
 * instruction. A return address of 0 read by it is no sign of the stack's
 * end. Set by the unwinder, never by an analyzer. */
#define KNIT_RECIPE_GUESSED 0x04

/* Register state of one frame. pc is the next instruction the frame will
 * execute (for callers: the return address). */
typedef struct knit_regs {
  uint64_t pc;
  uint64_t sp;
  uint64_t fp; /* rbp on x86-64, x29 on aarch64, r31 on ppc64le */
  uint64_t lr; /* link register on aarch64 (x30) and ppc64le; 0 on x86-64 */
} knit_regs;

/* Reads one 8-byte word of the unwound process. Returns false when the
 * address cannot be read; the unwinder then ends the path as partial. */
typedef bool (*knit_read_word_fn)(void *ctx, uint64_t addr, uint64_t *out);

/* The unwinding process's own memory, read directly. Passing it as the
 * read function lets the step load the word inline instead of calling
 * through a pointer for every frame; a bad address then faults, and the
 * caller must guard for that (the sample handler does). */
bool knit_read_own_memory(void *ctx, uint64_t addr, uint64_t *out);

/* One word of the own stack, wherever a recipe says a frame keeps it: in
 * frames of any code, and past the ends of stacks a runtime made by hand
 * (the PGI layout's segments), where the walk may read a word of another
 * object. Such reads are what a sampling unwinder does, and a fault is
 * recovered (core/fault_guard.c); AddressSanitizer would call a read of
 * another object's redzone an overflow, so the load is not instrumented. */
__attribute__((no_sanitize("address"))) static inline uint64_t knit_load_own_word(uint64_t addr)
{
  return *(const volatile uint64_t *)(uintptr_t)addr;
}

static inline bool knit_read_word_(knit_read_word_fn read, void *ctx, uint64_t addr, uint64_t *out)
{
  if (read == knit_read_own_memory) {
    if (addr == 0 || (addr & 7) != 0)
      return false;
    *out = knit_load_own_word(addr);
    return true;
  }
  return read(ctx, addr, out);
}

/* Outcome of one step. */
typedef enum knit_step_result {
  KNIT_STEP_OK = 0,
  KNIT_STEP_BAD_READ = 1,  /* a memory read failed */
  KNIT_STEP_BAD_FRAME = 2, /* the result is implausible (sp did not grow) */
  KNIT_STEP_END = 3,       /* the return address is 0: by the ABIs'
                               convention the outermost frame of a stack */
} knit_step_result;

/* Computes the CFA of the frame described by r. Returns false when the base
 * is a memory word (ppc64 back chain, a saved DRAP) that cannot be read. */
static inline bool knit_recipe_cfa_(const knit_recipe *r, const knit_regs *callee,
                                    knit_read_word_fn read, void *ctx, uint64_t *cfa)
{
  uint64_t base;
  switch (r->cfa_base) {
  case KNIT_CFA_SP: base = callee->sp; break;
  case KNIT_CFA_FP: base = callee->fp; break;
  case KNIT_CFA_SP_DEREF:
    if (!knit_read_word_(read, ctx, callee->sp, &base))
      return false;
    break;
  case KNIT_CFA_FP_DEREF:
    /* The offset is where the CFA is saved, not added to it. */
    return knit_read_word_(read, ctx, callee->fp + (uint64_t)(int64_t)r->cfa_offset, cfa);
  default: return false;
  }
  /* Offsets are signed; unsigned wrap-around gives the right sum. */
  *cfa = base + (uint64_t)(int64_t)r->cfa_offset;
  return true;
}

/* Applies a recipe: computes the caller's registers from the callee's.
 * Pure: touches memory only through read. On success *caller holds the
 * caller's pc (the return address), sp (the CFA), fp and lr (lr is not
 * recoverable in general and is set to 0), and *cfa the CFA of the frame
 * left. Inline: it runs once per frame of every sample, and as a call its
 * results came back through memory in a way that stalled the loads after
 * it (two 8-byte stores read back as one 16-byte load). */
static inline knit_step_result knit_recipe_apply(const knit_recipe *r, const knit_regs *callee,
                                                 knit_read_word_fn read, void *ctx,
                                                 knit_regs *caller, uint64_t *cfa)
{
  uint64_t frame_cfa;
  if (!knit_recipe_cfa_(r, callee, read, ctx, &frame_cfa))
    return KNIT_STEP_BAD_READ;

  uint64_t ra;
  if (r->ra_rule == KNIT_RA_IN_LR) {
    ra = callee->lr;
  } else if (!knit_read_word_(read, ctx, frame_cfa + (uint64_t)(int64_t)r->ra_offset, &ra)) {
    return KNIT_STEP_BAD_READ;
  }

  uint64_t fp = callee->fp;
  if (r->fp_rule != KNIT_FP_SAME &&
      !knit_read_word_(read, ctx,
                       (r->fp_rule == KNIT_FP_AT_FP ? callee->fp : frame_cfa) +
                           (uint64_t)(int64_t)r->fp_offset,
                       &fp))
    return KNIT_STEP_BAD_READ;

  /* Stacks grow down, so a caller's frame lies strictly above its callee's.
   * The one exception is a leaf whose return address is still in the link
   * register: it may not have touched the stack at all, so the caller's sp
   * may equal the callee's. The lr of the caller is unknown (0), so a second
   * link-register step from the same sp cannot follow and loop. */
  /* The same holds for code that keeps no frame of its own but has saved
   * the return address in its caller's frame, above the CFA: ppc64's link
   * register save word (std r0,16(r1) in a prologue before its stdu, or
   * for good in a frameless function such as libc's clock_gettime, which
   * samples inside a system call land in). A second step from the same sp
   * and pc would read the same word again: that one is refused. */
  bool sp_grew = frame_cfa > callee->sp ||
                 (frame_cfa == callee->sp &&
                  (r->ra_rule == KNIT_RA_IN_LR ||
                   (r->ra_rule == KNIT_RA_AT_CFA && r->ra_offset > 0 && ra != callee->pc)));
  if (ra == 0)
    return KNIT_STEP_END;
  if (!sp_grew)
    return KNIT_STEP_BAD_FRAME;

  caller->pc = ra;
  caller->sp = frame_cfa;
  caller->fp = fp;
  caller->lr = 0;
  if (cfa)
    *cfa = frame_cfa;
  return KNIT_STEP_OK;
}


/* Finds the recipe covering pc in a sorted array; NULL when none does. */
const knit_recipe *knit_recipe_find(const knit_recipe *recipes, size_t count, uint64_t pc);

#endif /* KNIT_UNWIND_RECIPE_H */
