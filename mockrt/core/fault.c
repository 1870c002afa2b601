/*
 * Fault injection (fault.h): MOCKRT_FAULT is read by a constructor, before
 * main and before any runtime thread exists, so the checks need no
 * synchronization and cost one load each.
 */
#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mockrt_fault_active;
ompt_data_t mockrt_fault_stray_data;

static const char *const mockrt_fault_names[] = {NULL,
#define MOCKRT_FAULT_NAME(id, name, doc) name,
                                                 MOCKRT_FOREACH_FAULT(MOCKRT_FAULT_NAME)
#undef MOCKRT_FAULT_NAME
};
#define MOCKRT_FAULT_COUNT ((int)(sizeof mockrt_fault_names / sizeof mockrt_fault_names[0]))

__attribute__((constructor)) static void mockrt_fault_init(void)
{
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
