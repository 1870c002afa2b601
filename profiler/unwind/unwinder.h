/* The arch-neutral unwinder: from one set of registers to a list of frames,
 * using the load map, function bounds and recipes. Async-signal-safe; every
 * memory read goes through the caller's read function. */
#ifndef KNIT_UNWIND_UNWINDER_H
#define KNIT_UNWIND_UNWINDER_H

#include <stdint.h>

#include "unwind/loadmap.h"
#include "unwind/recipe_cache.h"

typedef struct knit_frame {
  uint64_t pc;      /* frame 0: the interrupted pc; others: a return address */
  uint64_t cfa;     /* the frame's CFA (its caller's sp); UINT64_MAX if unknown */
  uint32_t module;  /* load map id, or KNIT_MODULE_UNKNOWN */
  uint64_t offset;  /* pc - module base, or pc when the module is unknown */
} knit_frame;

typedef enum knit_unwind_end {
  KNIT_UNWIND_COMPLETE = 0,  /* reached the function where the stack begins */
  KNIT_UNWIND_PARTIAL = 1,   /* stopped early: unknown code or a bad step */
  KNIT_UNWIND_TRUNCATED = 2, /* the frame array was full */
} knit_unwind_end;

/* One remembered step: see knit_unwinder.cache. Kept to 32 bytes, so that
 * the entries a walk touches stay in few cache lines: signal delivery
 * evicts much of the first-level cache between samples. */
typedef struct knit_step_cache_entry {
  uint64_t key;          /* pc, with bit 0 set for the innermost frame */
  uint64_t base;         /* the module's load bias */
  uint32_t module;       /* load map id + 1; 0: empty */
  int32_t cfa_offset;
  int16_t ra_offset;     /* steps whose offsets do not fit are not cached */
  int16_t fp_offset;
  uint8_t root;
  uint8_t cfa_base;
  uint8_t ra_rule;
  uint8_t fp_rule;
} knit_step_cache_entry;

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
  /* Optional (NULL: none): KNIT_STEP_CACHE_SIZE entries owned by the
   * unwinder's thread, remembering the steps of recent return addresses. */
  knit_step_cache_entry *cache;
  const knit_loadmap *cache_map;  /* the load map the cache was filled under */
} knit_unwinder;

/* Unwinds from regs into frames[0..max) and returns the number of frames;
 * *end says how the walk ended. */
int knit_unwind(knit_unwinder *u, const knit_regs *regs, knit_frame *frames, int max,
                knit_unwind_end *end);

#endif /* KNIT_UNWIND_UNWINDER_H */
