/*
 * The host runtime's side of the mock device (target_hooks.h): the table
 * mockrt/target finds with dlsym, and the devices it announces.  Without
 * OMPT compiled in the table still exists, with no callbacks, so a device
 * library loaded next to a baseline runtime runs its kernels all the same.
 */
#include "mockrt.h"
#include "fault.h"

static const mockrt_target_device_ops_t *_Atomic mockrt_target_ops;

static int mockrt_hook_fault(void)
{
  return mockrt_fault_active;
}

static bool mockrt_hook_deterministic(void)
{
  mockrt_self();
  return mockrt_icv.deterministic != 0;
}

static void mockrt_hook_attach(void)
{
  mockrt_self();
}

static bool mockrt_hook_tool_active(void)
{
  return MOCKRT_OMPT_ENABLED && mockrt_ompt_active();
}

static int mockrt_hook_set_state(int state)
{
  return mockrt_set_state(mockrt_self(), state);
}

static ompt_data_t *mockrt_hook_task_data(void)
{
  mockrt_task_t *t = mockrt_cur_task();
  return t ? &t->task_data : NULL;
}

static void mockrt_hook_set_target_info(int device_num, ompt_id_t target_id, ompt_id_t host_op_id)
{
  mockrt_thread_t *self = mockrt_self();
  self->target_device = device_num;
  self->target_host_op_id = host_op_id;
  /* Published last: a signal handler that sees the id sees the rest. */
  atomic_signal_fence(memory_order_seq_cst);
  self->target_id = target_id;
  atomic_signal_fence(memory_order_seq_cst);
}

static void mockrt_hook_attach_devices(const mockrt_target_device_ops_t *ops)
{
  atomic_store(&mockrt_target_ops, ops);
}

MOCKRT_EXPORT const mockrt_target_hooks *mockrt_ompt_target_hooks(void)
{
  static const mockrt_target_hooks hooks = {
      .version = MOCKRT_TARGET_HOOKS_VERSION,
      .cbs = &mockrt_ompt.device,
      .unique_id = mockrt_unique_id,
      .fault = mockrt_hook_fault,
      .deterministic = mockrt_hook_deterministic,
      .attach = mockrt_hook_attach,
      .tool_active = mockrt_hook_tool_active,
      .set_state = mockrt_hook_set_state,
      .task_data = mockrt_hook_task_data,
      .set_target_info = mockrt_hook_set_target_info,
      .attach_devices = mockrt_hook_attach_devices,
      .thread_end = mockrt_thread_end_initial,
  };
  return &hooks;
}

int mockrt_target_num_devices(void)
{
  const mockrt_target_device_ops_t *ops = atomic_load(&mockrt_target_ops);
  return ops ? ops->num_devices() : 0;
}

void mockrt_target_shutdown(void)
{
  const mockrt_target_device_ops_t *ops = atomic_load(&mockrt_target_ops);
  if (ops)
    ops->shutdown();
}
