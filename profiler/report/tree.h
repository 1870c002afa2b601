/* The merged calling-context tree of a measurement.
 *
 * Every thread's tree is folded into one: a node is identified by its parent
 * and by (module path, offset, kind), so the same call path on two threads is
 * one node whose metrics are the sum of both. Module ids in the files are
 * per-file indexes; the tree interns module paths, so threads that list their
 * modules in different orders still merge.
 *
 * Use: knit_report_tree_init, knit_report_tree_add_thread for each thread,
 * name the nodes (knit_report_tree_symbolize, or by hand in tests), then
 * knit_report_tree_link, which computes inclusive metrics and sorts children.
 */
#ifndef KNIT_REPORT_TREE_H
#define KNIT_REPORT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"
#include "measure/read_file.h"
#include "report/row_table.h"

/* One call the compiler inlined at a node's address (inline_scopes.h), as
 * the report shows it. Not owned by the tree. */
typedef struct knit_inline_level {
  const char *function;     /* the inlined function, named as symbols are,
                               or "loop at FILE:LINE" for a loop */
  const char *raw_function; /* as the DWARF has it, when shown otherwise */
  const char *call_file;    /* its call site (a loop's: its own line), NULL
                               when unknown */
  unsigned call_line;
  uint8_t loop; /* 1: a loop of the code around it (structure.h), not a call */
} knit_inline_level;

typedef struct knit_report_node {
  uint32_t parent; /* index of the parent; the root (0) is its own */
  uint32_t module; /* index into the tree's modules, or KNIT_MODULE_* */
  uint8_t kind;    /* knit_node_kind */
  uint64_t offset;
  uint64_t exclusive[KNIT_METRIC_COUNT];
  uint64_t inclusive[KNIT_METRIC_COUNT]; /* set by knit_report_tree_link */
  uint32_t first_child;                  /* into knit_report_tree.children; set by link */
  uint32_t child_count;
  /* Names, set by knit_report_tree_symbolize: function is never NULL after
   * it; raw_function is the symbol as the file has it when function shows
   * it otherwise (a readable name), else NULL; file is NULL when no line is
   * known. Not owned by the tree. */
  const char *function;
  const char *raw_function;
  const char *file;
  unsigned line;
  /* The calls inlined at the node's address, outermost first (the first
   * called from function, each other from the one before it; file:line is
   * the innermost's), with the loops around the address among them, each
   * inside the function or inlined call its header is in; none unless the
   * symbolizer was asked for them. */
  const knit_inline_level *inlined;
  uint32_t inlined_count;
} knit_report_node;

typedef struct knit_report_tree {
  knit_report_node *nodes; /* nodes[0] is the root */
  size_t node_count;
  size_t node_cap;
  char **modules; /* interned module paths */
  size_t module_count;
  uint32_t *children;   /* children of each node, grouped; set by link */
  knit_row_table index; /* nodes by (parent, module, offset, kind) */
  int saturated;        /* 1 when a metric's sum stopped at UINT64_MAX
                                (measure/count.h) */
} knit_report_tree;

/* An empty tree holding only the root. Returns 0, or -1 when out of memory. */
int knit_report_tree_init(knit_report_tree *t);

/* Merges one thread's tree and metrics in. Returns 0, or -1 out of memory. */
int knit_report_tree_add_thread(knit_report_tree *t, const knit_thread_file *f);

/* The merged node of each node of f, a thread merged in before, into
 * map[0..f->node_count), UINT32_MAX for one the tree lacks: what a view
 * that changes the tree's values (path_filter.h) needs to change the
 * thread's alike. Returns 0, or -1 out of memory. */
int knit_report_tree_map_thread(const knit_report_tree *t, const knit_thread_file *f,
                                uint32_t *map);

/* Computes inclusive metrics and the sorted children lists: children by
 * inclusive samples, largest first, then by function name, then by address,
 * so the order is the same on every run. Returns 0, or -1 out of memory. */
int knit_report_tree_link(knit_report_tree *t);

void knit_report_tree_free(knit_report_tree *t);

/* The module path of a node, or NULL for placeholder and unknown modules. */
const char *knit_report_node_module(const knit_report_tree *t, const knit_report_node *n);

#endif /* KNIT_REPORT_TREE_H */
