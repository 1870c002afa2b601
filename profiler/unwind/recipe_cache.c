/* The shared recipe cache: see recipe_cache.h. */
#include "unwind/recipe_cache.h"

#include <stdatomic.h>
#include <string.h>

#include "base/arena.h"

typedef struct cached_function {
  uint32_t count;
  knit_recipe recipes[];
} cached_function;

typedef struct slot {
  _Atomic uint64_t start;             /* key: start | module << 48; 0: free */
  _Atomic(cached_function *) recipes; /* NULL: being analyzed */
} slot;

#define CACHE_SLOTS (1u << 16)
#define MAX_PROBES  64u
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

static uint64_t key_of(uint32_t module, uint64_t start)
{
  /* User-space addresses fit in 48 bits (QEMU's guests included): the
   * module id fills the bits above. */
  return start | (uint64_t)(module + 1) << 48;
}

/* Looks key up. Returns its published recipes, or NULL: then *claimed is
 * the slot this call claimed for it (NULL when another thread is analyzing
 * it or the probes ran out: the caller analyzes it uncached). */
static cached_function *find_or_claim(uint64_t key, slot **claimed)
{
  uint32_t h = hash_addr(key);
  *claimed = NULL;
  for (uint32_t i = 0; i < MAX_PROBES; i++) {
    slot *s = &table[(h + i) & (CACHE_SLOTS - 1)];
    uint64_t found = atomic_load_explicit(&s->start, memory_order_acquire);
    if (found == key)
      return atomic_load_explicit(&s->recipes, memory_order_acquire);
    if (found == 0) {
      uint64_t expected = 0;
      if (atomic_compare_exchange_strong(&s->start, &expected, key)) {
        *claimed = s;
        return NULL;
      }
      if (expected == key)
        return NULL;
    }
  }
  return NULL;
}

/* Publishes n recipes (n <= 0: the failure, so the function is not decoded
 * at every sample) in the claimed slot. Returns the shared copy, or NULL. */
static cached_function *publish(slot *claimed, const knit_recipe *r, int n)
{
  if (!claimed)
    return NULL;
  size_t count = n > 0 ? (size_t)n : 0;
  cached_function *f = knit_shared_alloc(sizeof *f + count * sizeof(knit_recipe), 16);
  if (!f)
    return NULL;
  f->count = (uint32_t)count;
  if (count)
    memcpy(f->recipes, r, count * sizeof(knit_recipe));
  atomic_store_explicit(&claimed->recipes, f, memory_order_release);
  return f;
}

static bool analyzable(const knit_decoder *dec, uint64_t start, uint64_t end)
{
  return dec->open && dec->isa->analyze && end > start && end - start <= KNIT_MAX_FUNCTION_BYTES;
}

/* The states at which the function [start, end) is entered, when it is a
 * part of another (bounds.h, parent): its parent's at each of its jumps
 * into it (entries of a part: isa.h). The parent may be a part itself,
 * entered with states of its own, so the chain of parents (up to
 * KNIT_MAX_PART_DEPTH) is analyzed from the outermost in: analyzed as if
 * called, a part that pops its parent's registers before a tail jump hands
 * on a state off by what it popped. A parent that cannot be analyzed, or
 * whose analysis saw no jump to the start of the next link, leaves that
 * link to be analyzed as if called. The parents' recipes come out of the
 * same analyses: they are published too, when no thread has done so yet.
 * Iterative, with two sets of entries of the scratch in turn: the
 * analyses run inside the signal handler, on whatever stack the thread
 * has. The part's own go to scratch->entries[0]. */
static bool part_entry(knit_decoder *dec, knit_recipe_scratch *scratch, uint32_t module,
                       const knit_func_table *funcs, uint64_t base, uint64_t start, uint64_t end,
                       uint64_t *built)
{
  knit_part_entries *entries = &scratch->entries[0];
  if (!funcs || !dec->isa->analyze_entered)
    return false;
  /* chain[0] is start's parent, chain[k + 1] chain[k]'s. */
  uint64_t chain_start[KNIT_MAX_PART_DEPTH], chain_end[KNIT_MAX_PART_DEPTH];
  int depth = 0;
  for (uint64_t at = start; depth < KNIT_MAX_PART_DEPTH; depth++) {
    uint64_t pstart, pend;
    if (!knit_bounds_parent(funcs, at - base, &pstart, &pend))
      break;
    chain_start[depth] = pstart + base;
    chain_end[depth] = pend + base;
    at = chain_start[depth];
  }
  const knit_part_entries *in = NULL;
  for (int k = depth - 1; k >= 0; k--) {
    uint64_t pstart = chain_start[k], pend = chain_end[k];
    uint64_t into = k > 0 ? chain_start[k - 1] : start;
    uint64_t into_end = k > 0 ? chain_end[k - 1] : end;
    knit_part_entries *out = k > 0 ? &scratch->entries[1 + (k & 1)] : entries;
    int n =
        analyzable(dec, pstart, pend)
            ? dec->isa->analyze_entered(dec->handle, dec->insn, (const uint8_t *)(uintptr_t)pstart,
                                        pend - pstart, pstart, in, into, into_end, out,
                                        scratch->recipes, KNIT_RECIPE_SCRATCH, &scratch->work)
            : -1;
    if (n <= 0) {
      in = NULL;
      continue;
    }
    (*built)++;
    slot *claimed;
    if (!find_or_claim(key_of(module, pstart), &claimed) && claimed)
      publish(claimed, scratch->recipes, n);
    in = knit_part_entry_at(out, into) ? out : NULL;
  }
  return depth > 0 && in == entries;
}

const knit_recipe *knit_recipe_cache_get_in(knit_decoder *dec, knit_recipe_scratch *scratch,
                                            uint32_t module, const knit_func_table *funcs,
                                            uint64_t base, uint64_t start, uint64_t end,
                                            uint64_t pc, uint64_t *built)
{
  slot *claimed;
  cached_function *f = find_or_claim(key_of(module, start), &claimed);
  if (f)
    return pick(f->recipes, f->count, pc);

  int n = -1;
  if (analyzable(dec, start, end)) {
    bool jumped = part_entry(dec, scratch, module, funcs, base, start, end, built);
    const uint8_t *code = (const uint8_t *)(uintptr_t)start;
    if (jumped)
      n = dec->isa->analyze_entered(dec->handle, dec->insn, code, end - start, start,
                                    &scratch->entries[0], 0, 0, NULL, scratch->recipes,
                                    KNIT_RECIPE_SCRATCH, &scratch->work);
    else
      n = dec->isa->analyze(dec->handle, dec->insn, code, end - start, start, scratch->recipes,
                            KNIT_RECIPE_SCRATCH, &scratch->work);
  }
  if (n <= 0) {
    publish(claimed, NULL, 0);
    return NULL;
  }
  (*built)++;
  f = publish(claimed, scratch->recipes, n);
  if (f)
    return pick(f->recipes, f->count, pc);
  return pick(scratch->recipes, (uint32_t)n, pc);
}

const knit_recipe *knit_recipe_cache_get(knit_decoder *dec, knit_recipe_scratch *scratch,
                                         uint32_t module, uint64_t start, uint64_t end, uint64_t pc,
                                         uint64_t *built)
{
  return knit_recipe_cache_get_in(dec, scratch, module, NULL, 0, start, end, pc, built);
}

const knit_recipe *knit_recipe_cache_get_unmapped(knit_decoder *dec, knit_recipe_scratch *scratch,
                                                  uint64_t unloads, uint64_t start, uint64_t end,
                                                  uint64_t pc, uint64_t *built)
{
  /* Ids above any load map id (KNIT_MAX_MODULES), whose key still fits
   * the 16 bits key_of gives the module. */
  uint32_t module = 0x8000u + (uint32_t)(unloads % 0x7fffu);
  return knit_recipe_cache_get_in(dec, scratch, module, NULL, 0, start, end, pc, built);
}
