/* Memory that is safe to take inside a signal handler.
 *
 * malloc may hold a lock the interrupted code holds, so nothing on the
 * sample path uses it. Two allocators stand in:
 *
 *  - knit_arena: one owner (a thread), bump allocation in mmap'd chunks,
 *    released all at once. Used for a thread's calling-context tree.
 *  - knit_shared_alloc: any thread, any context, lock-free bump allocation
 *    in process-wide chunks, never released. Used for what threads share
 *    (unwind recipes, region call paths, Capstone's own allocations) and
 *    for what lives as long as the process (threads' states, load maps).
 *  - knit_pages_alloc: a mapping of its own per block, for what knit frees
 *    again (scratch of a library's scan, a thread's start arguments).
 *
 * All get their memory from mmap, which is a plain system call.
 *
 * Nothing of knit's comes from the program's malloc either, outside the
 * signal handler too (but a thread's own state: core/thread.c says why):
 * blocks of knit's among the program's would move the program's own, and
 * its runtime's, to other addresses than they have without knit, and
 * change which of them share cache lines. GNU libgomp's
 * tiny regions ran 6% slower for knit's few blocks placed before the
 * runtime's first team (bench_region_overhead: 1.07 of libgomp's time with
 * them, 1.01 without), even in regions knit did not touch.
 */
#ifndef KNIT_CORE_ARENA_H
#define KNIT_CORE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct knit_arena_chunk knit_arena_chunk;

typedef struct knit_arena {
  knit_arena_chunk *current;
  size_t chunk_size; /* size of ordinary chunks; larger requests get their own */
  size_t mapped;     /* bytes mapped so far, all chunks */
  size_t limit;      /* allocation fails past this many mapped bytes (0: none) */
} knit_arena;

/* Prepares an arena; maps nothing yet. */
void knit_arena_init(knit_arena *a, size_t chunk_size, size_t limit);

/* Returns zeroed memory aligned to align (a power of two, at most 4096), or
 * NULL when mmap fails or the limit is reached. Async-signal-safe for the
 * arena's owner (not re-entrant on the same arena). */
void *knit_arena_alloc(knit_arena *a, size_t size, size_t align);

/* Unmaps every chunk. */
void knit_arena_release(knit_arena *a);

/* Returns zeroed memory from the process-wide arena, or NULL. Lock-free and
 * async-signal-safe from any thread. The memory is never returned. */
void *knit_shared_alloc(size_t size, size_t align);

/* Zeroed memory of its own mapping, 64-byte aligned, or NULL: for blocks
 * that are freed again (knit_pages_free), and for a thread's hot blocks,
 * which then share no cache line with another thread's data. Each costs
 * a page at least, so not for many small ones. */
void *knit_pages_alloc(size_t size);

/* p (from knit_pages_alloc, or NULL) grown or shrunk to size, its contents
 * kept up to the smaller size, as realloc does; NULL when that fails, p
 * then unchanged. */
void *knit_pages_resize(void *p, size_t size);

/* The bytes a block of knit_pages_alloc can hold: its size asked for, or
 * more (the rest of its last page). */
size_t knit_pages_capacity(const void *p);

/* Unmaps a block of knit_pages_alloc (NULL: nothing). */
void knit_pages_free(void *p);

/* Bytes the shared arena has mapped (for statistics). */
size_t knit_shared_mapped(void);

#endif /* KNIT_CORE_ARENA_H */
