/* Signal-safe allocators: see arena.h for why they exist. */
#define _GNU_SOURCE /* mremap */
#include "base/arena.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

struct knit_arena_chunk {
  knit_arena_chunk *prev;
  size_t size;         /* bytes mapped, header included */
  _Atomic size_t used; /* bytes handed out, header included */
};

static size_t round_up(size_t v, size_t align)
{
  return (v + align - 1) & ~(align - 1);
}

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

size_t knit_shared_mapped(void)
{
  return atomic_load(&shared_mapped);
}

/* --- blocks of their own mapping --- */

/* In front of each block: the mapping's size and the block's offset in it.
 * The offset is 64 bytes and a colour: a further multiple of 64 that
 * changes from block to block. Blocks at the same offset of their pages
 * fall into the same sets of the caches, and a thread's hot blocks (its
 * state, its region board) all at one offset crowded one set: the mock
 * GNU runtime's regions ran 8% slower so. */
typedef struct pages_header {
  size_t mapped;
  size_t offset;
} pages_header;

#define PAGES_COLOURS 63u

static _Atomic unsigned pages_made;

static pages_header *header_of(void *p)
{
  return (pages_header *)p - 1;
}

size_t knit_pages_capacity(const void *p)
{
  const pages_header *h = (const pages_header *)p - 1;
  return h->mapped - h->offset;
}

/* A mapping of at least size bytes past offset, or NULL. */
static char *map_pages(size_t size, size_t offset, size_t *mapped)
{
  if (size > (size_t)-1 - offset - 4096)
    return NULL;
  *mapped = round_up(size + offset, 4096);
  char *m = mmap(NULL, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

void *knit_pages_alloc(size_t size)
{
  unsigned colour =
      (atomic_fetch_add_explicit(&pages_made, 1, memory_order_relaxed) * 37u) % PAGES_COLOURS;
  size_t offset = 64 + (size_t)colour * 64;
  size_t mapped;
  char *m = map_pages(size, offset, &mapped);
  if (!m)
    return NULL;
  void *p = m + offset;
  *header_of(p) = (pages_header){mapped, offset};
  return p;
}

void *knit_pages_resize(void *p, size_t size)
{
  if (!p)
    return knit_pages_alloc(size);
  pages_header h = *header_of(p);
  if (size > (size_t)-1 - h.offset - 4096)
    return NULL;
  size_t mapped = round_up(size + h.offset, 4096);
  if (mapped == h.mapped)
    return p;
  /* The kernel moves the pages themselves (fresh zeroed ones past the
   * old end): nothing is copied. */
  char *m = mremap((char *)p - h.offset, h.mapped, mapped, MREMAP_MAYMOVE);
  if (m == MAP_FAILED)
    return NULL;
  p = m + h.offset;
  header_of(p)->mapped = mapped;
  return p;
}

void knit_pages_free(void *p)
{
  if (p) {
    pages_header h = *header_of(p);
    munmap((char *)p - h.offset, h.mapped);
  }
}
