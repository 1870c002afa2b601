/* The bottom-up view; see view_bottom_up.h. */
#include "report/view_bottom_up.h"

#include "report/bottom_up.h"

void knit_view_bottom_up(const knit_profile *p, const knit_view_options *o, FILE *out)
{
  knit_calltree_options tree = o->tree;
  tree.lines = 0;
  knit_calltree td, bu;
  if (knit_calltree_build(&td, &p->tree, &tree) != 0) {
    fprintf(out, "(out of memory)\n");
    return;
  }
  if (knit_bottom_up_build(&bu, &td, tree.sort, tree.metric) != 0) {
    fprintf(out, "(out of memory)\n");
    knit_calltree_free(&td);
    return;
  }
  knit_view_calltree(p, o, &bu, tree.sort == KNIT_SORT_EXCLUSIVE, out);
  knit_calltree_free(&bu);
  knit_calltree_free(&td);
}
