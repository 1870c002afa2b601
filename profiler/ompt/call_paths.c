/* Capturing and interning the call path where a parallel region begins
 * (or an explicit task is created): a walk of the thread's own stack, or,
 * when the same capture was made before, its remembered result
 * (capture_cache.h). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>

#include "base/arena.h"
#include "base/safe_format.h"
#include "core/session.h"
#include "core/fault_guard.h"
#include "core/thread.h"
#include "core/unloads.h"
#include "measure/format.h"
#include "ompt/offload_frames.h"
#include "ompt/attribution.h"
#include "ompt/capture_cache.h"
#include "ompt/frame_range.h"
#include "ompt/ompt_state.h"
#include "ompt/task_contexts.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/walk_deps.h"

#define CAPTURE_MAX_FRAMES KNIT_CAPTURE_FRAMES
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
  /* Libraries unloaded (core/unloads.h) when the thread last refreshed the
   * load map before a walk. */
  uint64_t unloads_seen;
  /* How captures were answered (knit_capture_log); forgotten: walks that
   * could not be remembered (unwind/walk_deps.h says why a walk may not
   * be described). */
  uint64_t walked, remembered, checked, differed, forgotten;
};

static uint32_t runtime_module(knit_thread *t, knit_capture_state *st, const knit_loadmap *map)
{
  uint32_t kind =
      1u +
      ((atomic_load_explicit(&t->flags, memory_order_relaxed) & KNIT_THREAD_OPENMP) ? 1u : 0u) +
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
remembered(knit_thread *t, knit_capture_cache *c, const knit_capture_key *k, const knit_regs *regs)
{
  t->in_unwind = 1;
  volatile bool opened = knit_fault_guard_open_here(); /* core/fault_guard.h */
  if (sigsetjmp(t->fault_jump, 0) != 0) {
    knit_fault_guard_close(opened);
    return NULL; /* the guard cleared in_unwind */
  }
  const knit_call_path *p = knit_capture_cache_find(c, k, regs);
  t->in_unwind = 0;
  knit_fault_guard_close(opened);
  return p;
}


/* The capture the slow way: a walk from regs (the registers of
 * knit_capture_call_path's own frame, which is live below this one), the
 * encountering task's frames, the path, interned; and, when st is given,
 * the walk's description, so that the path is remembered. */
__attribute__((noinline)) static const knit_call_path *
walked(knit_thread *t, knit_capture_state *st, const ompt_frame_t *here,
       const knit_call_path *outer, const knit_regs *regs, const knit_capture_key *key, bool *stale,
       bool transient)
{
  knit_frame *frames = t->capture_frames;
  int n = 0;
  knit_unwind_end end = KNIT_UNWIND_PARTIAL;
  volatile bool described = false; /* read after a fault's jump */
  t->in_unwind = 1;
  /* No signal mask saved (a system call per region): the fault guard
   * restores the mask itself (core/fault_guard.c). */
  volatile bool opened = knit_fault_guard_open_here(); /* core/fault_guard.h */
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
    described = st && knit_loadmap_current() == key->map && knit_unloads_settled(&unloads) &&
                unloads == key->unloads &&
                knit_walk_deps_of(&t->unwinder, key->map, regs, frames, n, end, &st->deps);
  } else {
    /* A read faulted: the frames found so far are a partial walk. */
    t->stats[KNIT_STAT_FAULTS]++;
    n = t->unwinder.progress;
    end = KNIT_UNWIND_PARTIAL;
  }
  t->in_unwind = 0;
  knit_fault_guard_close(opened);
  /* Code of no library the map knows: the map may be older than the code
   * (a library loaded since). The caller that walked without refreshing
   * it walks again after a refresh. A walk that stopped early otherwise
   * (a fault, say) would stop so again. */
  if (stale) {
    *stale = false;
    for (int i = 0; i < n && !*stale; i++)
      *stale = frames[i].module == KNIT_MODULE_UNKNOWN;
    if (*stale)
      return NULL;
  }

  /* The encountering task's own frames, under that task's own prefix. */
  knit_path_frame *path = t->capture_path;
  uint32_t len = 0;
  int first, last;
  bool any = knit_task_frame_range(frames, n, here, &first, &last);
  /* Without an enter frame (none was set, or it named no live frame) the
   * walk starts in knit's callback and the runtime's entry point: both go,
   * by module, so that the program's call into the runtime is the path's
   * last frame, as an enter frame would have made it. So do they when the
   * enter frame left one of them innermost: its flags said the frame it
   * names is the program's when it was the runtime's (libomp 14's flags
   * on a serialized region's task are stale memory, frame_range.h). */
  if (any && key->stop_module != KNIT_MODULE_UNKNOWN) {
    while (first <= last &&
           (frames[first].module == key->stop_module || knit_loadmap_is_self(frames[first].module)))
      first++;
    any = first <= last;
  }
  /* A task under a prefix whose runtime gave it no exit frame (libomp 14
   * gives none to the implicit task of a team of one inside a host teams
   * construct): the runtime called its body, so its own frames end where
   * the runtime's begin. Walking on would put the runtime's frames, and
   * the thread's start, inside the path. */
  bool cut_at_runtime = false;
  if (any && outer && !here->exit_frame.ptr && key->stop_module != KNIT_MODULE_UNKNOWN) {
    for (int i = first; i <= last; i++) {
      if (frames[i].module == key->stop_module) {
        last = i - 1;
        cut_at_runtime = true;
        break;
      }
    }
    any = first <= last;
  }
  /* A node of the path tree: the outer path, and only the frames of this
   * segment (path_tree.h). A walk that lost the segment's outer end has
   * no place under outer: it starts a path of its own, under <partial>. */
  bool found_exit = (here->exit_frame.ptr || cut_at_runtime) && last < n - 1;
  const knit_call_path *parent = outer;
  if (end == KNIT_UNWIND_PARTIAL && !found_exit) {
    parent = NULL;
    path[len].module = KNIT_MODULE_PLACEHOLDER;
    path[len].offset = KNIT_PH_PARTIAL;
    path[len].kind = KNIT_NODE_PLACEHOLDER;
    len++;
  }
  /* A region a kernel opens on the host: the offloading library's frames
   * become its construct, as in a sample's path (ompt/offload_frames.h). */
  knit_offload_run run =
      any ? knit_offload_run_find(frames, first, last, true) : (knit_offload_run){-1, -1};
  for (int i = any ? last : -1; any && i >= first && len < CAPTURE_MAX_FRAMES * 2; i--) {
    if (i == run.outer) {
      path[len].module = KNIT_MODULE_PLACEHOLDER;
      path[len].offset = KNIT_PH_OMP_TARGET;
      path[len].kind = KNIT_NODE_PLACEHOLDER;
      len++;
      i = run.inner;
      continue;
    }
    /* knit's own frames (a GOMP wrapper passing the call through) are
     * never the program's. */
    if (knit_loadmap_is_self(frames[i].module))
      continue;
    path[len].module = frames[i].module;
    path[len].offset = frames[i].offset;
    path[len].kind = KNIT_NODE_CALL;
    len++;
  }
  /* A task's transient context keeps the segment until the task is done
   * (task_contexts.h); anything else is interned. */
  const knit_call_path *result =
      transient ? knit_task_context_make(parent, path, len) : knit_path_intern(parent, path, len);
  if (described && result)
    knit_capture_cache_add(&st->cache, key, regs, &st->deps, result);
  else if (st)
    st->forgotten++;
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

static const knit_call_path *capture(knit_thread *t, const ompt_frame_t *here,
                                     const knit_call_path *outer, const void *site, bool transient)
{
  /* An interned path hangs only from interned ones; a transient one may
   * hang from either (task_contexts.h). */
  if (!transient)
    outer = knit_path_resolve(outer);
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
  key.site = (uint64_t)(uintptr_t)site;
  key.enter = (uint64_t)(uintptr_t)here->enter_frame.ptr;
  key.exit = (uint64_t)(uintptr_t)here->exit_frame.ptr;
  key.enter_flags = knit_ompt_frame_flags(here->enter_frame_flags);
  key.exit_flags = knit_ompt_frame_flags(here->exit_frame_flags);
  /* No entry is looked at while a library is being unloaded: code may be
   * about to change under the addresses it names (core/unloads.h). */
  bool settled = knit_unloads_settled(&key.unloads);
  const knit_call_path *result = NULL;
  /* A transient context is never remembered: it is given back with its
   * task, and its address is then another's. Its walk is short anyway (it
   * ends at the creating task's exit frame). */
  knit_capture_state *cache = knit_the_session.remember_captures && !transient ? st : NULL;
  if (cache && settled) {
    key.stop_module = runtime_module(t, st, key.map);
    result = remembered(t, &st->cache, &key, &regs);
  }
  if (!result) {
    /* With the map as it is, when no library was unloaded since this
     * thread last refreshed it: a refresh takes the loader's lock
     * (dl_iterate_phdr), which threads that create tasks by the million
     * would contend for at every task. A walk that meets code the map does
     * not know is walked again after a refresh. */
    bool stale = true;
    if (settled && st && key.unloads == st->unloads_seen) {
      key.stop_module = runtime_module(t, st, key.map);
      result = walked(t, cache, here, outer, &regs, &key, &stale, transient);
    }
    if (stale) {
      if (!refresh(t, st, &key))
        return NULL;
      if (st && knit_unloads_settled(&key.unloads))
        st->unloads_seen = key.unloads;
      result = walked(t, cache, here, outer, &regs, &key, NULL, transient);
    }
    if (st)
      st->walked++;
  } else {
    st->remembered++;
    if (knit_the_session.check_captures) {
      /* What the capture would have been without the cache: the map
       * refreshed, the walk, its path. */
      knit_capture_key fresh = key;
      if (!refresh(t, NULL, &fresh))
        return result;
      const knit_call_path *truth = walked(t, NULL, here, outer, &regs, &fresh, NULL, false);
      st->checked++;
      if (!knit_path_equal(truth, result)) {
        st->differed++;
        result = truth;
      }
    }
  }
  knit_thread_give_back(t);
  return result;
}

const knit_call_path *knit_capture_call_path(const ompt_frame_t *here, const knit_call_path *outer,
                                             const void *site)
{
  knit_thread *t = knit_thread_self();
  if (!t)
    return NULL;
  /* Signals that come during the capture are taken by the callback that
   * asked for it, once the path it makes is published: taking them here
   * would wait for a region's path that this very capture makes
   * (missed_samples.h). */
  return capture(t, here, outer, site, false);
}

const knit_call_path *knit_capture_task_path(const ompt_frame_t *here, const knit_call_path *outer)
{
  knit_thread *t = knit_thread_self();
  if (!t)
    return NULL;
  return capture(t, here, outer, NULL, true);
}

void knit_capture_log(void)
{
  uint64_t walks = 0, hits = 0, checked = 0, differed = 0, forgotten = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    const knit_capture_state *st = t->capture;
    if (!st)
      continue;
    walks += st->walked;
    hits += st->remembered;
    checked += st->checked;
    differed += st->differed;
    forgotten += st->forgotten;
  }
  char line[256];
  knit_safe_snprintf(line, sizeof line,
                     "captures: walked=%llu remembered=%llu checked=%llu differed=%llu",
                     (unsigned long long)walks, (unsigned long long)hits,
                     (unsigned long long)checked, (unsigned long long)differed);
  knit_log_line(line);
  if (forgotten > 0) {
    knit_safe_snprintf(line, sizeof line,
                       "captures: %llu walks could not be remembered (unwind/walk_deps.h)",
                       (unsigned long long)forgotten);
    knit_log_line(line);
  }
  /* How many creation contexts the process keeps: interned nodes, and
   * tasks' transient ones (made, given back, interned on demand). */
  uint64_t nodes, frames, made, given_back, resolved;
  knit_path_tree_counts(&nodes, &frames);
  knit_task_context_counts(&made, &given_back, &resolved);
  knit_safe_snprintf(line, sizeof line,
                     "contexts: interned=%llu frames=%llu transient=%llu given_back=%llu "
                     "resolved=%llu",
                     (unsigned long long)nodes, (unsigned long long)frames,
                     (unsigned long long)made, (unsigned long long)given_back,
                     (unsigned long long)resolved);
  knit_log_line(line);
}
