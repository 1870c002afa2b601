/* knit conform's report: verdicts merged, counted and found (conform_report.h). */
#include "conform/conform_report.h"

#include <stdio.h>
#include <string.h>

const char *knit_verdict_name(knit_verdict v)
{
  static const char *const names[] = {"not observable", "pass", "not supported", "fail"};
  return v < KNIT_V_COUNT ? names[v] : "?";
}

bool knit_verdict_parse(const char *s, knit_verdict *out)
{
  for (int v = 0; v < KNIT_V_COUNT; v++) {
    if (strcmp(s, knit_verdict_name((knit_verdict)v)) == 0) {
      *out = (knit_verdict)v;
      return true;
    }
  }
  return false;
}

const knit_check *knit_conform_find(const knit_conform_report *r, const char *name)
{
  for (int i = 0; i < r->n_checks; i++)
    if (strcmp(r->checks[i].name, name) == 0)
      return &r->checks[i];
  return NULL;
}

void knit_conform_merge(knit_conform_report *r, const char *name, const char *category,
                        knit_verdict v, const char *evidence, const char *source)
{
  knit_check *c = (knit_check *)knit_conform_find(r, name);
  if (!c) {
    if (r->n_checks == KNIT_MAX_CHECKS)
      return;
    c = &r->checks[r->n_checks++];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->category, sizeof c->category, "%s", category);
  } else if (v <= c->verdict) {
    return;
  }
  c->verdict = v;
  snprintf(c->evidence, sizeof c->evidence, "%s", evidence);
  snprintf(c->source, sizeof c->source, "%s", source);
}

int knit_conform_count(const knit_conform_report *r, knit_verdict v)
{
  int n = 0;
  for (int i = 0; i < r->n_checks; i++)
    n += r->checks[i].verdict == v;
  return n;
}

void knit_conform_mutation_score(const knit_conform_report *r, int *caught, int *applicable)
{
  *caught = *applicable = 0;
  for (int i = 0; i < r->n_faults; i++) {
    *applicable += r->faults[i].state != KNIT_FAULT_NOT_APPLICABLE;
    *caught += r->faults[i].state == KNIT_FAULT_CAUGHT;
  }
}

const char *knit_fault_state_name(knit_fault_state s)
{
  return s == KNIT_FAULT_CAUGHT ? "caught" : s == KNIT_FAULT_MISSED ? "missed" : "not applicable";
}
