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

/* The state at which the function at start is entered, when it is a part
 * of another (bounds.h, parent): the state at its parent's first jump into
 * it. The parent may be a part itself, entered with a state of its own, so
 * that is worked out first: analyzed as if called, a part that pops its
 * parent's registers before a tail jump hands on a state off by what it
 * popped. The parents' recipes come out of the same analyses: they are
 * published too, when no thread has done so yet. */
static bool part_entry(knit_decoder *dec, knit_recipe_scratch *scratch, uint32_t module,
                       const knit_func_table *funcs, uint64_t base, uint64_t start, int depth,
                       knit_jump_state *entry, uint64_t *built)
{
  uint64_t pstart, pend;
  if (depth >= KNIT_MAX_PART_DEPTH || !funcs || !dec->isa->analyze_entered ||
      !knit_bounds_parent(funcs, start - base, &pstart, &pend))
    return false;
  pstart += base;
  pend += base;
  if (!analyzable(dec, pstart, pend))
    return false;
  knit_jump_state parent_entry;
  bool parent_is_part =
      part_entry(dec, scratch, module, funcs, base, pstart, depth + 1, &parent_entry, built);
  int n =
      dec->isa->analyze_entered(dec->handle, dec->insn, (const uint8_t *)(uintptr_t)pstart,
                                pend - pstart, pstart, parent_is_part ? &parent_entry : NULL, start,
                                entry, scratch->recipes, KNIT_RECIPE_SCRATCH, &scratch->work);
  if (n <= 0)
    return false;
  (*built)++;
  slot *claimed;
  if (!find_or_claim(key_of(module, pstart), &claimed) && claimed)
    publish(claimed, scratch->recipes, n);
  return entry->found;
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
    knit_jump_state entry;
    bool jumped = part_entry(dec, scratch, module, funcs, base, start, 0, &entry, built);
    const uint8_t *code = (const uint8_t *)(uintptr_t)start;
    if (jumped)
      n = dec->isa->analyze_entered(dec->handle, dec->insn, code, end - start, start, &entry, 0,
                                    NULL, scratch->recipes, KNIT_RECIPE_SCRATCH, &scratch->work);
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
