/*
 * A target construct's life on the mock device, as the host thread that
 * encounters it sees it: the target callback's begin, the map list's
 * begin, the kernel (target regions), the map list's end, the target
 * callback's end, with a fresh target id for the whole and a host_op_id
 * per device operation.  The host thread waits all along, in the state
 * OpenMP names for what it waits for: wait_target_map while data moves,
 * wait_target while a kernel runs, wait_target_update in an update.
 *
 * Data constructs reach the runtime as clang 14 calls it: the begin of a
 * target data region and a target enter data are the same call (reported
 * as ompt_target_enter_data), its end and a target exit data too
 * (ompt_target_exit_data).  The nowait forms run synchronously.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>

/* __kmpc_push_target_tripcount: the calling thread's next kernel. */
static _Thread_local uint64_t mockrt_tgt_pending_tripcount;

void mockrt_tgt_push_tripcount(uint64_t tripcount)
{
  mockrt_tgt_pending_tripcount = tripcount;
}

/* The state a host thread waits in, unless the fault keeps the one it
 * had; returns what to restore at the end (-1: nothing). */
static int mockrt_tgt_wait_in(int state)
{
  if (mockrt_tgt_faulty(MOCKRT_FAULT_TARGET_WAIT_STATE_WRONG))
    return -1;
  return mockrt_tgt_state_enter(state);
}

ompt_data_t *mockrt_tgt_target_data(mockrt_tgt_construct_t *c)
{
  if (mockrt_tgt_faulty(MOCKRT_FAULT_EMI_TARGET_DATA_LOST)) {
    c->lost_data = (ompt_data_t){.value = 0};
    return &c->lost_data;
  }
  return &c->target_data;
}

ompt_id_t mockrt_tgt_host_op_id(ompt_id_t own, ompt_id_t tool_id)
{
  return mockrt_tgt_faulty(MOCKRT_FAULT_EMI_HOST_OP_ID_IGNORED) ? own : tool_id;
}

/* The construct's target callback (the _emi form when the tool has it)
 * and, when traced, its record.  The record keeps the runtime's target id,
 * which ompt_get_target_info names to an _emi tool. */
static void mockrt_tgt_announce(mockrt_tgt_construct_t *c, ompt_scope_endpoint_t endpoint)
{
  mockrt_tgt_device_t *dev = c->dev;
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  if (!hooks)
    return;
  ompt_data_t *task = hooks->task_data();
  ompt_record_ompt_t rec = {.type = ompt_callback_target,
                            .time = mockrt_tgt_device_now(dev),
                            .thread_id = dev->thread_id,
                            .target_id = c->target_id};
  rec.record.target = (ompt_record_target_t){.kind = c->kind,
                                             .endpoint = endpoint,
                                             .device_num = dev->num,
                                             .task_id = task ? task->value : 0,
                                             .target_id = c->target_id,
                                             .codeptr_ra = c->codeptr};
  mockrt_tgt_trace_add(dev, &rec);
  ompt_callback_target_emi_t emi = hooks->cbs->target_emi;
  ompt_callback_target_t cb = hooks->cbs->target;
  /* No target task data: the nowait forms run synchronously, in the
   * target task clang made, which is then the encountering task. */
  if (emi) {
    ompt_data_t *data = endpoint == ompt_scope_begin ? &c->target_data : mockrt_tgt_target_data(c);
    emi(c->kind, endpoint, dev->num, task, NULL, data, c->codeptr);
  } else if (cb) {
    cb(c->kind, endpoint, dev->num, task, c->target_id, c->codeptr);
  }
}

static void mockrt_tgt_construct_begin(mockrt_tgt_construct_t *c, mockrt_tgt_device_t *dev,
                                       ompt_target_t kind, int wait_state, const void *codeptr)
{
  c->dev = dev;
  c->kind = kind;
  c->codeptr = codeptr;
  c->wait_state = wait_state;
  c->target_id = mockrt_tgt_unique_id();
  c->nprivates = 0;
  c->mapped = 0;
  c->target_data = (ompt_data_t){.value = 0};
  mockrt_tgt_target_info(dev->num, c->target_id, 0);
  mockrt_tgt_announce(c, ompt_scope_begin);
}

static void mockrt_tgt_construct_end(mockrt_tgt_construct_t *c)
{
  mockrt_tgt_announce(c, ompt_scope_end);
  mockrt_tgt_target_info(c->dev->num, 0, 0);
}

int mockrt_tgt_data_construct(int64_t device_id, ompt_target_t kind, const mockrt_tgt_maps_t *maps,
                              const void *codeptr)
{
  int wait_state =
      kind == ompt_target_update ? ompt_state_wait_target_update : ompt_state_wait_target_map;
  int old = mockrt_tgt_wait_in(wait_state);
  mockrt_tgt_device_t *dev = mockrt_tgt_device_acquire(device_id);
  if (!dev) {
    /* No device: the data stays where it is, the host's. */
    mockrt_tgt_state_leave(old);
    return MOCKRT_TGT_SUCCESS;
  }
  mockrt_tgt_construct_t c;
  mockrt_tgt_construct_begin(&c, dev, kind, wait_state, codeptr);
  int rc;
  if (kind == ompt_target_enter_data) {
    rc = mockrt_tgt_map_begin(&c, maps, NULL, NULL);
    if (rc != MOCKRT_TGT_SUCCESS)
      mockrt_tgt_map_undo(&c, maps);
  } else if (kind == ompt_target_exit_data)
    rc = mockrt_tgt_map_end(&c, maps);
  else
    rc = mockrt_tgt_map_update(&c, maps);
  mockrt_tgt_construct_end(&c);
  mockrt_tgt_device_release(dev);
  mockrt_tgt_state_leave(old);
  return rc;
}

/* The kernel: target_submit, then the device runs it. */
static void mockrt_tgt_launch(mockrt_tgt_construct_t *c, void *fn, void **args, int nargs,
                              int32_t num_teams, uint64_t tripcount)
{
  mockrt_tgt_device_t *dev = c->dev;
  mockrt_tgt_op_t op = {.kind = MOCKRT_OP_KERNEL,
                        .target_id = c->target_id,
                        .host_op_id = mockrt_tgt_unique_id(),
                        .codeptr = c->codeptr,
                        .fn = fn,
                        .argc = nargs,
                        .argv = args,
                        .tripcount = tripcount,
                        .requested_teams = num_teams > 0 ? (unsigned)num_teams : 0};
  mockrt_tgt_target_info(dev->num, c->target_id, op.host_op_id);
  mockrt_tgt_wait_in(ompt_state_wait_target);
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_target_submit_emi_t emi = cbs ? cbs->target_submit_emi : NULL;
  ompt_callback_target_submit_t cb = cbs ? cbs->target_submit : NULL;
  ompt_id_t tool_op_id = op.host_op_id;
  if (emi) {
    emi(ompt_scope_begin, mockrt_tgt_target_data(c), &tool_op_id, op.requested_teams);
    op.host_op_id = mockrt_tgt_host_op_id(op.host_op_id, tool_op_id);
    mockrt_tgt_target_info(dev->num, c->target_id, op.host_op_id);
  } else if (cb) {
    cb(c->target_id, op.host_op_id, op.requested_teams);
  }
  mockrt_tgt_device_run(dev, &op);
  if (emi)
    emi(ompt_scope_end, mockrt_tgt_target_data(c), &tool_op_id, op.requested_teams);
  mockrt_tgt_wait_in(ompt_state_wait_target_map);
  mockrt_tgt_target_info(dev->num, c->target_id, 0);
}

/* A region the device cannot run: the host runs it, unless it must not. */
static int mockrt_tgt_refused(void)
{
  if (mockrt_tgt_settings.mandatory) {
    fprintf(stderr, "mockrt target: OMP_TARGET_OFFLOAD=mandatory and the region cannot run on a "
                    "device\n");
    exit(1);
  }
  return MOCKRT_TGT_FAIL;
}

int mockrt_tgt_target_construct(int64_t device_id, const void *region_id,
                                const mockrt_tgt_maps_t *maps, int32_t num_teams,
                                const void *codeptr)
{
  uint64_t tripcount = mockrt_tgt_pending_tripcount;
  mockrt_tgt_pending_tripcount = 0;
  int old = mockrt_tgt_wait_in(ompt_state_wait_target_map);
  mockrt_tgt_device_t *dev = mockrt_tgt_device_acquire(device_id);
  void *fn = dev ? mockrt_tgt_image_kernel(dev, region_id) : NULL;
  if (!fn) {
    if (dev)
      mockrt_tgt_device_release(dev);
    mockrt_tgt_state_leave(old);
    return mockrt_tgt_refused();
  }
  mockrt_tgt_construct_t c;
  mockrt_tgt_construct_begin(&c, dev, ompt_target, ompt_state_wait_target_map, codeptr);
  void *args[MOCKRT_TGT_MAX_ARGS];
  int nargs = 0;
  int rc = mockrt_tgt_map_begin(&c, maps, args, &nargs);
  if (rc == MOCKRT_TGT_SUCCESS) {
    mockrt_tgt_launch(&c, fn, args, nargs, num_teams, tripcount);
    mockrt_tgt_map_free_privates(&c);
    rc = mockrt_tgt_map_end(&c, maps);
  } else {
    mockrt_tgt_map_undo(&c, maps);
  }
  mockrt_tgt_construct_end(&c);
  mockrt_tgt_device_release(dev);
  mockrt_tgt_state_leave(old);
  return rc == MOCKRT_TGT_SUCCESS ? rc : mockrt_tgt_refused();
}
