/*
 * set_callback's answer for every callback the checker registers, against
 * what the run showed.  OpenMP 5.0 lets a runtime answer never, sometimes
 * (or sometimes_paired) or always; mandatory callbacks must be always.
 *   always    and events came                   pass
 *   always    gcc open-codes it (GOMP ABI)      not observable
 *   always    the program exercises it, none    fail (the answer lies)
 *   always    not exercised, none               not observable
 *   sometimes                                   pass (any count)
 *   never     yet events came                   fail
 *   never     mandatory                         fail
 *   never     gcc open-codes it (GOMP ABI)      not observable
 *   never     otherwise                         not supported
 *   error or impossible                         fail if mandatory, else not supported
 *   not asked (the other form of a target       not observable
 *   callback stands in for it)
 */
#include <stdio.h>
#include <string.h>

#include "checker_state.h"

typedef struct callback_info {
  int id;
  const char *name;
  bool mandatory;
  bool gomp_open_coded; /* gcc emits no runtime call for the construct */
} callback_info;

static const callback_info callbacks[] = {
    {ompt_callback_thread_begin, "thread_begin", true, false},
    {ompt_callback_thread_end, "thread_end", true, false},
    {ompt_callback_parallel_begin, "parallel_begin", true, false},
    {ompt_callback_parallel_end, "parallel_end", true, false},
    {ompt_callback_task_create, "task_create", true, false},
    {ompt_callback_task_schedule, "task_schedule", true, false},
    {ompt_callback_implicit_task, "implicit_task", true, false},
    {ompt_callback_control_tool, "control_tool", true, false},
    {ompt_callback_sync_region, "sync_region", false, false},
    {ompt_callback_sync_region_wait, "sync_region_wait", false, false},
    {ompt_callback_mutex_acquire, "mutex_acquire", false, false},
    {ompt_callback_mutex_acquired, "mutex_acquired", false, false},
    {ompt_callback_mutex_released, "mutex_released", false, false},
    {ompt_callback_lock_init, "lock_init", false, false},
    {ompt_callback_lock_destroy, "lock_destroy", false, false},
    {ompt_callback_nest_lock, "nest_lock", false, false},
    {ompt_callback_work, "work", false, false},
    {ompt_callback_masked, "masked", false, true},
    {ompt_callback_dispatch, "dispatch", false, false},
    {ompt_callback_flush, "flush", false, true},
    {ompt_callback_cancel, "cancel", false, false},
    {ompt_callback_reduction, "reduction", false, true},
    {ompt_callback_dependences, "dependences", false, false},
    {ompt_callback_task_dependence, "task_dependence", false, false},
    /* OpenMP 5.0 has these answered always, but a runtime without OMPT
     * support for its devices answers never: not supported (checks.def). */
    {ompt_callback_device_initialize, "device_initialize", false, false},
    {ompt_callback_device_finalize, "device_finalize", false, false},
    {ompt_callback_device_load, "device_load", false, false},
    {ompt_callback_device_unload, "device_unload", false, false},
    {ompt_callback_target, "target", false, false},
    {ompt_callback_target_data_op, "target_data_op", false, false},
    {ompt_callback_target_submit, "target_submit", false, false},
    {ompt_callback_target_map, "target_map", false, false},
    {ompt_callback_target_emi, "target_emi", false, false},
    {ompt_callback_target_data_op_emi, "target_data_op_emi", false, false},
    {ompt_callback_target_submit_emi, "target_submit_emi", false, false},
    {ompt_callback_target_map_emi, "target_map_emi", false, false},
};

static const callback_info *info_of(int cb)
{
  for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++)
    if (callbacks[i].id == cb)
      return &callbacks[i];
  return NULL;
}

static bool is_device_callback(int cb)
{
  return (cb >= ompt_callback_target && cb <= ompt_callback_target_submit) ||
         (cb >= ompt_callback_device_initialize && cb <= ompt_callback_device_unload) ||
         cb == ompt_callback_target_map ||
         (cb >= ompt_callback_target_emi && cb <= ompt_callback_target_map_emi);
}

bool checker_offloads(void)
{
  return (checker_exercised >> ompt_callback_target) & 1;
}

bool checker_open_coded(int cb)
{
  const callback_info *c = info_of(cb);
  return c && c->gomp_open_coded && strcmp(checker_abi, "gomp") == 0;
}

static const char *answer_name(int a)
{
  switch (a) {
  case ompt_set_never: return "never";
  case ompt_set_impossible: return "impossible";
  case ompt_set_sometimes: return "sometimes";
  case ompt_set_sometimes_paired: return "sometimes_paired";
  case ompt_set_always: return "always";
  default: return "error";
  }
}

/* The verdict for one callback; evidence says what was answered and seen. */
static const char *verdict_of(const callback_info *c, char *evidence, size_t len)
{
  int answer = checker_set_answer[c->id];
  unsigned long events = checker_events[c->id];
  bool exercised = (checker_exercised >> c->id) & 1;
  snprintf(evidence, len, "set_callback answered %s; %lu events%s", answer_name(answer), events,
           exercised ? " (the program causes some)" : "");
  switch (answer) {
  case CHECKER_NOT_ASKED:
    snprintf(evidence, len,
             "not registered: the checker took the runtime's other form of the target callbacks "
             "(5.0's or 5.1's _emi ones), and a tool registers one");
    return VERDICT_UNOBSERVABLE;
  case ompt_set_always:
    if (events > 0)
      return VERDICT_PASS;
    if (checker_open_coded(c->id)) {
      snprintf(evidence, len,
               "set_callback answered always; under the GOMP ABI gcc open-codes "
               "the construct, so no runtime can see it");
      return VERDICT_UNOBSERVABLE;
    }
    return exercised ? VERDICT_FAIL : VERDICT_UNOBSERVABLE;
  case ompt_set_sometimes:
  case ompt_set_sometimes_paired: return VERDICT_PASS;
  case ompt_set_never:
    if (events > 0 || c->mandatory)
      return VERDICT_FAIL;
    if (is_device_callback(c->id) && !checker_offloads()) {
      snprintf(evidence, len,
               "set_callback answered never; this program has no target construct, whose "
               "device may offer it");
      return VERDICT_UNOBSERVABLE;
    }
    if (checker_open_coded(c->id)) {
      snprintf(evidence, len,
               "set_callback answered never; under the GOMP ABI gcc open-codes "
               "the construct, so no runtime can see it");
      return VERDICT_UNOBSERVABLE;
    }
    return VERDICT_UNSUPPORTED;
  default: return c->mandatory ? VERDICT_FAIL : VERDICT_UNSUPPORTED;
  }
}

int checker_callback_verdicts_locked(checker_emit_fn emit)
{
  int failures = 0;
  for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++) {
    /* An offloading program answers for the device callbacks only
     * (checker_results.c). */
    if (checker_offloads() && !is_device_callback(callbacks[i].id))
      continue;
    char name[64], evidence[160];
    const char *verdict = verdict_of(&callbacks[i], evidence, sizeof evidence);
    snprintf(name, sizeof name, "set_callback_%s", callbacks[i].name);
    emit(name, knit_check_category_name(KNIT_CATEGORY_CALLBACKS), verdict, evidence);
    failures += strcmp(verdict, VERDICT_FAIL) == 0;
  }
  return failures;
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr)
{
  (void)command, (void)modifier, (void)arg, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_control_tool, "control_tool");
  pthread_mutex_unlock(&checker_mu);
  return 1;
}

void checker_register_other_callbacks(void)
{
  REGISTER(ompt_callback_control_tool, on_control_tool);
}
