/* Unwind step classes in `knit report` (unwind/step_class.h): how many
 * steps of the walks were confirmed by a call to the callee, probable
 * (indirect call, tail call) or wrong, in all and per module. */
#ifndef KNIT_REPORT_VIEW_STEPS_H
#define KNIT_REPORT_VIEW_STEPS_H

#include <stdint.h>
#include <stdio.h>

#include "measure/read_file.h"
#include "report/profile.h"

/* The steps of one module, merged over threads by the module's path. */
typedef struct knit_steps_row {
  const char *path; /* the module's path, or "<unknown>" (borrowed) */
  uint64_t confirmed, probable, wrong;
} knit_steps_row;

/* Merges the STEPS sections of every thread of m by module path, into
 * *rows (malloc'd; free it), most steps first, then by path. Returns the
 * number of rows, 0 when no thread file has a STEPS section, or -1 when
 * out of memory. *present says whether any thread file had one. */
long knit_steps_merge(const knit_measurement *m, knit_steps_row **rows, int *present);

/* "steps: C confirmed, P probable, W wrong" and a newline, or nothing when
 * the measurement holds no step classes (written before they existed). */
void knit_view_steps_line(const knit_profile *p, FILE *out);

/* A table with one row per module: confirmed, probable, wrong, module. */
void knit_view_steps(const knit_profile *p, FILE *out);

#endif /* KNIT_REPORT_VIEW_STEPS_H */
