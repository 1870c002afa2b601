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
  knit_symbolizer *symbolizer;  /* owns the names in the tree */
} knit_profile;

/* Loads dir. Every thread file that cannot be read is named on diag as
 * "<who>: warning: FILE: reason"; a measurement that cannot be used at all
 * gives "<who>: error: ..." there and -1. Returns 0 on success (possibly
 * with failed files: see measurement.failed_count). */
int knit_profile_load(knit_profile *p, const char *dir, const char *who, FILE *diag);

void knit_profile_free(knit_profile *p);

/* Total samples in the tree, and the sum of one statistic over threads. */
uint64_t knit_profile_samples(const knit_profile *p);
uint64_t knit_profile_stat(const knit_profile *p, int stat);

/* "CPUTIME every 1000 us", "PROBE", "REALTIME every 250 ns" into buf. */
void knit_profile_describe_event(const knit_profile *p, char *buf, size_t len);

#endif /* KNIT_REPORT_PROFILE_H */
