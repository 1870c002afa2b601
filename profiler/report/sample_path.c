/* A sample's path through the report tree; see sample_path.h. */
#include "report/sample_path.h"

#include <stdlib.h>

#include "report/rows.h"

const char *knit_sample_path_name(const knit_report_node *n)
{
  return n->function != NULL ? n->function : "?";
}

int knit_sample_path_of(knit_sample_path *p, const knit_report_tree *t, uint32_t leaf)
{
  size_t depth = 0;
  for (uint32_t j = leaf; j != 0; j = t->nodes[j].parent)
    depth++;
  if (depth > p->cap) {
    if (knit_rows_resize(&p->nodes, sizeof *p->nodes, depth) != 0 ||
        knit_rows_resize(&p->frames, sizeof *p->frames, depth) != 0)
      return -1;
    p->cap = depth;
  }
  p->depth = depth;
  size_t k = depth;
  for (uint32_t j = leaf; j != 0; j = t->nodes[j].parent) {
    const knit_report_node *n = &t->nodes[j];
    p->nodes[--k] = j;
    p->frames[k] = (knit_folded_frame){.function = knit_sample_path_name(n),
                                       .module = knit_report_node_module(t, n)};
  }
  return 0;
}

void knit_sample_path_free(knit_sample_path *p)
{
  free(p->nodes);
  free(p->frames);
  *p = (knit_sample_path){0};
}
