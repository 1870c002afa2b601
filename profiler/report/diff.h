/* Comparing two measurements context by context (`knit diff`).
 *
 * A context is a call path of the function-level tree (calltree.h),
 * matched between the two measurements by the names of its frames, as the
 * tree shows them (inlined calls and loop levels included, and marked as
 * the tree marks them): the same code reached the same way is one context
 * whatever the addresses, modules or threads. Each context holds, for each
 * metric, its inclusive and exclusive value in either measurement, in the
 * shown unit (metrics.h), so that measurements taken with different
 * periods, or with CPUTIME and REALTIME, compare in milliseconds. */
#ifndef KNIT_REPORT_DIFF_H
#define KNIT_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "report/calltree.h"
#include "report/profile.h"

typedef struct knit_diff_context {
  uint32_t parent;      /* the context this one's path extends; 0: none */
  const char *function; /* its last frame, named as the tree names it */
  uint8_t inlined;      /* 1: an inlined call, 2: a loop (calltree.h) */
  /* Per metric, indexed by knit_metric: [0] is A's, [1] is B's. */
  double inclusive[2][KNIT_METRIC_COUNT];
  double exclusive[2][KNIT_METRIC_COUNT];
  /* Of the time metric, what threads spent idle (the <omp-idle> and
   * <omp-barrier> placeholders) in the context or below it, and in it:
   * the time OMP_IDLE charges again to the code that kept them idle. */
  double idle_inclusive[2];
  double idle_exclusive[2];
} knit_diff_context;

typedef struct knit_diff {
  knit_diff_context *contexts; /* [0] is the root: every path's values */
  size_t count;
  size_t cap;
} knit_diff;

/* Whether a's and b's values compare: both timer events with a period
 * (milliseconds), or both PROBE. Returns 0, with a note in note (""
 * when the events and periods are the same, else what is compared and
 * how), or -1 with the reason in err. */
int knit_diff_comparable(const knit_profile *a, const knit_profile *b, char *note, size_t notelen,
                         char *err, size_t errlen);

/* The contexts of a and b (named, linked), by the tree options o (lines
 * mode is not). The contexts refer to both profiles' names, which must
 * outlive them. Returns 0, or -1 out of memory. */
int knit_diff_build(knit_diff *d, const knit_profile *a, const knit_profile *b,
                    const knit_calltree_options *o);

/* A context's path, frames joined by ";" (an inlined call marked
 * " [inlined]"), into buf. */
void knit_diff_path(const knit_diff *d, uint32_t context, char *buf, size_t len);

/* The number of OpenMP threads of p's measurement: the thread files that
 * the runtime said were OpenMP threads, or, when it said none (GNU
 * libgomp has no OMPT), those of every thread but a runtime's helpers;
 * 1 at least. */
unsigned knit_diff_openmp_threads(const knit_profile *p);

void knit_diff_free(knit_diff *d);

#endif /* KNIT_REPORT_DIFF_H */
