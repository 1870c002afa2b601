/* The path that ends at a node of the report tree (tree.h): its nodes from
 * the root's child down to the node, and their frames as the folded form
 * names them (folded.h), which say where the path starts by rule (a). The
 * views that walk sample paths one by one (the call tree, the flat view by
 * line, the Chrome trace) keep one and reuse its memory from path to path. */
#ifndef KNIT_REPORT_SAMPLE_PATH_H
#define KNIT_REPORT_SAMPLE_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "report/folded.h"
#include "report/tree.h"

typedef struct knit_sample_path {
  uint32_t *nodes;           /* report tree indexes, outermost first */
  knit_folded_frame *frames; /* per node: its function and module */
  size_t depth;              /* nodes on the path, the root not counted */
  size_t cap;                /* room in nodes and frames */
} knit_sample_path;

/* Sets p to the path from the root of t to leaf. Returns 0, or -1 out of
 * memory. */
int knit_sample_path_of(knit_sample_path *p, const knit_report_tree *t, uint32_t leaf);

void knit_sample_path_free(knit_sample_path *p);

/* A report node's function as the views name it: "?" when unknown. */
const char *knit_sample_path_name(const knit_report_node *n);

#endif /* KNIT_REPORT_SAMPLE_PATH_H */
