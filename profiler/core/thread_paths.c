/* Putting a path into a thread's calling-context tree: see
 * knit_thread_path_node in thread.h. */
#include <stdbool.h>

#include "core/thread.h"

static inline bool same_frame(const knit_path_frame *a, const knit_path_frame *b)
{
  return a->offset == b->offset && a->module == b->module && a->kind == b->kind;
}

knit_cct_node *knit_thread_path_node(knit_thread *t, const knit_path_frame *path, int n)
{
  uint32_t node = 0;
  int i = 0;
  /* The frames the last path shares: their nodes are known. Comparing a
   * frame costs a fraction of finding it among its parent's children,
   * which on a deep stack was as much as the whole unwind. */
  if (t->last_path && t->last_nodes) {
    int shared = n < (int)t->last_len ? n : (int)t->last_len;
    while (i < shared && same_frame(&path[i], &t->last_path[i]))
      i++;
    if (i > 0)
      node = t->last_nodes[i - 1];
  }
  for (; i < n; i++) {
    node = knit_cct_child(&t->cct, node, path[i].module, path[i].offset, path[i].kind);
    if (t->last_path && t->last_nodes && i < KNIT_LAST_PATH_FRAMES) {
      t->last_path[i] = path[i];
      t->last_nodes[i] = node;
    }
  }
  if (t->last_path && t->last_nodes)
    t->last_len = (uint32_t)(n < KNIT_LAST_PATH_FRAMES ? n : KNIT_LAST_PATH_FRAMES);
  t->path_leaf = node;
  return knit_cct_node_at(&t->cct, node);
}
