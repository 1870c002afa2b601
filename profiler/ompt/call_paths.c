/* Capturing and interning the call path where a parallel region begins
 * (or an explicit task is created): a walk of the thread's own stack, or,
 * when the same capture was made before, its remembered result
 * (capture_cache.h). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>

#include "core/arena.h"
#include "core/safe_format.h"
#include "core/session.h"
#include "core/thread.h"
#include "core/unloads.h"
#include "measure/format.h"
#include "ompt/attribution.h"
#include "ompt/capture_cache.h"
#include "ompt/ompt_state.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/walk_deps.h"

#define CAPTURE_MAX_FRAMES KNIT_CAPTURE_FRAMES
#define INTERN_SLOTS (1u << 14)

/* Interned paths: a region opened again from the same place finds its path
 * here and allocates nothing. Paths are never freed, so a worker may keep a
 * pointer to one for as long as it likes. */
static _Atomic(knit_call_path *) interned[INTERN_SLOTS];

static uint32_t hash_frames(const knit_path_frame *f, uint32_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t i = 0; i < n; i++) {
    h ^= f[i].offset + ((uint64_t)f[i].module << 40) + f[i].kind;
    h *= 0x100000001b3ull;
  }
  return (uint32_t)(h ^ (h >> 32));
}

static bool same(const knit_call_path *p, const knit_path_frame *f, uint32_t n, uint32_t h)
{
  if (p->hash != h || p->length != n)
    return false;
  for (uint32_t i = 0; i < n; i++)
    if (p->frames[i].offset != f[i].offset || p->frames[i].module != f[i].module ||
        p->frames[i].kind != f[i].kind)
      return false;
  return true;
}

static const knit_call_path *intern(const knit_path_frame *f, uint32_t n)
{
  uint32_t h = hash_frames(f, n);
  for (uint32_t i = 0; i < INTERN_SLOTS; i++) {
    _Atomic(knit_call_path *) *slot = &interned[(h + i) & (INTERN_SLOTS - 1)];
    knit_call_path *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p && same(p, f, n, h))
      return p;
    if (p)
      continue;
    knit_call_path *fresh = knit_shared_alloc(sizeof *fresh + n * sizeof f[0], 16);
    if (!fresh)
      return NULL;
    fresh->length = n;
    fresh->hash = h;
    memcpy(fresh->frames, f, n * sizeof f[0]);
    knit_call_path *expected = NULL;
    if (atomic_compare_exchange_strong(slot, &expected, fresh))
      return fresh;
    if (same(expected, f, n, h))
      return expected; /* another thread interned the same path first */
  }
  /* The table is full: the path is still right, only not shared. */
  knit_call_path *fresh = knit_shared_alloc(sizeof *fresh + n * sizeof f[0], 16);
  if (fresh) {
    fresh->length = n;
    fresh->hash = h;
    memcpy(fresh->frames, f, n * sizeof f[0]);
  }
  return fresh;
}

/* A thread's capture state: its cache, the scratch a miss describes its
 * walk in (too large for the stack of a runtime's callback), and the
 * runtime's module as knit_unwind_limit gives it, which costs an OMPT
 * inquiry and a look-up: kept for the map and the thread's kind it was
 * found under. */
typedef struct knit_capture_state knit_capture_state;
struct knit_capture_state {
  knit_capture_cache cache;
  knit_walk_deps deps;
  const knit_loadmap *module_map;
  uint32_t module_kind; /* 1 + the thread's OpenMP bit, 2 if OMPT is active; 0: none yet */
  uint32_t stop_module;
  /* How captures were answered (knit_capture_log). */
  uint64_t walked, remembered, checked, differed;
};

static uint32_t runtime_module(knit_thread *t, knit_capture_state *st, const knit_loadmap *map)
{
  uint32_t kind = 1u +
                  ((atomic_load_explicit(&t->flags, memory_order_relaxed) & KNIT_THREAD_OPENMP)
                       ? 1u
                       : 0u) +
                  (knit_ompt_runtime.active ? 2u : 0u);
  if (st->module_map != map || st->module_kind != kind) {
    uint64_t unused_at;
    bool unused_is_cfa;
    knit_unwind_limit(&unused_at, &unused_is_cfa, &st->stop_module);
    st->module_map = map;
    st->module_kind = kind;
  }
  return st->stop_module;
}

/* The cache's answer, under the fault guard: an entry's words may lie in
 * memory that is gone by now (a stack that was unmapped), and a fault then
 * means only that the entry does not hold. */
__attribute__((noinline)) static const knit_call_path *
remembered(knit_thread *t, knit_capture_cache *c, const knit_capture_key *k,
           const knit_regs *regs)
{
  t->in_unwind = 1;
  if (sigsetjmp(t->fault_jump, 0) != 0)
    return NULL; /* the guard cleared in_unwind */
  const knit_call_path *p = knit_capture_cache_find(c, k, regs);
  t->in_unwind = 0;
  return p;
}


/* The capture the slow way: a walk from regs (the registers of
 * knit_capture_call_path's own frame, which is live below this one), the
 * encountering task's frames, the path, interned; and, when st is given,
 * the walk's description, so that the path is remembered. */
__attribute__((noinline)) static const knit_call_path *
walked(knit_thread *t, knit_capture_state *st, const ompt_frame_t *here,
       const knit_call_path *outer, const knit_regs *regs, const knit_capture_key *key)
{
  knit_frame *frames = t->capture_frames;
  int n = 0;
  knit_unwind_end end = KNIT_UNWIND_PARTIAL;
  volatile bool described = false; /* read after a fault's jump */
  t->in_unwind = 1;
  /* No signal mask saved (a system call per region): the fault guard
   * restores the mask itself (core/fault_guard.c). */
  if (sigsetjmp(t->fault_jump, 0) == 0) {
    /* The encountering task's own frames end at its exit frame. */
    t->unwinder.stop_at = key->exit;
    t->unwinder.stop_is_cfa = (key->exit_flags & ompt_frame_cfa) != 0;
    /* The runtime's module, as for a sample's walk (knit_unwind_limit): a
     * frame of the runtime whose recipe is uncertain (libomp's
     * __kmp_invoke_microtask on aarch64) is then known as the exit frame's
     * own, which matters when the encountering task is a worker's implicit
     * task (a task created inside `single`, say). */
    t->unwinder.stop_module = key->stop_module;
    n = knit_unwind(&t->unwinder, regs, frames, CAPTURE_MAX_FRAMES, &end);
    /* Described only under the map the key names (another thread may have
     * published a new one since the key was made), and when no library
     * was unloaded since the key was made, nor is being (core/unloads.h). */
    uint64_t unloads;
    described = st && knit_loadmap_current() == key->map &&
                knit_unloads_settled(&unloads) && unloads == key->unloads &&
                knit_walk_deps_of(&t->unwinder, key->map, regs, frames, n, end, &st->deps);
  } else {
    /* A read faulted: the frames found so far are a partial walk. */
    t->stats[KNIT_STAT_FAULTS]++;
    n = t->unwinder.progress;
    end = KNIT_UNWIND_PARTIAL;
  }
  t->in_unwind = 0;

  /* The encountering task's own frames, under that task's own prefix. */
  knit_path_frame *path = t->capture_path;
  uint32_t len = 0;
  int first, last;
  bool any = knit_task_frame_range(frames, n, here, &first, &last);
  /* Without an enter frame (none was set, or it named no live frame) the
   * walk starts in knit's callback and the runtime's entry point: both go,
   * by module, so that the program's call into the runtime is the path's
   * last frame, as an enter frame would have made it. */
  if (any && !here->enter_frame.ptr && key->stop_module != KNIT_MODULE_UNKNOWN) {
    while (first <= last && (frames[first].module == key->stop_module ||
                             knit_loadmap_is_self(frames[first].module)))
      first++;
    any = first <= last;
  }
  bool found_exit = here->exit_frame.ptr && last < n - 1;
  if (end == KNIT_UNWIND_PARTIAL && !found_exit) {
    path[len].module = KNIT_MODULE_PLACEHOLDER;
    path[len].offset = KNIT_PH_PARTIAL;
    path[len].kind = KNIT_NODE_PLACEHOLDER;
    len++;
  } else if (outer) {
    for (uint32_t i = 0; i < outer->length && len < CAPTURE_MAX_FRAMES; i++)
      path[len++] = outer->frames[i];
  }
  for (int i = any ? last : -1; any && i >= first && len < CAPTURE_MAX_FRAMES * 2; i--) {
    /* knit's own frames (a GOMP wrapper passing the call through) are
     * never the program's. */
    if (knit_loadmap_is_self(frames[i].module))
      continue;
    path[len].module = frames[i].module;
    path[len].offset = frames[i].offset;
    path[len].kind = KNIT_NODE_CALL;
    len++;
  }
  const knit_call_path *result = intern(path, len);
  if (described && result)
    knit_capture_cache_add(&st->cache, key, regs, &st->deps, result);
  return result;
}

/* Before a walk: the load map brought up to date (a library loaded since
 * the last look may hold the code that opens the region), outside the
 * claim, since it takes locks and may allocate. The key follows the map. */
static bool refresh(knit_thread *t, knit_capture_state *st, knit_capture_key *key)
{
  knit_thread_give_back(t);
  knit_loadmap_refresh(knit_self_address());
  if (!knit_thread_claim(t))
    return false;
  key->map = knit_loadmap_current();
  if (st) {
    key->stop_module = runtime_module(t, st, key->map);
  } else {
    uint64_t unused_at;
    bool unused_is_cfa;
    knit_unwind_limit(&unused_at, &unused_is_cfa, &key->stop_module);
  }
  return true;
}

const knit_call_path *knit_capture_call_path(const ompt_frame_t *here,
                                             const knit_call_path *outer)
{
  knit_thread *t = knit_thread_self();
  if (!t)
    return NULL;
  /* Not getcontext: it saves the signal mask, a system call per region. */
  knit_regs regs;
  knit_native_regs_here(&regs);
  /* The sample handler shares this thread's unwinder and fault guard:
   * claim them, so a sample that arrives meanwhile is dropped (and
   * counted) instead of interleaved. */
  if (!knit_thread_claim(t))
    return NULL;

  const ompt_frame_t none = {{0}, {0}, 0, 0};
  if (!here)
    here = &none;
  knit_capture_state *st = t->capture;
  if (!st)
    st = t->capture = knit_arena_alloc(&t->arena, sizeof *st, 64);
  knit_capture_key key;
  memset(&key, 0, sizeof key);
  key.map = knit_loadmap_current();
  key.outer = outer;
  key.enter = (uint64_t)(uintptr_t)here->enter_frame.ptr;
  key.exit = (uint64_t)(uintptr_t)here->exit_frame.ptr;
  key.enter_flags = here->enter_frame_flags;
  key.exit_flags = here->exit_frame_flags;
  /* No entry is looked at while a library is being unloaded: code may be
   * about to change under the addresses it names (core/unloads.h). */
  bool settled = knit_unloads_settled(&key.unloads);
  const knit_call_path *result = NULL;
  knit_capture_state *cache = knit_the_session.remember_captures ? st : NULL;
  if (cache && settled) {
    key.stop_module = runtime_module(t, st, key.map);
    result = remembered(t, &st->cache, &key, &regs);
  }
  if (!result) {
    if (!refresh(t, st, &key))
      return NULL;
    result = walked(t, cache, here, outer, &regs, &key);
    if (st)
      st->walked++;
  } else {
    st->remembered++;
    if (knit_the_session.check_captures) {
      /* What the capture would have been without the cache: the map
       * refreshed, the walk, its path. The same path is the same interned
       * object (or, when the table was full, equal). */
      knit_capture_key fresh = key;
      if (!refresh(t, NULL, &fresh))
        return result;
      const knit_call_path *truth = walked(t, NULL, here, outer, &regs, &fresh);
      st->checked++;
      if (truth != result &&
          !(truth && same(result, truth->frames, truth->length, truth->hash))) {
        st->differed++;
        result = truth;
      }
    }
  }
  knit_thread_give_back(t);
  return result;
}

void knit_capture_log(void)
{
  uint64_t walks = 0, hits = 0, checked = 0, differed = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    const knit_capture_state *st = t->capture;
    if (!st)
      continue;
    walks += st->walked;
    hits += st->remembered;
    checked += st->checked;
    differed += st->differed;
  }
  char line[256];
  knit_safe_snprintf(line, sizeof line,
                     "captures: walked=%llu remembered=%llu checked=%llu differed=%llu",
                     (unsigned long long)walks, (unsigned long long)hits,
                     (unsigned long long)checked, (unsigned long long)differed);
  knit_log_line(line);
}
