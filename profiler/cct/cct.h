/* The calling-context tree of one thread.
 *
 * A node is (parent, module, offset, kind); its children are found through
 * one hash table per tree keyed by all four. Nodes live in chunks taken from
 * the thread's arena, so inserting a path is async-signal-safe and never
 * moves a node. Ids are dense and a parent's id is always smaller than its
 * children's, which is what the measurement format asks for.
 */
#ifndef KNIT_CCT_CCT_H
#define KNIT_CCT_CCT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "measure/format.h"

typedef struct knit_cct_node {
  uint64_t offset;
  uint32_t module;
  uint32_t parent;
  uint32_t hash_next; /* next node in the same bucket, 0 for none */
  uint8_t kind;
  /* The host's metrics; a target construct's device metrics are kept
   * apart, by the few nodes that have them (ompt/device.h). */
  uint64_t metrics[KNIT_METRIC_HOST_COUNT];
} knit_cct_node;

#define KNIT_CCT_CHUNK_NODES 4096u
#define KNIT_CCT_MAX_CHUNKS  4096u

typedef struct knit_cct {
  knit_arena *arena;
  knit_cct_node *chunks[KNIT_CCT_MAX_CHUNKS];
  uint32_t count;        /* nodes, the root included */
  uint32_t *buckets;     /* heads of the bucket chains (node ids; 0 = empty) */
  uint32_t bucket_count; /* a power of two */
  uint64_t dropped;      /* insertions refused for lack of memory */
} knit_cct;

/* Creates the root (id 0, a KNIT_PH_ROOT placeholder). Returns false when the
 * arena cannot supply the first chunk. */
bool knit_cct_init(knit_cct *t, knit_arena *arena);

/* The node with this id; id must be < t->count. */
static inline knit_cct_node *knit_cct_node_at(const knit_cct *t, uint32_t id)
{
  return &t->chunks[id / KNIT_CCT_CHUNK_NODES][id % KNIT_CCT_CHUNK_NODES];
}

/* Finds or inserts the child of parent with this key and returns its id.
 * When memory runs out, returns parent and counts the drop, so a sample is
 * charged to its longest known prefix rather than lost. */
uint32_t knit_cct_child(knit_cct *t, uint32_t parent, uint32_t module, uint64_t offset,
                        uint8_t kind);

#endif /* KNIT_CCT_CCT_H */
