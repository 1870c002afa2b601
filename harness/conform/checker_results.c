/*
 * The OMPT checker's verdicts: one per check of conform/checks.def and one per
 * callback, printed on stderr when they fail (or, for KNIT checks on a
 * runtime that does not claim knit's contract, are not supported) and
 * written, one tab-separated line each, to the file $KNIT_CONFORM_OUT names
 * for `knit conform`:
 *   runtime <version>   abi <gomp|kmpc>   contract <knit|spec>
 *   check <name> <category> <verdict> <evidence>
 * A check that never came up is "not observable", or "not supported" when
 * the callback it needs was answered never (docs/conform.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker_state.h"

static FILE *results;

static void emit(const char *name, const char *category, const char *verdict, const char *evidence)
{
  bool fail = strcmp(verdict, VERDICT_FAIL) == 0;
  if (fail || (strcmp(verdict, VERDICT_UNSUPPORTED) == 0 && checker_started))
    fprintf(stderr, "ompt_checker: %s %s: %s\n", fail ? "VIOLATED" : "NOT SUPPORTED", name,
            evidence);
  if (!results)
    return;
  char clean[2 * EVIDENCE_LEN + 64];
  snprintf(clean, sizeof clean, "%s", evidence);
  for (char *p = clean; *p; p++)
    if (*p == '\t' || *p == '\n')
      *p = ' ';
  fprintf(results, "check\t%s\t%s\t%s\t%s\n", name, category, verdict, clean);
}

/* The verdict for a check and its evidence (into buf when composed). */
static const char *verdict_of(check_id id, char *buf, size_t len, const char **evidence)
{
  const check_rec_t *c = &checker_checks[id];
  const check_info *info = &checker_catalog[id];
  *evidence = buf;
  if (!checker_started) {
    snprintf(buf, len, "the runtime never called ompt_start_tool: it offers no OMPT");
    return VERDICT_UNSUPPORTED;
  }
  if (c->violated > 0) {
    bool fail = checker_is_failure(id);
    snprintf(buf, len, "%s%s (%lu of %lu observations)",
             fail ? "" : "beyond the specification: ", c->evidence, c->violated,
             c->violated + c->held);
    return fail ? VERDICT_FAIL : VERDICT_UNSUPPORTED;
  }
  if (c->held > 0) {
    snprintf(buf, len, "held in %lu observations%s%s", c->held, c->note[0] ? "; " : "", c->note);
    return VERDICT_PASS;
  }
  /* Only a program with target constructs can show a device's events. */
  if (info->category == KNIT_CATEGORY_DEVICE && !checker_offloads()) {
    snprintf(buf, len, "this program has no target construct");
    return VERDICT_UNOBSERVABLE;
  }
  int cb = info->callback;
  if (cb && checker_set_answer[cb] == ompt_set_never) {
    if (checker_open_coded(cb)) {
      snprintf(buf, len, "under the GOMP ABI gcc open-codes the construct: no event exists");
      return VERDICT_UNOBSERVABLE;
    }
    snprintf(buf, len, "set_callback answered never for the callback this check needs (%d)", cb);
    return VERDICT_UNSUPPORTED;
  }
  if (strcmp(checker_abi, "gomp") == 0 &&
      (id == CHK_LEAGUE_FLAGS || id == CHK_TEAM_NUM || id == CHK_TASK_MEMORY)) {
    snprintf(buf, len, "only the __kmpc_* programs run %s: not exercised under the GOMP ABI",
             id == CHK_TASK_MEMORY ? "the task that asks ompt_get_task_memory"
                                   : "a teams construct");
    return VERDICT_UNOBSERVABLE;
  }
  snprintf(buf, len, "nothing this check needs happened in this program");
  return VERDICT_UNOBSERVABLE;
}

int checker_write_results_locked(void)
{
  const char *path = getenv("KNIT_CONFORM_OUT");
  results = path && *path ? fopen(path, "w") : NULL;
  if (path && *path && !results)
    fprintf(stderr, "ompt_checker: cannot write %s\n", path);
  if (results) {
    fprintf(results, "runtime\t%s\nomp_version\t%u\nabi\t%s\ncontract\t%s\n",
            checker_started ? checker_runtime_version : "none (no OMPT)", checker_omp_version,
            checker_abi, checker_strict ? "knit" : "spec");
  }
  int failures = 0;
  for (int id = 0; id < CHK_COUNT; id++) {
    /* An offloading program judges its devices (and the tool's life): the
     * host events of kernels that run on host threads belong to the
     * programs that exercise them by design. */
    knit_check_category category = checker_catalog[id].category;
    if (checker_offloads() && category != KNIT_CATEGORY_DEVICE &&
        category != KNIT_CATEGORY_LIFECYCLE)
      continue;
    char buf[2 * EVIDENCE_LEN + 64];
    const char *evidence;
    const char *verdict = verdict_of((check_id)id, buf, sizeof buf, &evidence);
    emit(checker_catalog[id].name, knit_check_category_name(checker_catalog[id].category), verdict,
         evidence);
    failures += strcmp(verdict, VERDICT_FAIL) == 0;
  }
  if (checker_started)
    failures += checker_callback_verdicts_locked(emit);
  else
    emit("set_callback", knit_check_category_name(KNIT_CATEGORY_CALLBACKS), VERDICT_UNSUPPORTED,
         "the runtime never called ompt_start_tool: it offers no OMPT");
  if (results)
    fclose(results);
  results = NULL;
  return failures;
}
