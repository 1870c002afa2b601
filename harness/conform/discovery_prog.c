/*
 * The discovery checks: how a runtime finds a tool that the program does
 * not define (OpenMP 5.0, section 4.2.1).  The program runs three regions
 * and asks the tool libraries it was given (dlopen with RTLD_NOLOAD, so
 * nothing is loaded here) what happened; `knit conform` runs it once per
 * mode with the environment the mode needs:
 *   libraries   OMP_TOOL_LIBRARIES=/nonexistent/tool.so:TOOL  the second is
 *               loaded, started, initialized and sees every region
 *   after_null  OMP_TOOL_LIBRARIES=NULLTOOL:TOOL  a start_tool returning
 *               NULL passes discovery on to the next library
 *   disabled    OMP_TOOL=disabled OMP_TOOL_LIBRARIES=TOOL  no tool starts
 *   declines    KNIT_CONFORM_TOOL=decline OMP_TOOL_LIBRARIES=TOOL
 *               initialize returns 0: no event reaches the tool afterwards
 *               (and finalize never comes: discovery_tool.c checks that)
 * Usage: conform_discovery MODE TOOL [NULLTOOL]
 * Writes one verdict line to $KNIT_CONFORM_OUT (or stdout) and exits 0 on
 * pass, 1 on fail, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform/checks.h"

#define REGIONS 3

enum { STARTED, INITIALIZED, DECLINED, SEEN, SEEN_AFTER_DECLINE, FINALIZED };

/* What the tool at path says, or false when it was never loaded. */
static bool tool_state(const char *path, int state[6])
{
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  void (*get)(int *) = h ? (void (*)(int *))dlsym(h, "knit_conform_tool_state") : NULL;
  memset(state, 0, 6 * sizeof state[0]);
  if (get)
    get(state);
  return get != NULL;
}

static int verdict(const char *check, bool pass, const char *evidence)
{
  const char *path = getenv("KNIT_CONFORM_OUT");
  FILE *f = path && *path ? fopen(path, "w") : stdout;
  if (!f) {
    fprintf(stderr, "conform_discovery: cannot write %s\n", path);
    return 1;
  }
  fprintf(f, "check\t%s\t%s\t%s\t%s\n", check, knit_check_category_name(KNIT_CATEGORY_DISCOVERY),
          pass ? "pass" : "fail", evidence);
  if (f != stdout)
    fclose(f);
  fprintf(stderr, "conform_discovery: %s %s: %s\n", check, pass ? "PASS" : "FAIL", evidence);
  return pass ? 0 : 1;
}

int main(int argc, char **argv)
{
  if (argc < 3 || (strcmp(argv[1], "after_null") == 0 && argc < 4)) {
    fprintf(stderr, "usage: %s libraries|after_null|disabled|declines TOOL [NULLTOOL]\n", argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  int n = 0;
  for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel num_threads(2)
    __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
  }
  if (n != 2 * REGIONS) {
    fprintf(stderr, "conform_discovery: regions ran %d threads, want %d\n", n, 2 * REGIONS);
    return 1;
  }
  int s[6], z[6];
  bool loaded = tool_state(argv[2], s);
  char ev[256];
  snprintf(ev, sizeof ev,
           "tool %s: loaded %d, ompt_start_tool called %d, initialize %d, "
           "regions seen %d of %d, after declining %d",
           strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2], loaded, s[STARTED],
           s[INITIALIZED], s[SEEN], REGIONS, s[SEEN_AFTER_DECLINE]);
  if (strcmp(mode, "libraries") == 0)
    return verdict("tool_libraries", s[STARTED] == 1 && s[INITIALIZED] == 1 && s[SEEN] == REGIONS,
                   ev);
  if (strcmp(mode, "disabled") == 0)
    return verdict("tool_disabled", s[STARTED] == 0 && s[INITIALIZED] == 0, ev);
  if (strcmp(mode, "declines") == 0)
    return verdict("tool_declines",
                   s[INITIALIZED] == 1 && s[DECLINED] && s[SEEN_AFTER_DECLINE] == 0, ev);
  if (strcmp(mode, "after_null") == 0) {
    tool_state(argv[3], z);
    bool asked = getenv("KNIT_CONFORM_NULL_TOOL_ASKED") != NULL;
    size_t len = strlen(ev);
    snprintf(ev + len, sizeof ev - len, "; the NULL-returning tool before it was %s",
             asked ? "asked first" : "NOT asked");
    return verdict("tool_libraries_after_null",
                   asked && s[STARTED] == 1 && s[INITIALIZED] == 1 && s[SEEN] == REGIONS, ev);
  }
  fprintf(stderr, "conform_discovery: unknown mode '%s'\n", mode);
  return 2;
}
