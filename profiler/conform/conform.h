/* knit conform: a conformance report of an OpenMP runtime's OMPT and of the
 * platform's support for sampling (docs/conform.md).  The checks run in the
 * conformance programs of a build tree (harness/conform), which write one
 * verdict per line; this side runs them, merges the verdicts, runs the
 * mutation suite on the mocks and writes the reports. */
#ifndef KNIT_CONFORM_CONFORM_H
#define KNIT_CONFORM_CONFORM_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* In the order a merge prefers them, weakest first. */
typedef enum knit_verdict {
  KNIT_V_UNOBSERVABLE,
  KNIT_V_PASS,
  KNIT_V_UNSUPPORTED,
  KNIT_V_FAIL,
  KNIT_V_COUNT
} knit_verdict;

/* "not observable", "pass", "not supported", "fail". */
const char *knit_verdict_name(knit_verdict v);
bool knit_verdict_parse(const char *s, knit_verdict *out);

typedef struct knit_check {
  char name[64];
  char category[24];
  knit_verdict verdict;
  char evidence[800];
  char source[40];      /* the program run that gave the verdict */
} knit_check;

typedef enum { KNIT_FAULT_CAUGHT, KNIT_FAULT_MISSED, KNIT_FAULT_NOT_APPLICABLE } knit_fault_state;

typedef struct knit_mutation {
  char fault[48];
  knit_fault_state state;
  char checks[200];     /* the checks it turned to fail, or why it does not apply */
} knit_mutation;

#define KNIT_MAX_CHECKS 160
#define KNIT_MAX_FAULTS 48

typedef struct knit_conform_report {
  char runtime[256];
  char label[280];      /* its name in a summary: the runtime, "/ABI" where it speaks two */
  char isa[16];
  char runtime_version[160];
  char omp_version[16];
  char abis[32];        /* "gomp", "kmpc" or both */
  bool ompt;            /* the runtime called ompt_start_tool */
  bool mutated;         /* the mutation suite ran */
  knit_check checks[KNIT_MAX_CHECKS];
  int n_checks;
  knit_mutation faults[KNIT_MAX_FAULTS];
  int n_faults;
} knit_conform_report;

/* What a report is called in titles and summaries. */
static inline const char *knit_conform_label(const knit_conform_report *r)
{
  return r->label[0] ? r->label : r->runtime;
}

/* Adds a verdict; a check seen before keeps the stronger verdict (fail,
 * then not supported, pass, not observable) with that verdict's evidence. */
void knit_conform_merge(knit_conform_report *r, const char *name, const char *category,
                        knit_verdict v, const char *evidence, const char *source);
int knit_conform_count(const knit_conform_report *r, knit_verdict v);
const knit_check *knit_conform_find(const knit_conform_report *r, const char *name);
/* Faults caught, and faults that could be injected at all. */
void knit_conform_mutation_score(const knit_conform_report *r, int *caught, int *applicable);

/* What to run on: a runtime by name or path, on a tree of one ISA. */
typedef struct knit_conform_target {
  const char *runtime;       /* a name of cli/runtimes.c, or NULL */
  char runtime_path[PATH_MAX]; /* a folder holding the runtime, or "" */
  const char *isa;
  char tree[PATH_MAX];       /* the build tree of that ISA */
  bool qemu;
  unsigned abi_wanted;       /* KNIT_ABI_* asked for by --abi, or 0: the runtime's own */
  unsigned abis;             /* KNIT_ABI_* to run */
  bool two_abis;             /* the runtime speaks both: reports name the ABI too */
  char work[PATH_MAX];       /* a private folder for verdict files and logs */
  unsigned timeout;          /* seconds per program */
  bool keep_logs;
} knit_conform_target;

/* Resolves the runtime, the ISA's tree and the ABIs; false with a message. */
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

/* The categories of checks, in the order reports list them. */
#define KNIT_CONFORM_CATEGORIES 11
extern const char *const knit_conform_categories[KNIT_CONFORM_CATEGORIES];

/* Puts what knit knows of a runtime's departure from OpenMP 5.0 in front
 * of the evidence of each failed check it explains (conform_departures.c). */
void knit_conform_explain(knit_conform_report *r);

/* Writes r as md, json, junit, html or tsv (what --summary reads). */
bool knit_conform_write(const knit_conform_report *r, const char *format, FILE *out);
/* Reads a report written as tsv. */
bool knit_conform_read_tsv(const char *path, knit_conform_report *r);
/* The summary of every .tsv report in dir, as md, json, junit or html;
 * returns false with a message. */
bool knit_conform_summary(const char *dir, const char *format, FILE *out, char *err,
                          size_t errlen);

/* The check-by-runtime table of a summary, in md or html (conform_matrix.c):
 * a row per check, a column per report, a verdict in each cell. */
void knit_conform_matrix(const knit_conform_report *const *reports, int n, const char *format,
                         FILE *out);

/* Text escaped for the formats. */
void knit_put_json_string(FILE *out, const char *s);
void knit_put_xml_text(FILE *out, const char *s);
/* For a Markdown table cell or heading: '|', '\\', HTML's '<', '>' and
 * '&' escaped, control characters (line breaks included) as spaces. */
void knit_put_md_text(FILE *out, const char *s);

#endif /* KNIT_CONFORM_CONFORM_H */
