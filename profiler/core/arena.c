/* Signal-safe allocators: see arena.h for why they exist. */
#include "core/arena.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

struct knit_arena_chunk {
  knit_arena_chunk *prev;
  size_t size;              /* bytes mapped, header included */
  _Atomic size_t used;      /* bytes handed out, header included */
};

static size_t round_up(size_t v, size_t align) { return (v + align - 1) & ~(align - 1); }

static knit_arena_chunk *map_chunk(size_t size)
{
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  knit_arena_chunk *c = p;
  c->prev = NULL;
  c->size = size;
  atomic_store_explicit(&c->used, round_up(sizeof *c, 64), memory_order_relaxed);
  return c;
}

/* Carves size bytes at align out of c, or returns NULL when they do not fit.
 * The compare-and-swap loop makes this safe for concurrent callers and for
 * a signal handler that interrupts another allocation of the same chunk. */
static void *carve(knit_arena_chunk *c, size_t size, size_t align)
{
  size_t used = atomic_load_explicit(&c->used, memory_order_relaxed);
  for (;;) {
    size_t start = round_up((uintptr_t)c + used, align) - (uintptr_t)c;
    size_t next = start + size;
    if (next > c->size)
      return NULL;
    if (atomic_compare_exchange_weak_explicit(&c->used, &used, next, memory_order_relaxed,
                                              memory_order_relaxed))
      return (char *)c + start;
  }
}

void knit_arena_init(knit_arena *a, size_t chunk_size, size_t limit)
{
  a->current = NULL;
  a->chunk_size = chunk_size ? round_up(chunk_size, 4096) : (1u << 20);
  a->mapped = 0;
  a->limit = limit;
}

void *knit_arena_alloc(knit_arena *a, size_t size, size_t align)
{
  if (a->current) {
    void *p = carve(a->current, size, align);
    if (p)
      return p;
  }
  size_t need = round_up(size + align + 64, 4096);
  size_t csize = need > a->chunk_size ? need : a->chunk_size;
  if (a->limit && a->mapped + csize > a->limit)
    return NULL;
  knit_arena_chunk *c = map_chunk(csize);
  if (!c)
    return NULL;
  a->mapped += csize;
  /* A request larger than a chunk gets a chunk of its own, kept behind the
   * current one so the current one's free space is not abandoned. */
  if (need > a->chunk_size && a->current) {
    c->prev = a->current->prev;
    a->current->prev = c;
  } else {
    c->prev = a->current;
    a->current = c;
  }
  return carve(c, size, align);
}

void knit_arena_release(knit_arena *a)
{
  knit_arena_chunk *c = a->current;
  while (c) {
    knit_arena_chunk *prev = c->prev;
    munmap(c, c->size);
    c = prev;
  }
  a->current = NULL;
  a->mapped = 0;
}

/* The shared arena: one current chunk published through an atomic pointer.
 * When it is full, every thread that notices maps a fresh chunk and tries to
 * install it; the losers unmap theirs. */
#define SHARED_CHUNK_SIZE (4u << 20)
static _Atomic(knit_arena_chunk *) shared_current;
static _Atomic size_t shared_mapped;

void *knit_shared_alloc(size_t size, size_t align)
{
  for (;;) {
    knit_arena_chunk *c = atomic_load_explicit(&shared_current, memory_order_acquire);
    if (c) {
      void *p = carve(c, size, align);
      if (p)
        return p;
    }
    size_t need = round_up(size + align + 64, 4096);
    size_t csize = need > SHARED_CHUNK_SIZE ? need : SHARED_CHUNK_SIZE;
    knit_arena_chunk *fresh = map_chunk(csize);
    if (!fresh)
      return NULL;
    if (need > SHARED_CHUNK_SIZE) {
      /* Too big to share a chunk: keep it private to this request. */
      atomic_fetch_add(&shared_mapped, csize);
      return carve(fresh, size, align);
    }
    fresh->prev = c;
    if (atomic_compare_exchange_strong_explicit(&shared_current, &c, fresh, memory_order_acq_rel,
                                                memory_order_acquire)) {
      atomic_fetch_add(&shared_mapped, csize);
    } else {
      munmap(fresh, csize);
    }
  }
}

size_t knit_shared_mapped(void) { return atomic_load(&shared_mapped); }
