/* Golden CCTs: reading a golden file, comparing a measurement's folded form
 * with it, and rewriting it (UPDATE_GOLDEN=1 runs `knit check --update`).
 *
 * A golden file holds folded lines, "frame;frame;... count", in the form
 * knit check compares (report/folded.h, every outlined body `omp.outlined`;
 * `knit check --update` writes it; `knit report --format=folded` writes the
 * names the report shows instead, `parallel at heat.c:42`). Lines starting with '#' are comments, and
 * these comments are directives:
 *   # tolerance: 0.05   absolute tolerance on each path's share (default 0.05)
 *   # min-share: 0.02   see the share rule below (default 0.02)
 *   # runtime-share: 0.15  see rule 4 below (default 0.15)
 *   # mode: exact       force exact comparison (or "shares"); without it the
 *                       mode follows the measurement's event
 *   # paths: ignore     compare no paths, only metric shares; the golden then
 *                       lists no paths ("compare", the default, compares them)
 *   # metric-share: OMP_MUTEX_BLAME main;locks;hold >= 0.9
 *                       a share of a metric that must fall under a path
 *                       (metric_share.h); any number of them
 *   # metric-value: DEVICE_KERNEL main;launch = 4096000
 *                       the exact amount of a metric under a path, in its
 *                       stored unit (metric_share.h); any number of them
 * Blank lines are ignored.
 *
 * Exact comparison (PROBE measurements): the same paths with the same counts.
 *
 * Share comparison (timer measurements), where the golden share of a path is
 * its count over the golden's total, and its measured share is its measured
 * count over the measured counts of all golden paths together (so samples
 * on paths outside the golden do not dilute the shares being compared):
 *   1. each golden path's measured share is within +-tolerance of its golden
 *      share;
 *   2. each golden path whose golden share is at least min-share is present
 *      (rarer paths may be missed by sampling; rule 1 still bounds them);
 *   3. the paths that are not in the golden hold, together, at most
 *      min-share of all measured samples, not counting those of rule 4;
 *   4. the paths that end in one of the runtime's placeholders hold, together,
 *      at most runtime-share of all measured samples;
 *   5. the measurement has at least one sample.
 *
 * Metric-share directives are checked in either mode, and whether or not
 * paths are compared.
 *
 * Frame names: the folded form names functions in their readable form
 * (report/names.h: physics::Simulation::step(int), the Fortran program's
 * own name for MAIN__), and a golden may hold the symbols as compiled (a
 * golden written before names were readable, or from `knit report
 * --raw-names`). Before comparing, knit check renames every golden frame
 * that is a symbol of the measurement to that symbol's readable name
 * (knit_golden_use_names), so both spellings match.
 */
#ifndef KNIT_REPORT_GOLDEN_H
#define KNIT_REPORT_GOLDEN_H

#include <stddef.h>
#include <stdio.h>

#include "report/folded.h"
#include "report/metric_share.h"
#include "report/tree.h"

#define KNIT_GOLDEN_DEFAULT_TOLERANCE     0.05
#define KNIT_GOLDEN_DEFAULT_MIN_SHARE     0.02
#define KNIT_GOLDEN_DEFAULT_RUNTIME_SHARE 0.15

typedef enum knit_check_mode {
  KNIT_CHECK_BY_EVENT = 0, /* no "# mode:" directive */
  KNIT_CHECK_EXACT = 1,
  KNIT_CHECK_SHARES = 2,
} knit_check_mode;

typedef struct knit_golden {
  knit_folded paths; /* finished: sorted, no duplicates */
  double tolerance;
  double min_share;
  double runtime_share; /* timer runs: most of all samples the runtime's
                            placeholders (<omp-...> leaves) may hold */
  knit_check_mode mode;
  int paths_ignored;         /* "# paths: ignore": only metric shares count */
  int loops;                 /* "# levels: loops": the paths hold the loops
                                (report's `loop at FILE:LINE` levels) */
  int inlined;               /* "# levels: inline": and the inlined calls
                                (NAME_[i] frames) */
  knit_metric_share *shares; /* "# metric-share:" and "# metric-value:" directives, in order */
  size_t share_count;
  char **comments; /* every '#' line, verbatim, in order */
  size_t comment_count;
} knit_golden;

/* Parses golden text. Returns 0, or -1 with "line N: what is wrong" in err. */
int knit_golden_parse(const char *text, knit_golden *g, char *err, size_t errlen);

/* Reads and parses the file at path; err names the file. */
int knit_golden_read(const char *path, knit_golden *g, char *err, size_t errlen);

void knit_golden_free(knit_golden *g);

/* Renames every frame of g's paths and metric-share prefixes that is the
 * symbol (raw_function) of a node of t, as the folded form writes it, to
 * that node's name (function), as the folded form writes it. Paths that
 * become the same are merged. Returns 0, or -1 out of memory (g is then
 * as it was, or partly renamed). */
int knit_golden_use_names(knit_golden *g, const knit_report_tree *t);

/* Compares measured (finished) with the golden in the given mode (EXACT or
 * SHARES), and writes one line per difference to out (NULL: no output):
 * "- path" for a path missing from the measurement, "+ path" for an
 * unexpected one, "~ path" for a count or share that differs. Returns the
 * number of differences: 0 means the measurement matches. */
size_t knit_golden_compare(const knit_golden *g, const knit_folded *measured, knit_check_mode mode,
                           FILE *out);

/* Writes measured as the new golden at path, keeping the comment lines of
 * old (may be NULL) at the top; when old ignores paths, the comment lines
 * alone. Written whole and renamed into place. Returns 0, or -1 with the
 * reason in err. */
int knit_golden_write(const char *path, const knit_golden *old, const knit_folded *measured,
                      char *err, size_t errlen);

#endif /* KNIT_REPORT_GOLDEN_H */
