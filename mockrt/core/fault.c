/*
 * Fault injection (fault.h): MOCKRT_FAULT is read by a constructor, before
 * main and before any runtime thread exists, so the checks need no
 * synchronization and cost one load each.
 */
#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/knit/probe.h"

int mockrt_fault_active;
int mockrt_probe_points;
ompt_data_t mockrt_fault_stray_data;

static const char *const mockrt_fault_names[] = {NULL,
#define MOCKRT_FAULT_NAME(id, name, doc) name,
                                                 MOCKRT_FOREACH_FAULT(MOCKRT_FAULT_NAME)
#undef MOCKRT_FAULT_NAME
};
#define MOCKRT_FAULT_COUNT ((int)(sizeof mockrt_fault_names / sizeof mockrt_fault_names[0]))

/* MOCKRT_PROBE: a comma-separated list of probe points (fault.h). */
static void mockrt_probe_init(void)
{
  const char *list = getenv("MOCKRT_PROBE");
  static const struct {
    const char *name;
    int point;
  } points[] = {{"fork", MOCKRT_PROBE_FORK}, {"join", MOCKRT_PROBE_JOIN}};
  while (list && *list) {
    size_t len = strcspn(list, ",");
    bool known = false;
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
      if (strlen(points[i].name) == len && strncmp(list, points[i].name, len) == 0) {
        mockrt_probe_points |= points[i].point;
        known = true;
      }
    }
    if (!known && len > 0)
      fprintf(stderr, "mockrt: unknown MOCKRT_PROBE point '%.*s' (fork, join)\n", (int)len, list);
    list += len + (list[len] == ',');
  }
}

void mockrt_probe_take(void)
{
  knit_probe();
}

__attribute__((constructor)) static void mockrt_fault_init(void)
{
  mockrt_probe_init();
  const char *want = getenv("MOCKRT_FAULT");
  if (!want || !*want)
    return;
  for (int i = 1; i < MOCKRT_FAULT_COUNT; i++) {
    if (strcmp(want, mockrt_fault_names[i]) == 0) {
      mockrt_fault_active = i;
      return;
    }
  }
  /* A misspelt fault must not look like a runtime that passes every check. */
  fprintf(stderr, "mockrt: unknown MOCKRT_FAULT '%s'; running without a fault. Valid names:", want);
  for (int i = 1; i < MOCKRT_FAULT_COUNT; i++)
    fprintf(stderr, " %s", mockrt_fault_names[i]);
  fputc('\n', stderr);
}

/* Where a trampoline stores the right exit frame when it must not count. */
static MOCKRT_TLS void *mockrt_fault_exit_sink;

void **mockrt_fault_exit_frame(mockrt_task_t *t, void *addr)
{
  mockrt_frame_exit(t, addr);
  return &mockrt_fault_exit_sink;
}
