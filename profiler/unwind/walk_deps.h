/* What a finished walk depended on, so that it can be known to be the same
 * walk again without doing it.
 *
 * A walk (knit_unwind) is a function of its starting registers, the words
 * of memory it reads, the load map (which gives each pc its rule) and the
 * limits its caller set. Not every input decides it: the frame-pointer
 * register matters only where a rule computes a CFA from it, and a saved
 * frame pointer the walk reads is often replaced by the next frame's before
 * any rule uses it (code built without frame pointers keeps a loop counter
 * or a pointer in that register, which changes from call to call). The
 * description keeps the inputs that decide the frames: pc and sp always,
 * fp and lr when a rule used them, and the words, with their values, whose
 * value reached a frame's pc or CFA. Any walk from registers that agree on
 * those, over memory that holds those values, under the same map and
 * limits, applies the same rules to the same values and gives the same
 * frames: a cached result can stand for it (ompt/capture_cache.h).
 */
#ifndef KNIT_UNWIND_WALK_DEPS_H
#define KNIT_UNWIND_WALK_DEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/unwinder.h"

/* Words a description holds at most; a walk that reads more that matter is
 * not described (about two per frame: the return address, and a saved
 * frame pointer that a later rule uses). */
#define KNIT_WALK_DEPS_WORDS 96

typedef struct knit_walk_word {
  uint64_t addr;
  uint64_t value;
} knit_walk_word;

typedef struct knit_walk_deps {
  bool needs_fp;  /* the starting fp decided a CFA */
  bool needs_lr;  /* the starting lr was the innermost frame's return address */
  uint32_t count; /* words[0..count) */
  knit_walk_word words[KNIT_WALK_DEPS_WORDS];
} knit_walk_deps;

/* Describes the walk u just made under map from regs (frames[0..n), ended
 * as end) into *out. Returns false when it is not described: it ended
 * partial (on something that may not last: code of a library loaded since
 * the map was built, a recipe that could not be built), it went through a
 * signal frame (whose step reads a whole saved context), it read more words
 * than fit, or the steps worked out here do not give exactly the walk's
 * frames and end (a check, so that a description is never wrong). Reads the
 * words the walk read, directly: call it right after the walk, under the
 * same fault guard, while those frames are live. Async-signal-safe. */
bool knit_walk_deps_of(knit_unwinder *u, const knit_loadmap *map, const knit_regs *regs,
                       const knit_frame *frames, int n, knit_unwind_end end, knit_walk_deps *out);

/* Whether memory still holds the words of d. Reads them directly: a word
 * whose page is gone faults, so call it under the fault guard. */
static inline bool knit_walk_deps_hold(const knit_walk_deps *d)
{
  for (uint32_t i = 0; i < d->count; i++)
    if (*(const volatile uint64_t *)(uintptr_t)d->words[i].addr != d->words[i].value)
      return false;
  return true;
}

#endif /* KNIT_UNWIND_WALK_DEPS_H */
