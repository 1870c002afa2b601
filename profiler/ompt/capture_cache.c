/* The per-thread cache of captured region paths: see capture_cache.h. */
#include "ompt/capture_cache.h"

#include <string.h>

static bool same_key(const knit_capture_key *a, const knit_capture_key *b)
{
  return a->map == b->map && a->outer == b->outer && a->site == b->site && a->enter == b->enter &&
         a->exit == b->exit && a->enter_flags == b->enter_flags && a->exit_flags == b->exit_flags &&
         a->stop_module == b->stop_module && a->unloads == b->unloads;
}

/* Whether entry e stands for a capture from regs with key k now. */
static inline bool holds(const knit_capture_entry *e, const knit_capture_key *k,
                         const knit_regs *regs)
{
  return e->path && e->regs.sp == regs->sp && e->regs.pc == regs->pc && same_key(&e->key, k) &&
         (!e->deps.needs_fp || e->regs.fp == regs->fp) &&
         (!e->deps.needs_lr || e->regs.lr == regs->lr) && knit_walk_deps_hold(&e->deps);
}

/* The set a capture's entry lives in: by what differs between call sites
 * (the construct's site, the stack pointer the walk starts from, the
 * encountering task's frame record and its prefix) and by the load map, so
 * that entries of a map replaced (a library unloaded) do not crowd the
 * sets of the new one; the words decide between entries of a set. */
static unsigned set_of(const knit_capture_key *k, const knit_regs *regs)
{
  uint64_t h = regs->sp ^ (k->enter * 0x9e3779b97f4a7c15ull) ^
               ((uint64_t)(uintptr_t)k->outer >> 4) ^ (k->site * 0xc2b2ae3d27d4eb4full) ^
               ((uint64_t)(uintptr_t)k->map * 0x165667b19e3779f9ull);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (unsigned)(h % KNIT_CAPTURE_CACHE_SETS);
}

const knit_call_path *knit_capture_cache_find(knit_capture_cache *c, const knit_capture_key *k,
                                              const knit_regs *regs)
{
  /* The entry that answered last, first: a region in a loop asks for the
   * same one every time. */
  const knit_capture_entry *last = &c->entries[c->last];
  if (holds(last, k, regs))
    return last->path;
  /* Then its set: two call chains may meet every test but the words (a
   * function with a region called from two places at one depth), and both
   * stay, a way each. */
  unsigned set = set_of(k, regs);
  for (unsigned w = 0; w < KNIT_CAPTURE_CACHE_WAYS; w++) {
    unsigned i = set * KNIT_CAPTURE_CACHE_WAYS + w;
    if (i != c->last && holds(&c->entries[i], k, regs)) {
      c->last = i;
      c->recent[set] = (uint8_t)w;
      return c->entries[i].path;
    }
  }
  return NULL;
}

void knit_capture_cache_add(knit_capture_cache *c, const knit_capture_key *k, const knit_regs *regs,
                            const knit_walk_deps *deps, const knit_call_path *path)
{
  /* An empty way, else the next after the one used last (round robin
   * past it: never the entry that just answered). */
  unsigned set = set_of(k, regs);
  unsigned way = (c->recent[set] + 1) % KNIT_CAPTURE_CACHE_WAYS;
  for (unsigned w = 0; w < KNIT_CAPTURE_CACHE_WAYS; w++)
    if (!c->entries[set * KNIT_CAPTURE_CACHE_WAYS + w].path) {
      way = w;
      break;
    }
  unsigned i = set * KNIT_CAPTURE_CACHE_WAYS + way;
  knit_capture_entry *e = &c->entries[i];
  c->last = i;
  c->recent[set] = (uint8_t)way;
  e->key = *k;
  e->regs = *regs;
  e->deps.needs_fp = deps->needs_fp;
  e->deps.needs_lr = deps->needs_lr;
  e->deps.count = deps->count;
  memcpy(e->deps.words, deps->words, deps->count * sizeof deps->words[0]);
  e->path = path;
}
