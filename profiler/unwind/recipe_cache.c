/* The shared recipe cache: see recipe_cache.h. */
#include "unwind/recipe_cache.h"

#include <stdatomic.h>
#include <string.h>

#include "core/arena.h"

typedef struct cached_function {
  uint32_t count;
  knit_recipe recipes[];
} cached_function;

typedef struct slot {
  _Atomic uint64_t start;              /* key: start | module << 48; 0: free */
  _Atomic(cached_function *) recipes;  /* NULL: being analyzed */
} slot;

#define CACHE_SLOTS (1u << 16)
#define MAX_PROBES 64u
static slot table[CACHE_SLOTS];

static uint32_t hash_addr(uint64_t a)
{
  a ^= a >> 33;
  a *= 0xff51afd7ed558ccdull;
  a ^= a >> 33;
  return (uint32_t)a;
}

static const knit_recipe *pick(const knit_recipe *r, uint32_t n, uint64_t pc)
{
  const knit_recipe *hit = knit_recipe_find(r, n, pc);
  /* A return address can sit just past a function's last instruction (a
   * call to a function that does not return): the call's recipe holds. */
  return hit ? hit : knit_recipe_find(r, n, pc - 1);
}

const knit_recipe *knit_recipe_cache_get(knit_decoder *dec, knit_recipe_scratch *scratch,
                                         uint32_t module, uint64_t start, uint64_t end,
                                         uint64_t pc, uint64_t *built)
{
  /* User-space addresses fit in 48 bits (QEMU's guests included): the
   * module id fills the bits above. */
  uint64_t key = start | (uint64_t)(module + 1) << 48;
  uint32_t h = hash_addr(key);
  slot *claimed = NULL;
  for (uint32_t i = 0; i < MAX_PROBES; i++) {
    slot *s = &table[(h + i) & (CACHE_SLOTS - 1)];
    uint64_t found = atomic_load_explicit(&s->start, memory_order_acquire);
    if (found == key) {
      cached_function *f = atomic_load_explicit(&s->recipes, memory_order_acquire);
      if (f)
        return pick(f->recipes, f->count, pc);
      break; /* another thread is analyzing it: do it ourselves, uncached */
    }
    if (found == 0) {
      uint64_t expected = 0;
      if (atomic_compare_exchange_strong(&s->start, &expected, key)) {
        claimed = s;
        break;
      }
      if (expected == key)
        break;
    }
  }

  int n = -1;
  if (dec->open && dec->isa->analyze && end > start && end - start <= KNIT_MAX_FUNCTION_BYTES)
    n = dec->isa->analyze(dec->handle, dec->insn, (const uint8_t *)(uintptr_t)start,
                          end - start, start, scratch->recipes, KNIT_RECIPE_SCRATCH);
  if (n <= 0) {
    /* Remember the failure, so the function is not decoded at every sample. */
    if (claimed) {
      cached_function *none = knit_shared_alloc(sizeof *none, 16);
      if (none)
        atomic_store_explicit(&claimed->recipes, none, memory_order_release);
    }
    return NULL;
  }
  (*built)++;
  if (claimed) {
    cached_function *f = knit_shared_alloc(sizeof *f + (size_t)n * sizeof(knit_recipe), 16);
    if (f) {
      f->count = (uint32_t)n;
      memcpy(f->recipes, scratch->recipes, (size_t)n * sizeof(knit_recipe));
      atomic_store_explicit(&claimed->recipes, f, memory_order_release);
      return pick(f->recipes, f->count, pc);
    }
  }
  return pick(scratch->recipes, (uint32_t)n, pc);
}
