/* The per-thread cache of captured region paths: see capture_cache.h. */
#include "ompt/capture_cache.h"

#include <string.h>

static bool same_key(const knit_capture_key *a, const knit_capture_key *b)
{
  return a->map == b->map && a->outer == b->outer && a->enter == b->enter &&
         a->exit == b->exit && a->enter_flags == b->enter_flags &&
         a->exit_flags == b->exit_flags && a->stop_module == b->stop_module &&
         a->unloads == b->unloads;
}

/* Whether entry e stands for a capture from regs with key k now. */
static inline bool holds(const knit_capture_entry *e, const knit_capture_key *k,
                         const knit_regs *regs)
{
  return e->path && e->regs.sp == regs->sp && e->regs.pc == regs->pc && same_key(&e->key, k) &&
         (!e->deps.needs_fp || e->regs.fp == regs->fp) &&
         (!e->deps.needs_lr || e->regs.lr == regs->lr) && knit_walk_deps_hold(&e->deps);
}

const knit_call_path *knit_capture_cache_find(knit_capture_cache *c, const knit_capture_key *k,
                                              const knit_regs *regs)
{
  /* The entry that answered last, first: a region in a loop asks for the
   * same one every time. */
  const knit_capture_entry *last = &c->entries[c->last];
  if (holds(last, k, regs))
    return last->path;
  /* Then every entry: two call chains may meet every test but the words (a
   * region in f and one in g, both called from main, capture at the same
   * sp), and both stay. */
  for (unsigned i = 0; i < KNIT_CAPTURE_CACHE_ENTRIES; i++) {
    if (i != c->last && holds(&c->entries[i], k, regs)) {
      c->last = i;
      return c->entries[i].path;
    }
  }
  return NULL;
}

void knit_capture_cache_add(knit_capture_cache *c, const knit_capture_key *k,
                            const knit_regs *regs, const knit_walk_deps *deps,
                            const knit_call_path *path)
{
  knit_capture_entry *e = &c->entries[c->next];
  c->last = c->next;
  c->next = (c->next + 1) % KNIT_CAPTURE_CACHE_ENTRIES;
  e->key = *k;
  e->regs = *regs;
  e->deps.needs_fp = deps->needs_fp;
  e->deps.needs_lr = deps->needs_lr;
  e->deps.count = deps->count;
  memcpy(e->deps.words, deps->words, deps->count * sizeof deps->words[0]);
  e->path = path;
}
