/* Keeping the sample paths that pass through some functions, or dropping
 * them (`knit report --focus=REGEX --ignore=REGEX`), as pprof's -focus and
 * -ignore do.
 *
 * A path passes through a frame whose shown name (the tree's: readable or
 * raw as the profile was loaded) matches a POSIX extended regular
 * expression somewhere in it (regexec, unanchored); inlined levels and loop
 * levels are frames too, and the frames before the application that the
 * views hide (folded.h, rule (a)) are not, unless all_frames is set. focus
 * keeps only the paths through a matching frame, ignore drops those
 * through one; with both, a path must pass the one and not the other.
 *
 * The filter changes the profile itself: the values of the paths dropped
 * become zero in the merged tree and in each thread's metrics, and the
 * tree is linked again, so every view, format, total and per-thread table
 * afterwards agrees. */
#ifndef KNIT_REPORT_PATH_FILTER_H
#define KNIT_REPORT_PATH_FILTER_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"

typedef struct knit_path_filter {
  const char *focus; /* the expressions as given, NULL when absent */
  const char *ignore;
  regex_t focus_re;
  regex_t ignore_re;
  int all_frames; /* 1: the frames before the application count too */
  /* The profile's totals before the filter, set by apply. */
  uint64_t before[KNIT_METRIC_COUNT];
} knit_path_filter;

/* Compiles the expressions (either may be NULL). Returns 0, or -1 with
 * "--focus=X: REASON" in err (nothing to free then). */
int knit_path_filter_compile(knit_path_filter *f, const char *focus, const char *ignore, char *err,
                             size_t errlen);

/* Whether the filter keeps anything out (an expression was given). */
int knit_path_filter_active(const knit_path_filter *f);

/* Applies the filter to p (loaded, named and linked). Returns 0, or -1
 * out of memory (p is then as it was or filtered in part). */
int knit_path_filter_apply(knit_path_filter *f, knit_profile *p);

/* "filter: --focus=X --ignore=Y kept 42.0% of CPUTIME (12.0 of 28.6 ms);
 * the sample counts above are the whole measurement's", for the header of
 * a filtered profile; nothing when the filter is not active. */
void knit_path_filter_describe(const knit_path_filter *f, const knit_profile *p, FILE *out);

void knit_path_filter_free(knit_path_filter *f);

#endif /* KNIT_REPORT_PATH_FILTER_H */
