/* Capturing and interning the call path where a parallel region begins. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>
#include <ucontext.h>

#include "core/arena.h"
#include "core/thread.h"
#include "measure/format.h"
#include "ompt/attribution.h"
#include "ompt/ompt_state.h"
#include "ompt/walk_here.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"

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

const knit_call_path *knit_capture_call_path(const ompt_frame_t *here,
                                             const knit_call_path *outer)
{
  knit_thread *t = knit_thread_self();
  if (!t)
    return NULL;
  /* The encountering task's own frames end at its exit frame. The
   * runtime's module, as for a sample's walk (knit_unwind_limit): a frame
   * of the runtime whose recipe is uncertain (libomp's
   * __kmp_invoke_microtask on aarch64) is then known as the exit frame's
   * own, which matters when the encountering task is a worker's implicit
   * task (a task created inside `single`, say). */
  uint64_t unused_at;
  bool unused_is_cfa;
  uint32_t runtime_module;
  knit_unwind_limit(&unused_at, &unused_is_cfa, &runtime_module);
  knit_frame *frames = t->capture_frames;
  knit_unwind_end end;
  int n = knit_walk_here(t, here && here->exit_frame.ptr ? (uint64_t)(uintptr_t)here->exit_frame.ptr : 0,
                         here && (here->exit_frame_flags & ompt_frame_cfa), runtime_module, frames,
                         CAPTURE_MAX_FRAMES, &end);
  if (n < 0)
    return NULL;

  /* The encountering task's own frames, under that task's own prefix. */
  knit_path_frame *path = t->capture_path;
  uint32_t len = 0;
  int first, last;
  bool any = knit_task_frame_range(frames, n, here, &first, &last);
  bool found_exit = here && here->exit_frame.ptr && last < n - 1;
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
    const knit_module *m = knit_loadmap_module(frames[i].module);
    if (m && m->is_self)
      continue;
    path[len].module = frames[i].module;
    path[len].offset = frames[i].offset;
    path[len].kind = KNIT_NODE_CALL;
    len++;
  }
  const knit_call_path *result = intern(path, len);
  knit_walk_here_done(t);
  return result;
}
