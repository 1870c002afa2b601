/* knit conform --mutations: the suite against every fault the mock runtime
 * can inject (MOCKRT_FAULT, docs/mockrt-faults.md).  A fault is caught when
 * at least one check that did not fail without it fails with it.  The
 * fault list comes from the mock itself: an unknown MOCKRT_FAULT makes it
 * print every valid name, and the run goes on without a fault. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/runtimes.h"
#include "conform/conform.h"

/* Asked of the mock to make it list its faults. */
#define LIST_FAULTS "knit-conform-list-faults"

/* Faults in events that an ABI or a runtime may not have at all: with the
 * check's verdict "not observable" (gcc open-codes master; clang does a long
 * double atomic in libatomic, and gcc too where the ISA has a wide enough
 * compare-and-swap; the gcc-built programs run no task that asks
 * ompt_get_task_memory; a runtime without host teams runs no teams
 * construct) or "not supported" (the __kmpc_*
 * mocks, as libomp 14, answer never for dispatch; a mock without a device
 * runs no offloading program), the fault changes nothing a tool could see,
 * so it cannot be injected there. */
static const struct {
  const char *fault, *callback_check;
} needs_event[] = {
    {"masked_end_dropped", "set_callback_masked"},
    {"atomic_state_wrong", "atomic_wait_state"},
    {"dispatch_outside_work", "set_callback_dispatch"},
    /* Host teams, where the runtime has them; the task that asks for its
     * memory: clang-built programs only. */
    {"league_flags_wrong", "league_flags"},
    {"team_num_wrong", "team_num"},
    {"task_memory_wrong", "task_memory"},
    /* The mock device's faults, where the offloading program runs (a tree
     * with the offloading build, a mock that brings libomptarget.so): its
     * kernel_count is then observed. */
    {"target_id_mismatch", "kernel_count"},
    {"host_op_id_mismatch", "kernel_count"},
    {"buffer_complete_never", "kernel_count"},
    {"record_time_reversed", "kernel_count"},
    {"translate_time_wrong", "kernel_count"},
    {"data_op_bytes_wrong", "kernel_count"},
    {"device_initialize_missing", "kernel_count"},
    {"target_wait_state_wrong", "kernel_count"},
    /* And those of its _emi callbacks, where the runtime offers them. */
    {"emi_target_data_lost", "emi_target_data"},
    {"emi_host_op_id_ignored", "emi_host_op_id"},
};

static int read_faults(const char *log, char names[][48], int max)
{
  FILE *f = fopen(log, "r");
  char line[4096];
  int n = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *list = strstr(line, "Valid names:");
    if (!list)
      continue;
    char *save = NULL;
    for (char *w = strtok_r(list + strlen("Valid names:"), " \n", &save); w && n < max;
         w = strtok_r(NULL, " \n", &save))
      snprintf(names[n++], 48, "%s", w);
    break;
  }
  if (f)
    fclose(f);
  return n;
}

static bool applicable(const knit_conform_report *base, const char *fault, char *why, size_t len)
{
  for (size_t i = 0; i < sizeof needs_event / sizeof needs_event[0]; i++) {
    if (strcmp(needs_event[i].fault, fault) != 0)
      continue;
    const knit_check *c = knit_conform_find(base, needs_event[i].callback_check);
    if (c && c->verdict == KNIT_V_UNOBSERVABLE) {
      snprintf(why, len, "%.40s is not observable under this ABI: %.100s", c->name, c->evidence);
      return false;
    }
    if (c && c->verdict == KNIT_V_UNSUPPORTED) {
      snprintf(why, len, "%.40s: the runtime does not offer these events", c->name);
      return false;
    }
  }
  return true;
}

bool knit_conform_mutations(const knit_conform_target *t, knit_conform_report *r, char *err,
                            size_t errlen)
{
  if (t->runtime_path[0] || strncmp(t->runtime, "mock-", 5) != 0) {
    snprintf(err, errlen,
             "--mutations needs a mock runtime (mock-gomp, mock-intel, mock-pgi): "
             "only they inject faults");
    return false;
  }
  char log[4096];
  const char *program = t->abis & KNIT_ABI_KMPC ? "conform_regions_kmpc" : "conform_regions_gomp";
  if (!knit_conform_run_log(t, program, LIST_FAULTS, log, sizeof log, err, errlen))
    return false;
  char names[KNIT_MAX_FAULTS][48];
  int n = read_faults(log, names, KNIT_MAX_FAULTS);
  if (n == 0) {
    snprintf(err, errlen, "the runtime listed no faults (see %s)", log);
    return false;
  }
  knit_conform_report *with = malloc(sizeof *with);
  if (!with) {
    snprintf(err, errlen, "out of memory");
    return false;
  }
  r->mutated = true;
  r->n_faults = 0;
  for (int i = 0; i < n; i++) {
    knit_mutation *m = &r->faults[r->n_faults++];
    snprintf(m->fault, sizeof m->fault, "%.47s", names[i]);
    if (!applicable(r, names[i], m->checks, sizeof m->checks)) {
      m->state = KNIT_FAULT_NOT_APPLICABLE;
      continue;
    }
    memset(with, 0, sizeof *with);
    knit_progress_update(t->progress, "mutations", (size_t)i, (size_t)n);
    if (!knit_conform_run(t, names[i], with, err, errlen)) {
      free(with);
      return false;
    }
    m->state = KNIT_FAULT_MISSED;
    m->checks[0] = '\0';
    for (int c = 0; c < with->n_checks; c++) {
      const knit_check *now = &with->checks[c];
      const knit_check *before = knit_conform_find(r, now->name);
      if (now->verdict != KNIT_V_FAIL || (before && before->verdict == KNIT_V_FAIL))
        continue;
      m->state = KNIT_FAULT_CAUGHT;
      size_t used = strlen(m->checks);
      snprintf(m->checks + used, sizeof m->checks - used, "%s%s", used ? ", " : "", now->name);
    }
  }
  free(with);
  return true;
}
