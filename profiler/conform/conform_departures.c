/*
 * knit conform: why a known runtime fails a check.  A failed SPEC check is
 * a departure from OpenMP 5.0; where knit knows the runtime's code path
 * behind it, the report says so next to the evidence, so that a vendor
 * reads the cause and a reader of the summary can tell a known departure
 * from a new finding (conform_test.sh fails on a libomp failure without
 * an explanation here).  Runtimes are recognised by the version string
 * their ompt_start_tool passes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "conform/conform.h"

typedef struct departure {
  const char *version; /* the runtime version starts with this */
  const char *check;
  const char *why;
} departure;

static const departure known[] = {
    {"LLVM OMP", "enter_frame_flags",
     "at parallel_begin libomp 14 sets the encountering task's enter frame but, in most regions, "
     "not its flags (they stay 0); OpenMP 5.0 (ompt_frame_t) requires the flags to say whether "
     "the address is a CFA or a frame pointer"},
    {"LLVM OMP", "task_info_parent",
     "libomp 14 answers level 1 with the task's scheduling parent (the task the thread ran when "
     "it started this one), not the task that created it; OpenMP 5.0 defines level 1 as the "
     "parent task, the one that encountered the task construct"},
    {"LLVM OMP", "task_info_ancestors",
     "past level 1 too, libomp 14 follows scheduling parents, not the tasks that created each "
     "level; OpenMP 5.0 defines each level as the parent of the one below"},
    {"LLVM OMP", "wait_state_critical",
     "libomp 14's __kmpc_critical_with_hint stores wait_critical into a local copy of the "
     "thread's OMPT record (its code has no such store left), so a thread blocked on a critical "
     "region reports the state of the lock underneath, wait_lock; OpenMP 5.0 defines "
     "wait_critical for that wait"},
    {"LLVM OMP", "wait_state_taskwait",
     "libomp 14 dispatches a taskwait's sync_region_wait but leaves the thread's state as it "
     "was (work_parallel) while it waits for its children; OpenMP 5.0 defines wait_taskwait "
     "for that wait"},
    {"LLVM OMP", "wait_state_taskgroup",
     "libomp 14 dispatches the sync_region_wait at the end of a taskgroup but leaves the "
     "thread's state as it was (work_parallel) while it waits; OpenMP 5.0 defines "
     "wait_taskgroup for that wait"},
};

void knit_conform_explain(knit_conform_report *r)
{
  for (int i = 0; i < r->n_checks; i++) {
    knit_check *k = &r->checks[i];
    if (k->verdict != KNIT_V_FAIL)
      continue;
    for (size_t d = 0; d < sizeof known / sizeof known[0]; d++) {
      if (strncmp(r->runtime_version, known[d].version, strlen(known[d].version)) != 0 ||
          strcmp(k->name, known[d].check) != 0)
        continue;
      char evidence[sizeof k->evidence];
      snprintf(evidence, sizeof evidence, "departs from OpenMP 5.0: %s. Seen: %s", known[d].why,
               k->evidence);
      memcpy(k->evidence, evidence, sizeof evidence);
      break;
    }
  }
}
