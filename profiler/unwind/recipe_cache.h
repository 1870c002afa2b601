/* Recipes of every function analyzed so far, shared by all threads.
 *
 * A lock-free open-addressing table keyed by the function's runtime start
 * address. The first thread to sample a function analyzes it (inside its
 * handler), copies the recipes to shared memory and publishes them; others
 * find them. Two threads may analyze the same function at once: one wins the
 * slot and the other's work is used once and dropped.
 */
#ifndef KNIT_UNWIND_RECIPE_CACHE_H
#define KNIT_UNWIND_RECIPE_CACHE_H

#include <stdint.h>

#include "unwind/bounds.h"
#include "unwind/decoder.h"
#include "unwind/isa.h"
#include "unwind/recipe.h"

/* Per-thread room for one analysis (the handler must not allocate it). */
#define KNIT_RECIPE_SCRATCH 4096

typedef struct knit_recipe_scratch {
  knit_recipe recipes[KNIT_RECIPE_SCRATCH];
  /* The analyzer's tables: large ones do not fit a signal stack. */
  knit_analyze_work work;
  /* A part's entries (isa.h), and two sets for its chain of parents,
   * used in turn: for the same reason. */
  knit_part_entries entries[3];
} knit_recipe_scratch;

/* Largest function analyzed; beyond it the entry recipe is used. */
#define KNIT_MAX_FUNCTION_BYTES (1u << 20)

/* The recipe covering pc in the function [start, end) of module (a load
 * map id), analyzing the function if no thread has yet. Returns NULL when
 * the function's code cannot be analyzed. *built is incremented when this
 * call analyzed it. The module is part of the key: a library loaded where
 * an unloaded one was gets a new id, so its functions never find the old
 * one's recipes. Async-signal-safe. */
const knit_recipe *knit_recipe_cache_get(knit_decoder *dec, knit_recipe_scratch *scratch,
                                         uint32_t module, uint64_t start, uint64_t end, uint64_t pc,
                                         uint64_t *built);

/* knit_recipe_cache_get for a function of the bounds table funcs, loaded
 * at base (runtime address - ELF vaddr). When the function is a part
 * entered by jumps from a parent (a hot/cold split: knit_bounds_parent),
 * the parent is analyzed first (and cached too), and the part is analyzed
 * from the parent's state at its first jump into the part, rather than as
 * entered by a call. Async-signal-safe. */
const knit_recipe *knit_recipe_cache_get_in(knit_decoder *dec, knit_recipe_scratch *scratch,
                                            uint32_t module, const knit_func_table *funcs,
                                            uint64_t base, uint64_t start, uint64_t end,
                                            uint64_t pc, uint64_t *built);

/* knit_recipe_cache_get for a function of an object the load map does not
 * know yet (unwind/object_lookup.h), which has no module id. Its recipes
 * are kept under a key made of unloads, the number of libraries unloaded
 * so far (core/unloads.h), in place of the module: a library loaded later
 * where an unloaded one was is then looked up under another count, and
 * never finds the old one's recipes (the count is taken modulo 32767: a
 * run would have to unload that many libraries between the two). Analyzed
 * as entered by a call: no bounds table names its parts' parents.
 * Async-signal-safe. */
const knit_recipe *knit_recipe_cache_get_unmapped(knit_decoder *dec, knit_recipe_scratch *scratch,
                                                  uint64_t unloads, uint64_t start, uint64_t end,
                                                  uint64_t pc, uint64_t *built);

#endif /* KNIT_UNWIND_RECIPE_CACHE_H */
