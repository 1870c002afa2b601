/* Creation contexts as nodes of one process-wide tree.
 *
 * The call path where a region begins or a task is created is the path of
 * the encountering task (its own creation context) followed by the frames
 * of that task between its entry and the runtime call. A path is therefore
 * kept as a node: a reference to its parent path and only its own frames.
 * Recursive tasks (fib -> task -> fib -> ...) share every prefix; a new
 * context costs the frames of its own segment, and a context met again
 * costs nothing, so memory grows with the number of distinct contexts,
 * never with the number of regions or tasks.
 *
 * Nodes are interned: the same (parent, own frames) is the same node, so
 * two captures of one context compare equal as pointers. They are never
 * freed, so a worker or a task may hold one as long as it likes, and a
 * signal handler may read one at any time: a node is immutable once it is
 * published, and publishing is a single release store. */
#ifndef KNIT_OMPT_PATH_TREE_H
#define KNIT_OMPT_PATH_TREE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct knit_path_frame {
  uint64_t offset;
  uint32_t module;
  uint8_t kind; /* knit_node_kind */
} knit_path_frame;

typedef struct knit_call_path knit_call_path;
struct knit_call_path {
  const knit_call_path *parent; /* the path this one extends, or NULL */
  uint32_t length;              /* frames of the whole path, the parent's too */
  uint32_t own;                 /* frames of this node, in frames[] */
  uint32_t hash;                /* of the parent and the own frames */
  uint32_t depth;               /* nodes from the root, this one included */
  /* A task's own context (ompt/task_contexts.h): not interned, and given
   * back when its task and every task created under it are done. Never the
   * parent of an interned node. */
  uint32_t transient;
  /* The nodes that extend this one, for interning (a list: a context is
   * extended from few places; fib's tasks from two). */
  knit_call_path *_Atomic first_child;
  knit_call_path *_Atomic next_sibling;
  knit_path_frame frames[]; /* own frames, outermost first */
};

/* The node for parent's path followed by own[0..n), made once and shared.
 * parent is an interned node or NULL, never a transient context.
 * n == 0 is parent itself. NULL only when memory ran out. Lock-free;
 * threads interning the same node at once get the same one. Not for signal
 * handlers: each thread carves nodes from a chunk of its own, which a
 * handler interrupting the thread's own intern would carve again. */
const knit_call_path *knit_path_intern(const knit_call_path *parent, const knit_path_frame *own,
                                       uint32_t n);

/* Copies the whole path of p (NULL: none), outermost frame first, into
 * out: its first min(length, max) frames. Returns how many were copied.
 * Async-signal-safe. */
uint32_t knit_path_copy(const knit_call_path *p, knit_path_frame *out, uint32_t max);

/* Whether a and b stand for the same frames, however they are split into
 * nodes. */
bool knit_path_equal(const knit_call_path *a, const knit_call_path *b);

/* Nodes made so far, and their own frames (for the log). */
void knit_path_tree_counts(uint64_t *nodes, uint64_t *frames);

#endif /* KNIT_OMPT_PATH_TREE_H */
