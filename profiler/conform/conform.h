/* knit conform: a conformance report of an OpenMP runtime's OMPT and of the
 * platform's support for sampling (docs/conform.md).  The checks run in the
 * conformance programs (harness/conform), helpers that knit finds next to
 * itself (conform_helpers.h) and that write one verdict per line; this
 * module runs them, merges the verdicts, runs the mutation suite on the
 * mocks and writes the reports.  What the command calls. */
#ifndef KNIT_CONFORM_CONFORM_H
#define KNIT_CONFORM_CONFORM_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "console/progress.h"
#include "conform/conform_report.h"

/* What to run on: a runtime by name or path, on a tree of one ISA. */
typedef struct knit_conform_target {
  const char *runtime;         /* a name of cli/runtimes.c, or NULL */
  char runtime_path[PATH_MAX]; /* a folder holding the runtime, or "" */
  const char *isa;
  char tree[PATH_MAX];    /* knit's tree (or install prefix) for that ISA */
  char helpers[PATH_MAX]; /* its conformance programs and tools */
  bool qemu;
  unsigned abi_wanted; /* KNIT_ABI_* asked for by --abi, or 0: the runtime's own */
  unsigned abis;       /* KNIT_ABI_* to run */
  bool two_abis;       /* the runtime speaks both: reports name the ABI too */
  char work[PATH_MAX]; /* a private folder for verdict files and logs */
  unsigned timeout;    /* seconds per program */
  bool keep_logs;
  knit_progress *progress; /* the command's progress line, or NULL */
} knit_conform_target;

/* Resolves the runtime, the ISA's tree, the ABIs and the helpers they
 * need; false with a message. */
bool knit_conform_prepare(knit_conform_target *t, char *err, size_t errlen);
/* Removes the work folder (unless asked to keep it). */
void knit_conform_cleanup(const knit_conform_target *t);
/* Runs every conformance program (with MOCKRT_FAULT=fault if not NULL;
 * then only the OMPT checker's programs) and merges their verdicts into r.
 * False with a message when a program could not be started at all. */
bool knit_conform_run(const knit_conform_target *t, const char *fault, knit_conform_report *r,
                      char *err, size_t errlen);
/* Runs one program on the target and gives its log: for the fault list. */
bool knit_conform_run_log(const knit_conform_target *t, const char *program, const char *fault,
                          char *log, size_t loglen, char *err, size_t errlen);
/* The mutation suite: every MOCKRT_FAULT the mock knows, against r's
 * verdicts without a fault (conform_mutation.c). */
bool knit_conform_mutations(const knit_conform_target *t, knit_conform_report *r, char *err,
                            size_t errlen);

/* Puts what knit knows of a runtime's departure from OpenMP 5.0 in front
 * of the evidence of each failed check it explains (conform_departures.c). */
void knit_conform_explain(knit_conform_report *r);

/* Writes r as md, json, junit, html or tsv (what --summary reads). */
bool knit_conform_write(const knit_conform_report *r, const char *format, FILE *out);
/* The summary of every .tsv report in dir, as md, json, junit or html;
 * returns false with a message. */
bool knit_conform_summary(const char *dir, const char *format, FILE *out, char *err, size_t errlen);

#endif /* KNIT_CONFORM_CONFORM_H */
