/* libFuzzer target: the measurement reader (measure/read_file.c) on a thread
 * file's bytes, and what `knit report` does next with what it returns.
 *
 * A file the reader accepts must keep the promises read_file.h makes, since
 * the report indexes arrays with them unchecked: every parent index smaller
 * than its node's (parents first), every module index inside the load map
 * or one of the reserved ids, every metric on a node that exists. They are
 * checked here, and the file is then merged into a report tree and linked,
 * as the report does, so that a broken promise shows as a crash under the
 * sanitizers, not as a wrong report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "measure/read_file.h"
#include "report/tree.h"

static int module_ok(const knit_thread_file *f, uint32_t module)
{
  return module < f->module_count || module == KNIT_MODULE_PLACEHOLDER ||
         module == KNIT_MODULE_UNKNOWN;
}

static void check_promises(const knit_thread_file *f)
{
  for (size_t i = 0; i < f->node_count; i++) {
    if (i > 0 && f->nodes[i].parent >= i)
      abort();
    if (i == 0 && f->nodes[0].parent != 0)
      abort();
    if (!module_ok(f, f->nodes[i].module) || f->nodes[i].kind > KNIT_NODE_PLACEHOLDER)
      abort();
  }
  for (size_t i = 0; i < f->metric_count; i++)
    if (f->metrics[i].node >= f->node_count)
      abort();
  for (size_t i = 0; i < f->step_count; i++)
    if (f->steps[i].module >= f->module_count && f->steps[i].module != KNIT_MODULE_UNKNOWN)
      abort();
  for (size_t i = 0; i < f->module_count; i++)
    if (f->modules[i].path == NULL)
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  knit_thread_file f;
  char err[512];
  if (knit_thread_file_parse(data, size, &f, err, sizeof err) != 0)
    return 0;
  check_promises(&f);
  knit_report_tree t;
  if (knit_report_tree_init(&t) == 0) {
    /* Twice: the second merge finds every node the first one made. */
    if (knit_report_tree_add_thread(&t, &f) == 0 && knit_report_tree_add_thread(&t, &f) == 0)
      knit_report_tree_link(&t);
    knit_report_tree_free(&t);
  }
  knit_thread_file_free(&f);
  return 0;
}
