/* A measurement made ready for views: read, merged into one tree, named and
 * linked. Shared by `knit report` and `knit check`, so both see the same
 * tree and print the same warnings. */
#ifndef KNIT_REPORT_PROFILE_H
#define KNIT_REPORT_PROFILE_H

#include <stdio.h>

#include "measure/read_file.h"
#include "report/symbolize.h"
#include "report/tree.h"

typedef struct knit_profile {
  knit_measurement measurement;
  knit_report_tree tree;
  knit_symbolizer *symbolizer; /* owns the names in the tree */
  /* 1 when a sum of the measurement's counts (metrics, statistics, unwind
   * steps) passed UINT64_MAX and stopped there (measure/count.h): the
   * views show it as UINT64_MAX and say so. */
  int saturated;
} knit_profile;

/* What the views say of a profile whose counts saturated. */
#define KNIT_SATURATED_TEXT                                                                        \
  "counts of this measurement add up past 2^64-1: those sums are shown "                           \
  "saturated, as 18446744073709551615, not wrapped around"

/* Loads dir. Every thread file that cannot be read is named on diag as
 * "<who>: warning: FILE: reason", and counts that saturated are warned of
 * there too (KNIT_SATURATED_TEXT); a measurement that cannot be used at all
 * gives "<who>: error: ..." there and -1. Returns 0 on success (possibly
 * with failed files: see measurement.failed_count). */
int knit_profile_load(knit_profile *p, const char *dir, const char *who, FILE *diag);

/* How knit_profile_load_with names the tree. knit_profile_load reads the
 * inlined calls of every node (knit_report_node.inlined). */
typedef struct knit_profile_options {
  int raw_names; /* functions by their symbols as they are (symbolize.h) */
  int no_inline; /* no inlined calls read (symbolize.h): nodes have none */
  int no_loops;  /* no loops read (symbolize.h, structure.h) */
  /* Where loading says how far it is (console/progress.h), or NULL. The
   * line is cleared before knit_profile_load_with returns. */
  struct knit_progress *progress;
} knit_profile_options;

/* knit_profile_load with options (NULL: the defaults). */
int knit_profile_load_with(knit_profile *p, const char *dir, const char *who, FILE *diag,
                           const knit_profile_options *options);

void knit_profile_free(knit_profile *p);

/* Total samples in the tree, and the sum of one statistic over threads
 * (both saturate: see knit_profile.saturated). */
uint64_t knit_profile_samples(const knit_profile *p);
uint64_t knit_profile_stat(const knit_profile *p, int stat);

/* "CPUTIME every 1000 us", "PROBE", "REALTIME every 250 ns" into buf. */
void knit_profile_describe_event(const knit_profile *p, char *buf, size_t len);

#endif /* KNIT_REPORT_PROFILE_H */
