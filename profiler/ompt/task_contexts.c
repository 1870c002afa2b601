/* Transient creation contexts of tasks: see task_contexts.h. */
#include "ompt/task_contexts.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "base/arena.h"
#include "ompt/path_tree.h"

typedef struct context_pool context_pool;

/* In front of every transient context: its references, its pool, and its
 * interned form once it was asked for. */
typedef struct context_head {
  struct context_head *next_free;
  context_pool *owner;
  _Atomic uint32_t refs;
  const knit_call_path *_Atomic resolved;
} context_head;

/* A thread's contexts: the free ones it may take without a second look
 * (local, its own), and those other threads gave back (remote, pushed by
 * them, taken whole by the owner). Counts for the log, each written by its
 * pool's thread only (a locked increment per task cost more than the rest
 * of giving a context back): made and resolved, and given back by that
 * thread, to any pool. */
struct context_pool {
  context_head *local;
  context_head *_Atomic remote;
  context_pool *next; /* every pool, for the log */
  uint64_t made, resolved, given_back;
};

#define HEAD_SIZE ((sizeof(context_head) + 15) & ~(size_t)15)
#define SLOT_SIZE                                                                                  \
  ((HEAD_SIZE + sizeof(knit_call_path) + KNIT_TASK_CONTEXT_FRAMES * sizeof(knit_path_frame) +      \
    15) &                                                                                          \
   ~(size_t)15)
/* Slots carved at once when a pool runs dry. */
#define SLOTS_PER_CHUNK 64

static context_pool *_Atomic pools;
static __thread context_pool *my_pool __attribute__((tls_model("initial-exec")));

static knit_call_path *path_of(context_head *h)
{
  return (knit_call_path *)((char *)h + HEAD_SIZE);
}

static context_head *head_of(const knit_call_path *p)
{
  return (context_head *)((char *)p - HEAD_SIZE);
}

static context_pool *pool_here(void)
{
  context_pool *p = my_pool;
  if (p)
    return p;
  p = knit_shared_alloc(sizeof *p, 64);
  if (!p)
    return NULL;
  context_pool *first = atomic_load(&pools);
  do
    p->next = first;
  while (!atomic_compare_exchange_weak(&pools, &first, p));
  my_pool = p;
  return p;
}

static context_head *take(context_pool *p)
{
  context_head *h = p->local;
  if (!h)
    h = atomic_exchange_explicit(&p->remote, NULL, memory_order_acquire);
  if (!h) {
    char *chunk = knit_shared_alloc(SLOTS_PER_CHUNK * SLOT_SIZE, 64);
    if (!chunk)
      return NULL;
    for (unsigned i = 0; i < SLOTS_PER_CHUNK; i++) {
      context_head *s = (context_head *)(chunk + i * SLOT_SIZE);
      s->owner = p;
      s->next_free = i + 1 < SLOTS_PER_CHUNK ? (context_head *)(chunk + (i + 1) * SLOT_SIZE) : NULL;
    }
    h = (context_head *)chunk;
  }
  p->local = h->next_free;
  return h;
}

static void give(context_head *h)
{
  context_pool *p = h->owner;
  context_pool *mine = pool_here();
  if (mine)
    mine->given_back++;
  if (p == mine) {
    h->next_free = p->local;
    p->local = h;
    return;
  }
  context_head *first = atomic_load_explicit(&p->remote, memory_order_relaxed);
  do
    h->next_free = first;
  while (!atomic_compare_exchange_weak_explicit(&p->remote, &first, h, memory_order_release,
                                                memory_order_relaxed));
}

const knit_call_path *knit_task_context_make(const knit_call_path *parent,
                                             const knit_path_frame *own, uint32_t n)
{
  /* A segment longer than a slot holds: interned, under parent's
   * interned form. */
  if (n > KNIT_TASK_CONTEXT_FRAMES)
    return knit_path_intern(knit_path_resolve(parent), own, n);
  /* Nothing of its own under a context that lives for ever: that context
   * is the task's, and needs no reference. */
  if (n == 0 && !knit_path_is_transient(parent))
    return parent;
  context_pool *pool = pool_here();
  context_head *h = pool ? take(pool) : NULL;
  if (!h)
    return NULL;
  atomic_store_explicit(&h->refs, 1, memory_order_relaxed);
  atomic_store_explicit(&h->resolved, NULL, memory_order_relaxed);
  knit_call_path *p = path_of(h);
  memset(p, 0, sizeof *p);
  p->parent = parent;
  p->own = n;
  p->length = (parent ? parent->length : 0) + n;
  p->depth = (parent ? parent->depth : 0) + 1;
  p->transient = 1;
  if (n > 0) /* own may be NULL then, which memcpy does not allow */
    memcpy(p->frames, own, n * sizeof own[0]);
  if (knit_path_is_transient(parent))
    atomic_fetch_add_explicit(&head_of(parent)->refs, 1, memory_order_relaxed);
  pool->made++;
  return p;
}

void knit_task_context_release(const knit_call_path *p)
{
  while (knit_path_is_transient(p)) {
    context_head *h = head_of(p);
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
      return;
    /* Nothing holds it any more: neither its task nor a context under it. */
    const knit_call_path *up = p->parent;
    bool sound = !up || up->depth < p->depth; /* as in knit_path_copy */
    give(h);
    if (!sound)
      return;
    p = up;
  }
}

const knit_call_path *knit_path_resolve(const knit_call_path *p)
{
  if (!knit_path_is_transient(p))
    return p;
  /* From p outward to the first context whose parent has an interned form,
   * which is interned; then again from p, until p itself is. Iterative, so
   * that a deep recursion of tasks takes no stack. */
  for (;;) {
    const knit_call_path *q = p;
    for (;;) {
      const knit_call_path *done =
          atomic_load_explicit(&head_of(q)->resolved, memory_order_acquire);
      if (done && q == p)
        return done;
      const knit_call_path *up = q->parent;
      const knit_call_path *up_node = up;
      if (up && up->depth >= q->depth)
        return NULL; /* a broken chain (knit_path_copy): no interned form */
      if (knit_path_is_transient(up)) {
        up_node = atomic_load_explicit(&head_of(up)->resolved, memory_order_acquire);
        if (!up_node) {
          q = up;
          continue;
        }
      }
      const knit_call_path *node = knit_path_intern(up_node, q->frames, q->own);
      if (!node)
        return NULL; /* out of memory */
      atomic_store_explicit(&head_of(q)->resolved, node, memory_order_release);
      context_pool *pool = my_pool;
      if (pool)
        pool->resolved++;
      if (q == p)
        return node;
      break;
    }
  }
}

void knit_task_context_counts(uint64_t *made, uint64_t *given_back, uint64_t *resolved)
{
  *made = *given_back = *resolved = 0;
  for (context_pool *p = atomic_load(&pools); p; p = p->next) {
    *made += p->made;
    *given_back += p->given_back;
    *resolved += p->resolved;
  }
}
