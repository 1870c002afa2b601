/* Folded stacks: one line per distinct call path, "frame;frame;... count",
 * outermost frame first, lines sorted. This is the form golden CCTs are kept
 * in, so paths are normalized to what is the same on every runtime, compiler
 * and architecture:
 *
 *  (a) When the path holds `main`, the frames outside it (before it: _start,
 *      __libc_start_main, ...) are dropped. Otherwise the outermost frames
 *      that belong to libc, libpthread or the dynamic loader (start_thread,
 *      clone3, ...) are dropped, keeping at least the innermost frame.
 *  (b) Outlined parallel-region and task bodies become `omp.outlined`: gcc's
 *      `name._omp_fn.N`, clang's `.omp_outlined.`, `.omp_outlined..N`,
 *      `name.omp_outlined`, and their readable forms (report/names.h)
 *      `name [omp_fn.N]`, `name [omp_outlined]`. clang -O0 splits a body into a wrapper and a
 *      `..._debug__` function it calls: the debug frame right under its
 *      wrapper is dropped, so the body is one frame as with gcc. clang's task
 *      entry trampolines (`.omp_task_entry.`), which gcc does not have, are
 *      dropped. A body named by its construct (report/construct_names.h:
 *      `parallel at heat.c:42`) is folded by its symbol when the tree has
 *      it; a name alone becomes `omp.outlined` too, and a `... body at ...`
 *      right under its construct's frame goes, as a `_debug__` frame does.
 *  (c) Identical normalized paths are merged by summing their counts.
 *
 * Rule (b) is what golden CCTs need (knit check); `knit report
 * --format=folded` writes the names as the report shows them, by rules (a)
 * and (c) alone (knit_folded_as_named), for flame graphs.
 * Calls the compiler inlined (knit_report_node.inlined) are frames of
 * their own in `knit report --format=folded`, after the frame they were
 * inlined into, named with FlameGraph's mark for inlined code appended:
 * `partition_[i]` (flamegraph.pl colours such frames apart). Golden files
 * record the symbols' frames only, the same at every optimization level,
 * so the forms `knit check` compares (knit_folded_of_metric) leave them
 * out. Rule (a) looks at the symbols' frames only; rule (b) names an
 * inlined outlined body `omp.outlined_[i]` (clang inlines a task's body
 * into its task entry) and drops clang's debug body inlined right into its
 * wrapper, as it drops the debug frame at -O0.
 *
 * The root placeholder is never a frame; other placeholders keep their names
 * (`<omp-idle>`, `<partial>`, ...). Spaces and ';' inside a frame name become
 * '_' so that every line splits back into the same frames.
 */
#ifndef KNIT_REPORT_FOLDED_H
#define KNIT_REPORT_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "report/tree.h"

/* One frame of a path to normalize. */
typedef struct knit_folded_frame {
  const char *function; /* symbolized name */
  const char *module;   /* module path, or NULL (placeholder, unknown) */
  int inlined;          /* 1: a call inlined into the frame before it */
} knit_folded_frame;

/* What an inlined frame's name gets in a folded path. */
#define KNIT_FOLDED_INLINED_MARK "_[i]"

typedef struct knit_folded_line {
  char *path;
  uint64_t count;
} knit_folded_line;

typedef struct knit_folded {
  knit_folded_line *lines; /* sorted by path once finished */
  size_t count;
  size_t cap;
  uint64_t total; /* sum of all counts */
  int saturated;  /* 1 when total or a merged count stopped at
                               UINT64_MAX (measure/count.h) */
} knit_folded;

/* The normalized path of frames[0..n) (outermost first), newly allocated;
 * NULL when out of memory. */
char *knit_folded_normalize(const knit_folded_frame *frames, size_t n);

/* Rule (a) alone: the index of the first frame of frames[0..n) (outermost
 * first) that the application's path keeps; n only when n is 0. The tree
 * view hides the frames before it the same way, so both views agree. */
size_t knit_folded_path_start(const knit_folded_frame *frames, size_t n);

/* Whether name is a frame the runtime's outlining adds between a construct
 * and the code in it: an outlined region or task body, or clang's task
 * entry. Recursion through tasks (fib -> task -> fib) has them between its
 * levels. */
int knit_folded_is_wrapper(const char *name);

/* Rule (b) for one name: "omp.outlined" for an outlined body, else name. */
const char *knit_folded_frame_name(const char *name);

/* One frame's text in a folded path, newly allocated (NULL when out of
 * memory): rule (b), then spaces and ';' made '_'. */
char *knit_folded_frame_text(const char *name);

/* Whether a module path is libc, libpthread or the dynamic loader. */
int knit_folded_is_system_module(const char *path);

/* Appends a line (not yet sorted or merged). Returns 0, or -1 out of memory. */
int knit_folded_add(knit_folded *f, const char *path, uint64_t count);

/* Sorts the lines and merges equal paths. */
void knit_folded_finish(knit_folded *f);

/* The finished folded form of a named, linked tree: one path for each node
 * with exclusive samples. Returns 0, or -1 out of memory. */
int knit_folded_from_tree(const knit_report_tree *t, knit_folded *out);

/* The same for any metric (knit_metric): one path for each node with an
 * exclusive value of it, counted as stored (periods for the time metric,
 * milli-periods for the blame metrics, format.h). Returns 0, or -1 out of
 * memory or for a metric out of range. */
int knit_folded_of_metric(const knit_report_tree *t, int metric, knit_folded *out);

/* The same by rules (a) and (c) alone, every frame by the name the report
 * shows for it, and with each node's inlined calls as frames of their own
 * when inlined is 1: what `knit report --format=folded` prints. Returns 0,
 * or -1 out of memory or for a metric out of range. */
int knit_folded_as_named(const knit_report_tree *t, int metric, int inlined, knit_folded *out);

/* knit_folded_of_metric (all three rules), with each node's inlined calls
 * as frames of their own when inlined is 1. */
int knit_folded_of_metric_levels(const knit_report_tree *t, int metric, int inlined,
                                 knit_folded *out);

/* The line for path in a finished form, or NULL. */
const knit_folded_line *knit_folded_find(const knit_folded *f, const char *path);

void knit_folded_write(const knit_folded *f, FILE *out);
void knit_folded_free(knit_folded *f);

#endif /* KNIT_REPORT_FOLDED_H */
