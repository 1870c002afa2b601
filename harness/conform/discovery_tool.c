/*
 * A small OMPT tool found only through OMP_TOOL_LIBRARIES, for the
 * discovery checks (discovery_prog.c).  Built twice: as
 * libknit_conform_tool.so, which accepts, or declines when
 * KNIT_CONFORM_TOOL=decline (initialize registers parallel_begin, then
 * returns 0); and with CONFORM_TOOL_NULL as libknit_conform_tool_null.so,
 * whose ompt_start_tool returns NULL so that the runtime must go on to the
 * next library in the list (it notes in the environment that it was asked:
 * libomp unloads it).  knit_conform_tool_state tells the program what
 * happened.  A finalize after a decline breaks the promise tool_declines,
 * and only the tool can see it (libomp finalizes after the program's
 * destructors), so the tool appends that verdict to $KNIT_CONFORM_OUT.
 */
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static int started, initialized, declined, regions, regions_after_decline, finalized;

/* started, initialized, declined, regions seen, regions seen after declining, finalized. */
EXPORT void knit_conform_tool_state(int state[6])
{
  int s[6] = {started,
              initialized,
              declined,
              __atomic_load_n(&regions, __ATOMIC_RELAXED),
              __atomic_load_n(&regions_after_decline, __ATOMIC_RELAXED),
              finalized};
  memcpy(state, s, sizeof s);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *codeptr)
{
  (void)task, (void)frame, (void)par, (void)requested, (void)flags, (void)codeptr;
  __atomic_add_fetch(declined ? &regions_after_decline : &regions, 1, __ATOMIC_RELAXED);
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *tool_data)
{
  (void)dev, (void)tool_data;
  initialized++;
  ompt_set_callback_t set_cb = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (set_cb)
    set_cb(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  const char *mode = getenv("KNIT_CONFORM_TOOL");
  declined = mode && strcmp(mode, "decline") == 0;
  return !declined;
}

static void tool_fini(ompt_data_t *tool_data)
{
  (void)tool_data;
  finalized++;
  const char *path = getenv("KNIT_CONFORM_OUT");
  FILE *f = declined && path && *path ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "check\ttool_declines\tdiscovery\tfail\tfinalize was called after initialize "
               "returned 0\n");
    fclose(f);
  }
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version)
{
  static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
  (void)omp_version, (void)runtime_version;
  started++;
#ifdef CONFORM_TOOL_NULL
  (void)r;
  /* A runtime may unload a library that declined: say so where it lasts. */
  setenv("KNIT_CONFORM_NULL_TOOL_ASKED", "1", 1);
  return NULL;
#else
  return &r;
#endif
}
