/*
 * A small OMPT tool built as a shared library, found only through
 * OMP_TOOL_LIBRARIES.  It counts regions and exports the count so the test
 * program can ask it (after dlopen with RTLD_NOLOAD) whether it was loaded,
 * initialized and fed events.
 */
#include <omp-tools.h>
#include <stdio.h>

static int mockrt_test_initialized;
static int mockrt_test_regions;

__attribute__((visibility("default"))) int mockrt_test_tool_regions(void)
{
  return mockrt_test_initialized ? mockrt_test_regions : -1;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *codeptr)
{
  (void)task;
  (void)frame;
  (void)par;
  (void)requested;
  (void)flags;
  (void)codeptr;
  __atomic_add_fetch(&mockrt_test_regions, 1, __ATOMIC_RELAXED);
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *tool_data)
{
  (void)dev;
  (void)tool_data;
  ompt_set_callback_t set_cb = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_cb ||
      set_cb(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) != ompt_set_always)
    return 0;
  mockrt_test_initialized = 1;
  return 1;
}

static void tool_fini(ompt_data_t *tool_data)
{
  (void)tool_data;
}

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
  (void)omp_version;
  (void)runtime_version;
  return &r;
}
