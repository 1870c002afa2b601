/* The arch-neutral unwinder: from one set of registers to a list of frames,
 * using the load map, function bounds and recipes. Async-signal-safe; every
 * memory read goes through the caller's read function. */
#ifndef KNIT_UNWIND_UNWINDER_H
#define KNIT_UNWIND_UNWINDER_H

#include <stdint.h>

#include "unwind/loadmap.h"
#include "unwind/recipe_cache.h"

typedef struct knit_frame {
  uint64_t pc;     /* frame 0: the interrupted pc; others: a return address */
  uint64_t cfa;    /* the frame's CFA (its caller's sp); UINT64_MAX if unknown */
  uint32_t module; /* load map id, or KNIT_MODULE_UNKNOWN */
  uint32_t flags;  /* KNIT_FRAME_* */
  uint64_t offset; /* pc - module base, or pc when the module is unknown */
} knit_frame;

/* --- signal frames --- */
/* The frame is a signal trampoline (a signal handler returns to it): the
 * next frame is the code the signal interrupted. */
#define KNIT_FRAME_SIGNAL      0x1u
/* The frame is the one a signal interrupted: its pc is the exact next
 * instruction, not a return address (as for the innermost frame). */
#define KNIT_FRAME_INTERRUPTED 0x2u
/* The walk stopped at this frame because it is the function the caller's
 * limit names (knit_unwinder.stop_at): the runtime function that called the
 * task. */
#define KNIT_FRAME_AT_LIMIT    0x4u

/* --- step classes --- */
/* Bits 8-9 of flags: the knit_step_class (step_class.h) of the step that
 * led from the previous frame (the callee) to this one; 0 for the
 * innermost frame. Kept with the caller so that the walk writes it with the
 * frame's other fields instead of going back to the frame before. */
#define KNIT_FRAME_STEP_SHIFT 8
#define KNIT_FRAME_STEP_MASK  (3u << KNIT_FRAME_STEP_SHIFT)
static inline unsigned knit_frame_step_class(const knit_frame *f)
{
  return (f->flags & KNIT_FRAME_STEP_MASK) >> KNIT_FRAME_STEP_SHIFT;
}
/* --- end of step classes --- */

typedef enum knit_unwind_end {
  KNIT_UNWIND_COMPLETE = 0,  /* reached the function where the stack begins */
  KNIT_UNWIND_PARTIAL = 1,   /* stopped early: unknown code or a bad step */
  KNIT_UNWIND_TRUNCATED = 2, /* the frame array was full */
} knit_unwind_end;

/* One remembered step: see knit_unwinder.cache. Kept to 32 bytes, so that
 * the entries a walk touches stay in few cache lines: signal delivery
 * evicts much of the first-level cache between samples. Room for the step
 * classes' facts was made by keeping the pc's offset in its module (code
 * offsets fit 32 bits) instead of the module's 64-bit base, and the module
 * id in 16 bits (KNIT_MAX_MODULES). Steps whose values do not fit are not
 * cached. */
typedef struct knit_step_cache_entry {
  uint64_t key;    /* pc, with bit 0 set for the innermost frame */
  uint32_t offset; /* pc - the module's load bias */
  int32_t cfa_offset;
  uint32_t func_delta; /* pc - start of its function; UINT32_MAX: unknown */
  int32_t call_delta;  /* KNIT_CALL_DIRECT before pc: its target - pc */
  uint16_t module;     /* load map id + 1; 0: empty */
  int16_t ra_offset;
  int16_t fp_offset;
  uint8_t cfa_base;
  uint8_t ra_rule : 2;
  uint8_t fp_rule : 2;
  uint8_t root : 1;
  uint8_t call : 2;      /* knit_call_kind of the instruction ending at pc */
  uint8_t uncertain : 1; /* the recipe is KNIT_RECIPE_UNCERTAIN */
} knit_step_cache_entry;
_Static_assert(sizeof(knit_step_cache_entry) == 32, "a step cache entry is 32 bytes");
_Static_assert(KNIT_MAX_MODULES < UINT16_MAX, "module ids + 1 fit a step cache entry");

#define KNIT_STEP_CACHE_SIZE 1024u /* 32 KiB */

typedef struct knit_unwinder {
  knit_decoder decoder;
  knit_recipe_scratch *scratch;
  knit_read_word_fn read;
  void *read_ctx;
  uint64_t recipes_built;
  /* Frames filled in so far by the walk under way: if a read faults and the
   * handler jumps out of the walk, this says how much of it is usable. */
  volatile int progress;
  /* Where to stop (0: at the bottom of the stack): the walk ends, complete,
   * at the frame stop_at names: the first frame whose CFA reaches it (for a
   * frame-pointer value, lies above it); or, for a frame-pointer value, a
   * frame of the runtime's module (stop_module) whose recipe is a guess and
   * whose stack lies below the value. Set by the caller before each walk. */
  uint64_t stop_at;
  bool stop_is_cfa;
  uint32_t stop_module; /* the runtime's load map id, for the guess above */
  /* Optional (NULL: none): KNIT_STEP_CACHE_SIZE entries owned by the
   * unwinder's thread, remembering the steps of recent return addresses. */
  knit_step_cache_entry *cache;
  const knit_loadmap *cache_map; /* the load map the cache was filled under */
  /* Optional (NULL: none): the number of libraries unloaded so far, false
   * while one is being (core/unloads.h). With it, a walk that meets code in
   * no module of the map looks for an object loaded since
   * (unwind/object_lookup.h) and keeps its recipes under that number. */
  bool (*unloads)(uint64_t *count);
} knit_unwinder;

/* Unwinds from regs into frames[0..max) and returns the number of frames;
 * *end says how the walk ended. */
int knit_unwind(knit_unwinder *u, const knit_regs *regs, knit_frame *frames, int max,
                knit_unwind_end *end);

/* What a walk does at one pc (see knit_unwind_rule). */
typedef enum knit_rule_kind {
  KNIT_RULE_NONE = 0, /* the code cannot be placed: the walk ends, partial */
  KNIT_RULE_ROOT = 1, /* a function where stacks begin: the walk ends, complete */
  KNIT_RULE_STEP = 2, /* the walk applies *rule (its rule fields; start and end unused) */
} knit_rule_kind;

/* The rule a walk under map applies at pc, for a frame that is the innermost
 * (pc exact) or a caller (pc a return address): from the step cache when it
 * holds the pc, else found as a cache miss finds it. Not the walk's own
 * path: for describing a finished walk (unwind/walk_deps.h). A signal
 * trampoline's pc gets the rule of ordinary code: the caller tells such
 * frames by their flags. Async-signal-safe. */
knit_rule_kind knit_unwind_rule(knit_unwinder *u, const knit_loadmap *map, uint64_t pc,
                                bool innermost, knit_recipe *rule);

#endif /* KNIT_UNWIND_UNWINDER_H */
