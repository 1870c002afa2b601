/* knit conform's report: the verdict of every check with its evidence, and
 * the mutation score, as the runs fill it in, the departures explain it,
 * the formats write it and the summary reads it back. */
#ifndef KNIT_CONFORM_REPORT_H
#define KNIT_CONFORM_REPORT_H

#include <stdbool.h>

#include "conform/checks.h"

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
  char category[24]; /* a name of conform/checks.def's categories */
  knit_verdict verdict;
  char evidence[800];
  char source[40]; /* the program run that gave the verdict */
} knit_check;

typedef enum { KNIT_FAULT_CAUGHT, KNIT_FAULT_MISSED, KNIT_FAULT_NOT_APPLICABLE } knit_fault_state;

/* "caught", "missed", "not applicable". */
const char *knit_fault_state_name(knit_fault_state s);

typedef struct knit_mutation {
  char fault[48];
  knit_fault_state state;
  char checks[200]; /* the checks it turned to fail, or why it does not apply */
} knit_mutation;

#define KNIT_MAX_CHECKS 160
#define KNIT_MAX_FAULTS 64

typedef struct knit_conform_report {
  char runtime[256];
  char label[280]; /* its name in a summary: the runtime, "/ABI" where it speaks two */
  char isa[16];
  char runtime_version[160];
  char omp_version[16];
  char abis[32]; /* "gomp", "kmpc" or both */
  bool ompt;     /* the runtime called ompt_start_tool */
  bool mutated;  /* the mutation suite ran */
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

#endif /* KNIT_CONFORM_REPORT_H */
