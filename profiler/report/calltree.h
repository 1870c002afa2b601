/* The tree `knit report` prints, derived from the merged calling-context tree
 * (tree.h) of a named, linked measurement.
 *
 * The CCT has one node per call site and one per sampled instruction, so a
 * function called from two lines of its caller, or sampled at three pcs,
 * shows up as several siblings. That is what `--lines` prints. By default
 * the tree is function-level instead: siblings that name the same function
 * (in the same module) are one node, whose inclusive and exclusive values
 * are the sums and whose children merge by the same rule. A function's
 * samples thereby become its exclusive value wherever they were taken in it.
 *
 * Either way, unless all_frames is set, each sampled path first loses the
 * frames before the application (the C library's start-up above `main`,
 * or a thread's C-library roots such as clone3 and start_thread) by rule (a)
 * of the folded form (folded.h), so the two views never disagree on where a
 * path starts.
 *
 * Each node keeps the source line that stands for it: the call site's or
 * sampled instruction's file:line. A node merged from several lines shows
 * the one with the largest inclusive value of the options' metric and
 * counts the others.
 *
 * Code the compiler inlined is shown as the source has it: a node whose
 * address is inside inlined calls (knit_report_node.inlined) becomes a
 * chain of levels, the function the symbol names, then each inlined
 * function, marked inlined, merged among siblings like any function (by
 * name, module and the mark). Each level's line is its call of the next
 * level; the innermost's is the node's own. In lines mode the symbol's
 * level stays one node per call site or sampled instruction, its inlined
 * levels below it. no_inline shows only the symbols' functions, whose
 * line is then the innermost line, as if nothing had been inlined.
 */
#ifndef KNIT_REPORT_CALLTREE_H
#define KNIT_REPORT_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "report/tree.h"

/* The order of each node's children, by the options' metric. */
typedef enum knit_calltree_sort {
  KNIT_SORT_INCLUSIVE = 0, /* largest inclusive first */
  KNIT_SORT_EXCLUSIVE = 1, /* largest exclusive first, then inclusive */
  KNIT_SORT_NAME = 2,      /* by function name, then largest inclusive */
} knit_calltree_sort;

typedef struct knit_calltree_options {
  int lines;               /* 1: one node per CCT node, as recorded */
  int all_frames;          /* 1: keep the frames before the application */
  knit_calltree_sort sort; /* the order of each node's children */
  /* The metric (knit_metric) children are ordered by and a merged node's
   * source line is chosen by; 0, the time metric, unless set. */
  int metric;
  /* 1: recursion folded (function-level only): a frame of the same
   * function as one above it, with nothing but outlined bodies and task
   * entries between (fib -> fib, fib -> task -> fib), is that frame's
   * node, and so is everything between; the node counts how deep its
   * recursion went. */
  int fold_recursion;
  int no_inline; /* 1: inlined calls are not levels of their own */
} knit_calltree_options;

typedef struct knit_calltree_node {
  uint32_t parent; /* the root (0) is its own */
  /* What identifies a node among its siblings: (function, module,
   * inlined) by default, (module, offset, kind) in lines mode for a
   * symbol's level. */
  const char *function;    /* never NULL; owned by the symbolizer */
  const char *module_path; /* NULL for placeholders and unknown modules */
  uint32_t module;         /* the report tree's module index or KNIT_MODULE_* */
  uint8_t kind;            /* knit_node_kind of the first CCT node merged in */
  uint8_t inlined;         /* 1: a call the compiler inlined, not a symbol's;
                              2: a loop (`loop at FILE:LINE`, structure.h) */
  uint64_t offset;
  /* Every metric, indexed by knit_metric, as stored (format.h's scales). */
  uint64_t inclusive[KNIT_METRIC_COUNT];
  uint64_t exclusive[KNIT_METRIC_COUNT];
  const char *file; /* the main source line, file NULL when unknown */
  unsigned line;
  uint32_t other_sites; /* distinct source lines merged in besides it */
  uint32_t recursion;   /* fold_recursion: the most levels folded into it, 1 + */
  uint32_t first_child; /* into knit_calltree.children */
  uint32_t child_count;
} knit_calltree_node;

typedef struct knit_calltree {
  knit_calltree_node *nodes; /* nodes[0] is the root, which is no frame */
  size_t node_count;
  size_t node_cap;
  uint32_t *children; /* each node's children, grouped and sorted */
  int saturated;      /* 1 when a sum stopped at UINT64_MAX
                                 (measure/count.h) */
  int bottom_up;      /* 1: a callers tree (bottom_up.h): below a node
                         are its callers */
} knit_calltree;

/* Builds the display tree of t (named and linked). The tree refers to t's
 * names and module paths, so t must outlive it. Returns 0, or -1 out of
 * memory (ct is then empty). */
int knit_calltree_build(knit_calltree *ct, const knit_report_tree *t,
                        const knit_calltree_options *o);

/* Groups and sorts the children of a tree whose nodes name their parents
 * (parents before children), by sort and metric as knit_calltree_build
 * does; trees derived from a call tree (bottom_up.h) are linked so.
 * Returns 0, or -1 out of memory. */
int knit_calltree_link(knit_calltree *ct, knit_calltree_sort sort, int metric);

void knit_calltree_free(knit_calltree *ct);

#endif /* KNIT_REPORT_CALLTREE_H */
