/*
 * The host runtime's OMPT, as the mock device reaches it: the host mock
 * runtime's table (core/target_hooks.h), found once.  On any other host
 * runtime (libomp 14 itself) there is none, and the device runs its
 * kernels with no OMPT at all: no callbacks, no device_initialize, so a
 * tool never gets the tracing entry points.
 */
#define _GNU_SOURCE
#include "target.h"

#include <dlfcn.h>

typedef const mockrt_target_hooks *(*mockrt_tgt_hooks_fn)(void);

static const mockrt_target_hooks *mockrt_tgt_found;
static pthread_once_t mockrt_tgt_hooks_once = PTHREAD_ONCE_INIT;

static void mockrt_tgt_find_hooks(void)
{
  mockrt_tgt_hooks_fn fn = (mockrt_tgt_hooks_fn)dlsym(RTLD_DEFAULT, "mockrt_ompt_target_hooks");
  const mockrt_target_hooks *hooks = fn ? fn() : NULL;
  /* A host runtime of another revision: safer without OMPT than through a
   * layout that may have changed. */
  if (hooks && hooks->version == MOCKRT_TARGET_HOOKS_VERSION)
    mockrt_tgt_found = hooks;
}

const mockrt_target_hooks *mockrt_tgt_hooks(void)
{
  pthread_once(&mockrt_tgt_hooks_once, mockrt_tgt_find_hooks);
  return mockrt_tgt_found;
}

const mockrt_target_cbs_t *mockrt_tgt_cbs(void)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  return hooks ? hooks->cbs : NULL;
}

int mockrt_tgt_fault(void)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  return hooks ? hooks->fault() : 0;
}

uint64_t mockrt_tgt_unique_id(void)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  return hooks ? hooks->unique_id() : 0;
}

int mockrt_tgt_state_enter(int state)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  return hooks ? hooks->set_state(state) : -1;
}

void mockrt_tgt_state_leave(int old)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  if (hooks && old >= 0)
    hooks->set_state(old);
}

void mockrt_tgt_target_info(int device_num, ompt_id_t target_id, ompt_id_t host_op_id)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  if (hooks)
    hooks->set_target_info(device_num, target_id, host_op_id);
}
