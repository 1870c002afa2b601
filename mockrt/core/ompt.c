/*
 * OMPT: finding a tool, registering its callbacks, the lookup function and
 * finalization.  The runtime never defines ompt_start_tool itself, so a
 * dlsym over the global scope finds only a definition in the program or in
 * a preloaded library.
 */
#define _GNU_SOURCE
#include "mockrt.h"
#include "fault.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if !MOCKRT_OMPT_ENABLED
/* Built without OMPT: no tool, no callbacks, no entry points. */
void mockrt_ompt_init(void) {}
void mockrt_ompt_finalize(void) {}
ompt_interface_fn_t mockrt_ompt_lookup(const char *name)
{
  (void)name;
  return NULL;
}
bool mockrt_ompt_active(void)
{
  return false;
}
uint64_t mockrt_unique_id(void)
{
  static atomic_uint_least64_t next = 1;
  return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}
#else
mockrt_ompt_cbs_t mockrt_ompt;
int mockrt_ompt_attached;

static ompt_start_tool_result_t *mockrt_tool;
static atomic_int mockrt_tool_finalized;
static atomic_uint_least64_t mockrt_next_id = 1;

typedef ompt_start_tool_result_t *(*mockrt_start_tool_fn)(unsigned int, const char *);

/* The omp_version libomp 14 passes to ompt_start_tool (its _OPENMP), the
 * same here so that a tool cannot tell the two apart by it. */
#define MOCKRT_OMP_VERSION 201611

/*
 * The runtime's own ompt_start_tool, weak and exported, as libomp's is: a
 * program linked against the runtime that defines ompt_start_tool then has
 * its definition exported (a linker exports a symbol that a shared library
 * it links against also defines), where the look-up below finds it, without
 * the program being linked with -rdynamic.  When this one is the first
 * found, a tool may still be in a library after the runtime in the search
 * order (one the program links after it): like libomp's, it hands the call
 * on to the next definition, and declines when there is none.
 */
MOCKRT_EXPORT __attribute__((weak)) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  mockrt_start_tool_fn next = (mockrt_start_tool_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
  if (!next || next == ompt_start_tool)
    return NULL;
  return next(omp_version, runtime_version);
}

static ompt_start_tool_result_t *mockrt_try_libraries(const char *list)
{
  char *copy = strdup(list);
  char *save = NULL;
  ompt_start_tool_result_t *result = NULL;
  if (!copy)
    return NULL;
  for (char *path = strtok_r(copy, ":", &save); path && !result;
       path = strtok_r(NULL, ":", &save)) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      continue;
    mockrt_start_tool_fn start = (mockrt_start_tool_fn)dlsym(h, "ompt_start_tool");
    if (start)
      result = start(MOCKRT_OMP_VERSION, mockrt_runtime_version);
    /* A library that declines stays loaded: it may have run constructors. */
  }
  free(copy);
  return result;
}

void mockrt_ompt_init(void)
{
  const char *tool = getenv("OMP_TOOL");
  ompt_start_tool_result_t *result = NULL;

  if (tool && strcasecmp(tool, "disabled") == 0)
    return;
  mockrt_start_tool_fn start = (mockrt_start_tool_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool");
  if (start)
    result = start(MOCKRT_OMP_VERSION, mockrt_runtime_version);
  if (!result) {
    const char *libs = getenv("OMP_TOOL_LIBRARIES");
    if (libs && *libs)
      result = mockrt_try_libraries(libs);
  }
  if (!result || !result->initialize)
    return;
  mockrt_tool = result;
  /* States are kept from here on: initialize may already ask for them. */
  mockrt_ompt_attached = 1;
  if (!result->initialize(mockrt_ompt_lookup, 0, &result->tool_data)) {
    /* Declined: forget any callbacks it set while deciding. */
    memset(&mockrt_ompt, 0, sizeof mockrt_ompt);
    mockrt_tool = NULL;
    mockrt_ompt_attached = 0;
  } else if (mockrt_fault(MOCKRT_FAULT_INITIALIZE_TWICE)) {
    result->initialize(mockrt_ompt_lookup, 0, &result->tool_data);
  }
}

void mockrt_ompt_finalize(void)
{
  if (!mockrt_tool || atomic_exchange(&mockrt_tool_finalized, 1))
    return;
  if (mockrt_fault(MOCKRT_FAULT_FINALIZE_DROPPED))
    return;
  /* No event may reach a tool after its finalize. */
  memset(&mockrt_ompt, 0, sizeof mockrt_ompt);
  if (mockrt_tool->finalize)
    mockrt_tool->finalize(&mockrt_tool->tool_data);
}

bool mockrt_ompt_active(void)
{
  return mockrt_tool != NULL && !atomic_load(&mockrt_tool_finalized);
}

uint64_t mockrt_unique_id(void)
{
  if (mockrt_fault(MOCKRT_FAULT_UNIQUE_ID_REUSED))
    return 1;
  return atomic_fetch_add_explicit(&mockrt_next_id, 1, memory_order_relaxed);
}

#define MOCKRT_TARGET_OMPT_50                                                                      \
  (MOCKRT_CB_BIT(ompt_callback_target) | MOCKRT_CB_BIT(ompt_callback_target_data_op) |             \
   MOCKRT_CB_BIT(ompt_callback_target_submit) | MOCKRT_CB_BIT(ompt_callback_target_map))
#define MOCKRT_TARGET_OMPT_51                                                                      \
  (MOCKRT_CB_BIT(ompt_callback_target_emi) | MOCKRT_CB_BIT(ompt_callback_target_data_op_emi) |     \
   MOCKRT_CB_BIT(ompt_callback_target_submit_emi) | MOCKRT_CB_BIT(ompt_callback_target_map_emi))

/*
 * MOCKRT_TARGET_OMPT: which forms of the target callbacks the runtime
 * offers.  Unset, both (a tool that registers both gets the _emi ones, as
 * on LLVM 15 and later); 5.1, the _emi forms alone, the 5.0 ones answered
 * never, as a runtime would that dropped them; 5.0, the 5.0 forms alone.
 * Read when a tool registers, which is before any target construct.
 */
static uint64_t mockrt_target_ompt_never(void)
{
  static int said;
  const char *v = getenv("MOCKRT_TARGET_OMPT");
  if (!v || !*v || strcmp(v, "both") == 0)
    return 0;
  if (strcmp(v, "5.1") == 0)
    return MOCKRT_TARGET_OMPT_50;
  if (strcmp(v, "5.0") == 0)
    return MOCKRT_TARGET_OMPT_51;
  if (!said) {
    said = 1;
    fprintf(stderr, "mockrt: unknown MOCKRT_TARGET_OMPT '%s' (5.0, 5.1 or both); offering both\n",
            v);
  }
  return 0;
}

/* Where the callback for an event lives, or NULL if it is never dispatched. */
static void **mockrt_cb_slot(ompt_callbacks_t which)
{
  switch (which) {
  case ompt_callback_thread_begin: return (void **)&mockrt_ompt.thread_begin;
  case ompt_callback_thread_end: return (void **)&mockrt_ompt.thread_end;
  case ompt_callback_parallel_begin: return (void **)&mockrt_ompt.parallel_begin;
  case ompt_callback_parallel_end: return (void **)&mockrt_ompt.parallel_end;
  case ompt_callback_implicit_task: return (void **)&mockrt_ompt.implicit_task;
  case ompt_callback_sync_region: return (void **)&mockrt_ompt.sync_region;
  case ompt_callback_sync_region_wait: return (void **)&mockrt_ompt.sync_region_wait;
  case ompt_callback_mutex_acquire: return (void **)&mockrt_ompt.mutex_acquire;
  case ompt_callback_mutex_acquired: return (void **)&mockrt_ompt.mutex_acquired;
  case ompt_callback_mutex_released: return (void **)&mockrt_ompt.mutex_released;
  case ompt_callback_nest_lock: return (void **)&mockrt_ompt.nest_lock;
  case ompt_callback_lock_init: return (void **)&mockrt_ompt.lock_init;
  case ompt_callback_lock_destroy: return (void **)&mockrt_ompt.lock_destroy;
  case ompt_callback_task_create: return (void **)&mockrt_ompt.task_create;
  case ompt_callback_task_schedule: return (void **)&mockrt_ompt.task_schedule;
  case ompt_callback_dependences: return (void **)&mockrt_ompt.dependences;
  case ompt_callback_task_dependence: return (void **)&mockrt_ompt.task_dependence;
  case ompt_callback_work: return (void **)&mockrt_ompt.work;
  case ompt_callback_dispatch: return (void **)&mockrt_ompt.dispatch;
  case ompt_callback_masked: return (void **)&mockrt_ompt.masked;
  case ompt_callback_cancel: return (void **)&mockrt_ompt.cancel;
  case ompt_callback_reduction: return (void **)&mockrt_ompt.reduction;
  case ompt_callback_flush: return (void **)&mockrt_ompt.flush;
  case ompt_callback_control_tool: return (void **)&mockrt_ompt.control_tool;
  case ompt_callback_target: return (void **)&mockrt_ompt.device.target;
  case ompt_callback_target_data_op: return (void **)&mockrt_ompt.device.target_data_op;
  case ompt_callback_target_submit: return (void **)&mockrt_ompt.device.target_submit;
  case ompt_callback_target_map: return (void **)&mockrt_ompt.device.target_map;
  case ompt_callback_target_emi: return (void **)&mockrt_ompt.device.target_emi;
  case ompt_callback_target_data_op_emi: return (void **)&mockrt_ompt.device.target_data_op_emi;
  case ompt_callback_target_submit_emi: return (void **)&mockrt_ompt.device.target_submit_emi;
  case ompt_callback_target_map_emi: return (void **)&mockrt_ompt.device.target_map_emi;
  case ompt_callback_device_initialize: return (void **)&mockrt_ompt.device.device_initialize;
  case ompt_callback_device_finalize: return (void **)&mockrt_ompt.device.device_finalize;
  case ompt_callback_device_load: return (void **)&mockrt_ompt.device.device_load;
  case ompt_callback_device_unload: return (void **)&mockrt_ompt.device.device_unload;
  default: return NULL;
  }
}

/*
 * What set_callback promises for a callback the mock dispatches: always,
 * unless some of its events can happen without it (then sometimes), or
 * never if the runtime cannot see them at all.  The answer must match what
 * a checker observes (docs/mockrt-faults.md); what the compiler open-codes
 * is the personality's to say (mockrt_abi_sometimes, mockrt_abi_never).
 */
static ompt_set_result_t mockrt_ompt_answer(ompt_callbacks_t which)
{
  if ((mockrt_abi_never | mockrt_target_ompt_never()) & MOCKRT_CB_BIT(which))
    return ompt_set_never;
  if (mockrt_abi_sometimes & MOCKRT_CB_BIT(which))
    return ompt_set_sometimes;
  return ompt_set_always;
}

static ompt_set_result_t mockrt_ompt_set_callback(ompt_callbacks_t which, ompt_callback_t cb)
{
  if ((int)which < ompt_callback_thread_begin || (int)which > ompt_callback_error)
    return ompt_set_error;
  void **slot = mockrt_cb_slot(which);
  if (!slot)
    return ompt_set_never;
  ompt_set_result_t answer = mockrt_ompt_answer(which);
  /* The lie: accepted as always, never dispatched. */
  if (mockrt_fault(MOCKRT_FAULT_SET_CALLBACK_LIES) && which == ompt_callback_work)
    return ompt_set_always;
  if (answer == ompt_set_never)
    return answer;
  __atomic_store_n(slot, (void *)cb, __ATOMIC_RELEASE);
  return answer;
}

static int mockrt_ompt_get_callback(ompt_callbacks_t which, ompt_callback_t *cb)
{
  void **slot = mockrt_cb_slot(which);
  void *f = slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
  if (!f)
    return 0;
  if (cb)
    *cb = (ompt_callback_t)f;
  return 1;
}

static uint64_t mockrt_ompt_get_unique_id(void)
{
  return mockrt_unique_id();
}

/* As libomp 14: the runtime's end events, then the tool's finalize. */
static void mockrt_ompt_finalize_tool(void)
{
  mockrt_shutdown();
}

ompt_interface_fn_t mockrt_ompt_lookup(const char *name)
{
  static const struct {
    const char *name;
    ompt_interface_fn_t fn;
  } table[] = {
      {"ompt_set_callback", (ompt_interface_fn_t)mockrt_ompt_set_callback},
      {"ompt_get_callback", (ompt_interface_fn_t)mockrt_ompt_get_callback},
      {"ompt_get_state", (ompt_interface_fn_t)mockrt_ompt_get_state},
      {"ompt_get_parallel_info", (ompt_interface_fn_t)mockrt_ompt_get_parallel_info},
      {"ompt_get_task_info", (ompt_interface_fn_t)mockrt_ompt_get_task_info},
      {"ompt_get_task_memory", (ompt_interface_fn_t)mockrt_ompt_get_task_memory},
      {"ompt_get_thread_data", (ompt_interface_fn_t)mockrt_ompt_get_thread_data},
      {"ompt_get_unique_id", (ompt_interface_fn_t)mockrt_ompt_get_unique_id},
      {"ompt_enumerate_states", (ompt_interface_fn_t)mockrt_ompt_enumerate_states},
      {"ompt_get_num_procs", (ompt_interface_fn_t)mockrt_ompt_get_num_procs},
      {"ompt_get_num_places", (ompt_interface_fn_t)mockrt_ompt_get_num_places},
      {"ompt_get_place_proc_ids", (ompt_interface_fn_t)mockrt_ompt_get_place_proc_ids},
      {"ompt_get_place_num", (ompt_interface_fn_t)mockrt_ompt_get_place_num},
      {"ompt_get_partition_place_nums", (ompt_interface_fn_t)mockrt_ompt_get_partition_place_nums},
      {"ompt_get_proc_id", (ompt_interface_fn_t)mockrt_ompt_get_proc_id},
      {"ompt_get_num_devices", (ompt_interface_fn_t)mockrt_ompt_get_num_devices},
      {"ompt_get_target_info", (ompt_interface_fn_t)mockrt_ompt_get_target_info},
      {"ompt_enumerate_mutex_impls", (ompt_interface_fn_t)mockrt_ompt_enumerate_mutex_impls},
      {"ompt_finalize_tool", (ompt_interface_fn_t)mockrt_ompt_finalize_tool},
  };
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strcmp(name, table[i].name) == 0)
      return table[i].fn;
  }
  return NULL;
}
#endif
