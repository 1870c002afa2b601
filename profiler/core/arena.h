/* Memory that is safe to take inside a signal handler.
 *
 * malloc may hold a lock the interrupted code holds, so nothing on the
 * sample path uses it. Two allocators stand in:
 *
 *  - knit_arena: one owner (a thread), bump allocation in mmap'd chunks,
 *    released all at once. Used for a thread's calling-context tree.
 *  - knit_shared_alloc: any thread, any context, lock-free bump allocation
 *    in process-wide chunks, never released. Used for what threads share
 *    (unwind recipes, region call paths, Capstone's own allocations).
 *
 * Both get their memory from mmap, which is a plain system call.
 */
#ifndef KNIT_CORE_ARENA_H
#define KNIT_CORE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct knit_arena_chunk knit_arena_chunk;

typedef struct knit_arena {
  knit_arena_chunk *current;
  size_t chunk_size;  /* size of ordinary chunks; larger requests get their own */
  size_t mapped;      /* bytes mapped so far, all chunks */
  size_t limit;       /* allocation fails past this many mapped bytes (0: none) */
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

/* Bytes the shared arena has mapped (for statistics). */
size_t knit_shared_mapped(void);

#endif /* KNIT_CORE_ARENA_H */
