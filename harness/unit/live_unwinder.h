/* An unwinder for the unit tests that walk their own live stack: Capstone
 * set up, the load map read, a decoder and scratch for recipes, a step
 * cache (the walk's fast loop), reading the process's own memory. */
#ifndef KNIT_HARNESS_LIVE_UNWINDER_H
#define KNIT_HARNESS_LIVE_UNWINDER_H

#include <stdlib.h>

#include "unwind/decoder.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/recipe_cache.h"
#include "unwind/unwinder.h"

/* 0, or -1 when something could not be set up. */
static inline int live_unwinder_setup(knit_unwinder *u)
{
  knit_decoder_setup();
  knit_loadmap_refresh((const void *)live_unwinder_setup);
  if (!knit_decoder_open(&u->decoder, knit_isa_native()))
    return -1;
  u->scratch = malloc(sizeof *u->scratch);
  u->cache = calloc(KNIT_STEP_CACHE_SIZE, sizeof *u->cache);
  u->read = knit_read_own_memory;
  return u->scratch && u->cache ? 0 : -1;
}

#endif /* KNIT_HARNESS_LIVE_UNWINDER_H */
