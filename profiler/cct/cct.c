/* The per-thread calling-context tree: see cct.h. */
#include "cct/cct.h"

#include <string.h>

#define INITIAL_BUCKETS 4096u

static uint32_t hash_key(uint32_t parent, uint32_t module, uint64_t offset, uint8_t kind)
{
  uint64_t h = offset * 0x9E3779B97F4A7C15ull;
  h ^= ((uint64_t)parent << 32 | module) * 0xC2B2AE3D27D4EB4Full;
  h ^= kind;
  h ^= h >> 29;
  return (uint32_t)h;
}

static uint32_t new_node(knit_cct *t)
{
  uint32_t id = t->count;
  uint32_t chunk = id / KNIT_CCT_CHUNK_NODES;
  if (chunk >= KNIT_CCT_MAX_CHUNKS)
    return UINT32_MAX;
  if (!t->chunks[chunk]) {
    t->chunks[chunk] = knit_arena_alloc(t->arena, KNIT_CCT_CHUNK_NODES * sizeof(knit_cct_node), 64);
    if (!t->chunks[chunk])
      return UINT32_MAX;
  }
  t->count++;
  return id;
}

/* Doubles the bucket table once the chains grow long. The old table stays
 * in the arena: freeing is not possible there and the waste is bounded by
 * the final table's size. */
static void grow_buckets(knit_cct *t)
{
  uint32_t n = t->bucket_count * 2;
  uint32_t *b = knit_arena_alloc(t->arena, (size_t)n * sizeof *b, 64);
  if (!b)
    return; /* keep the old table: slower, still correct */
  for (uint32_t id = 1; id < t->count; id++) {
    knit_cct_node *node = knit_cct_node_at(t, id);
    uint32_t slot = hash_key(node->parent, node->module, node->offset, node->kind) & (n - 1);
    node->hash_next = b[slot];
    b[slot] = id;
  }
  t->buckets = b;
  t->bucket_count = n;
}

bool knit_cct_init(knit_cct *t, knit_arena *arena)
{
  memset(t, 0, sizeof *t);
  t->arena = arena;
  t->buckets = knit_arena_alloc(arena, INITIAL_BUCKETS * sizeof *t->buckets, 64);
  if (!t->buckets)
    return false;
  t->bucket_count = INITIAL_BUCKETS;
  uint32_t root = new_node(t);
  if (root != 0)
    return false;
  knit_cct_node *r = knit_cct_node_at(t, 0);
  r->module = KNIT_MODULE_PLACEHOLDER;
  r->offset = KNIT_PH_ROOT;
  r->kind = KNIT_NODE_PLACEHOLDER;
  r->parent = 0;
  return true;
}

uint32_t knit_cct_child(knit_cct *t, uint32_t parent, uint32_t module, uint64_t offset,
                        uint8_t kind)
{
  uint32_t h = hash_key(parent, module, offset, kind);
  for (uint32_t id = t->buckets[h & (t->bucket_count - 1)]; id;) {
    knit_cct_node *n = knit_cct_node_at(t, id);
    if (n->parent == parent && n->offset == offset && n->module == module && n->kind == kind)
      return id;
    id = n->hash_next;
  }
  uint32_t id = new_node(t);
  if (id == UINT32_MAX) {
    t->dropped++;
    return parent;
  }
  knit_cct_node *n = knit_cct_node_at(t, id);
  n->parent = parent;
  n->module = module;
  n->offset = offset;
  n->kind = kind;
  uint32_t slot = h & (t->bucket_count - 1);
  n->hash_next = t->buckets[slot];
  t->buckets[slot] = id;
  if (t->count > 2 * t->bucket_count)
    grow_buckets(t);
  return id;
}
