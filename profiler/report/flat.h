/* The flat view's rows: one per function, per source line or per module,
 * with each metric's exclusive value (samples taken there) and inclusive
 * value (samples taken there or in what it called), as `perf report
 * --sort=sym|srcline|dso` and `pprof -top` give them.
 *
 * A sample path counts once in a row's inclusive value however often it
 * passes through the row's function, line or module (recursion), so no
 * inclusive value exceeds the total. Rows are built from the same paths
 * as the tree (calltree.h): frames before the application are left out
 * unless all_frames is set, and
 *   by function: functions are named as the function-level tree names
 *     them, inlined calls and loop levels rows of their own;
 *   by line: each frame's source line (where it was sampled or made its
 *     call; an address in inlined code has the inlined code's line), and
 *     for inclusive values, the lines of the inlined calls that led there;
 *     a frame without a known line is one row per function;
 *   by module: each frame's module (ELF file), placeholders in none. */
#ifndef KNIT_REPORT_FLAT_H
#define KNIT_REPORT_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "report/calltree.h"
#include "report/tree.h"

typedef enum knit_flat_key {
  KNIT_FLAT_FUNCTION = 0,
  KNIT_FLAT_LINE = 1,
  KNIT_FLAT_MODULE = 2,
} knit_flat_key;

typedef struct knit_flat_row {
  /* by function: the function; by line: the file, NULL when the line is
   * unknown; by module: the module path, NULL for none. Not owned. */
  const char *name;
  const char *function; /* by line, when the line is unknown: the function */
  const char *module;   /* by function: its module path, NULL for none */
  unsigned line;        /* by line */
  uint8_t inlined;      /* by function: 1 an inlined call, 2 a loop */
  uint64_t inclusive[KNIT_METRIC_COUNT];
  uint64_t exclusive[KNIT_METRIC_COUNT];
} knit_flat_row;

typedef struct knit_flat {
  knit_flat_row *rows;
  size_t count;
  size_t cap;
  uint64_t total[KNIT_METRIC_COUNT]; /* every path's values once */
  int saturated;                     /* a sum stopped at UINT64_MAX */
} knit_flat;

/* The rows of t (named and linked) by key, with o's all_frames, no_inline
 * and fold_recursion (lines mode is not); unsorted. The rows refer to t's
 * names, which must outlive them. Returns 0, or -1 out of memory. */
int knit_flat_build(knit_flat *out, const knit_report_tree *t, const knit_calltree_options *o,
                    knit_flat_key key);

/* Orders the rows: by metric's inclusive value (then exclusive), exclusive
 * value (then inclusive), or name, largest first; ties by name. */
void knit_flat_sort(knit_flat *f, knit_calltree_sort sort, int metric);

void knit_flat_free(knit_flat *f);

#endif /* KNIT_REPORT_FLAT_H */
