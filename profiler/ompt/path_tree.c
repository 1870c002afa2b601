/* The process-wide tree of creation contexts: see path_tree.h. */
#include "ompt/path_tree.h"

#include <stdatomic.h>
#include <string.h>

#include "base/arena.h"

/* Paths with no parent (a region opened from the initial task, a capture
 * that ended partial) hang from these lists, by hash: a program may open
 * regions from many places, and each place is a root of its own. */
#define ROOT_LISTS 256

static knit_call_path *_Atomic roots[ROOT_LISTS];
static _Atomic uint64_t made_nodes, made_frames;

/* Each thread carves its nodes from a chunk of its own: two threads that
 * create tasks at once would otherwise take turns on the shared arena's
 * one cursor (a cache line pulled back and forth at every task), and a
 * thread's nodes would be strewn among the other's. Initial-exec TLS,
 * so that reaching it from a signal handler never allocates. */
#define NODE_CHUNK (64u << 10)
static __thread struct {
  char *next, *end;
} node_chunk __attribute__((tls_model("initial-exec")));

static void *node_alloc(size_t size)
{
  size = (size + 15) & ~(size_t)15;
  if ((size_t)(node_chunk.end - node_chunk.next) < size) {
    if (size > NODE_CHUNK / 4)
      return knit_shared_alloc(size, 16);
    char *c = knit_shared_alloc(NODE_CHUNK, 64);
    if (!c)
      return NULL;
    node_chunk.next = c;
    node_chunk.end = c + NODE_CHUNK;
  }
  void *p = node_chunk.next;
  node_chunk.next += size;
  return p;
}

static uint32_t hash_of(const knit_call_path *parent, const knit_path_frame *f, uint32_t n)
{
  uint64_t h = 0xcbf29ce484222325ull ^ (parent ? parent->hash : 0);
  for (uint32_t i = 0; i < n; i++) {
    h ^= f[i].offset + ((uint64_t)f[i].module << 40) + f[i].kind;
    h *= 0x100000001b3ull;
  }
  return (uint32_t)(h ^ (h >> 32));
}

static bool holds(const knit_call_path *p, const knit_path_frame *f, uint32_t n, uint32_t h)
{
  if (p->hash != h || p->own != n)
    return false;
  for (uint32_t i = 0; i < n; i++)
    if (p->frames[i].offset != f[i].offset || p->frames[i].module != f[i].module ||
        p->frames[i].kind != f[i].kind)
      return false;
  return true;
}

static knit_call_path *find(knit_call_path *p, const knit_path_frame *f, uint32_t n, uint32_t h)
{
  for (; p; p = atomic_load_explicit(&p->next_sibling, memory_order_acquire))
    if (holds(p, f, n, h))
      return p;
  return NULL;
}

const knit_call_path *knit_path_intern(const knit_call_path *parent, const knit_path_frame *own,
                                       uint32_t n)
{
  if (n == 0)
    return parent;
  uint32_t h = hash_of(parent, own, n);
  knit_call_path *_Atomic *list =
      parent ? &((knit_call_path *)parent)->first_child : &roots[h % ROOT_LISTS];
  knit_call_path *head = atomic_load_explicit(list, memory_order_acquire);
  knit_call_path *found = find(head, own, n, h);
  if (found)
    return found;
  knit_call_path *fresh = node_alloc(sizeof *fresh + n * sizeof own[0]);
  if (!fresh)
    return NULL;
  fresh->parent = parent;
  fresh->own = n;
  fresh->length = (parent ? parent->length : 0) + n;
  fresh->hash = h;
  fresh->depth = (parent ? parent->depth : 0) + 1;
  memcpy(fresh->frames, own, n * sizeof own[0]);
  /* Pushed at the head. A thread that lost the race looks only at what was
   * pushed since it last looked, since the rest it has seen already. */
  for (;;) {
    atomic_store_explicit(&fresh->next_sibling, head, memory_order_relaxed);
    knit_call_path *seen = head;
    if (atomic_compare_exchange_weak_explicit(list, &head, fresh, memory_order_release,
                                              memory_order_acquire)) {
      atomic_fetch_add_explicit(&made_nodes, 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&made_frames, n, memory_order_relaxed);
      return fresh;
    }
    /* head is now the list's new head: the nodes from it down to seen are
     * new. The node made here is lost to its chunk (a few bytes, only on
     * a race). */
    for (knit_call_path *p = head; p && p != seen;
         p = atomic_load_explicit(&p->next_sibling, memory_order_acquire))
      if (holds(p, own, n, h))
        return p;
  }
}

uint32_t knit_path_copy(const knit_call_path *p, knit_path_frame *out, uint32_t max)
{
  if (!p)
    return 0;
  uint32_t total = p->length < max ? p->length : max;
  /* From the innermost node outward: each node's frames end where its
   * parent's path ends. Frames past max are left out. Depth falls by one
   * a node on any chain knit made; a chain that breaks that (a runtime
   * that reported a task done twice, and a context given back and reused
   * while still a parent) ends the copy rather than the program. */
  for (; p; p = p->parent) {
    uint32_t start = p->parent ? p->parent->length : 0;
    for (uint32_t i = 0; i < p->own && start + i < total; i++)
      out[start + i] = p->frames[i];
    if (p->parent && p->parent->depth >= p->depth)
      break;
  }
  return total;
}

/* Frame i of path p (i < p->length). */
static const knit_path_frame *frame_at(const knit_call_path *p, uint32_t i)
{
  while (p->parent && p->parent->length > i) {
    if (p->parent->depth >= p->depth)
      return NULL; /* a broken chain, as in knit_path_copy */
    p = p->parent;
  }
  return &p->frames[i - (p->parent ? p->parent->length : 0)];
}

bool knit_path_equal(const knit_call_path *a, const knit_call_path *b)
{
  if (a == b)
    return true;
  if (!a || !b || a->length != b->length)
    return false;
  for (uint32_t i = 0; i < a->length; i++) {
    const knit_path_frame *x = frame_at(a, i), *y = frame_at(b, i);
    if (!x || !y || x->offset != y->offset || x->module != y->module || x->kind != y->kind)
      return false;
  }
  return true;
}

void knit_path_tree_counts(uint64_t *nodes, uint64_t *frames)
{
  *nodes = atomic_load_explicit(&made_nodes, memory_order_relaxed);
  *frames = atomic_load_explicit(&made_frames, memory_order_relaxed);
}
