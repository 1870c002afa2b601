/* Target constructs on the host: their launching contexts, and the bytes
 * the host callbacks report; see device.h. */
#include "ompt/device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/session.h"
#include "core/thread.h"
#include "ompt/missed_samples.h"
#include "ompt/ompt_state.h"
#include "ompt/path_tree.h"
#include "unwind/loadmap.h"

/* The table of launching contexts. A lock rather than a lock-free table:
 * it is taken once per target construct and once per trace record, both
 * far from hot, never by a signal handler, and a slot holds two words
 * that must change together. */
typedef struct target_slot {
  uint64_t target_id; /* 0: free (ompt_id_none) */
  knit_target_origin origin;
} target_slot;

static target_slot targets[KNIT_TARGET_SLOTS];
static pthread_mutex_t targets_lock = PTHREAD_MUTEX_INITIALIZER;

/* Device operations no launching context was found for. */
static _Atomic uint64_t unattributed;

static uint32_t slot_of(uint64_t target_id)
{
  /* Fibonacci hashing: runtimes hand out ids in sequence, or with a
   * device's number in the high bits; both spread over the slots. */
  return (uint32_t)((target_id * 0x9E3779B97F4A7C15ull) >> 52) % KNIT_TARGET_SLOTS;
}

/* Files target_id's launching context. */
static void file_target(uint64_t target_id, const knit_target_origin *origin)
{
  if (target_id == ompt_id_none)
    return;
  target_slot *s = &targets[slot_of(target_id)];
  pthread_mutex_lock(&targets_lock);
  s->target_id = target_id;
  s->origin = *origin;
  pthread_mutex_unlock(&targets_lock);
}

/* The slot filed for target_id, or NULL; with the lock held. */
static target_slot *slot_for(uint64_t target_id)
{
  target_slot *s = &targets[slot_of(target_id)];
  if (target_id == ompt_id_none || s->target_id != target_id || s->origin.construct == NULL)
    return NULL;
  return s;
}

void knit_device_forget_thread(struct knit_thread *t)
{
  pthread_mutex_lock(&targets_lock);
  for (uint32_t i = 0; i < KNIT_TARGET_SLOTS; i++)
    if (targets[i].origin.thread == t)
      targets[i] = (target_slot){0};
  pthread_mutex_unlock(&targets_lock);
}

void knit_device_charge(uint64_t target_id, const knit_device_amount *amounts, int n)
{
  /* Under the lock, so that the construct cannot be forgotten, and its
   * thread's state given to another, between the look-up and the add. */
  pthread_mutex_lock(&targets_lock);
  const target_slot *s = slot_for(target_id);
  bool charged = s && !atomic_load(&s->origin.thread->written);
  for (int i = 0; charged && i < n; i++) {
    int metric = amounts[i].metric;
    if (KNIT_METRIC_IS_DEVICE(metric) && metric < KNIT_METRIC_COUNT && amounts[i].value != 0)
      atomic_fetch_add_explicit(&s->origin.construct->metrics[metric - KNIT_METRIC_HOST_COUNT],
                                amounts[i].value, memory_order_relaxed);
  }
  pthread_mutex_unlock(&targets_lock);
  if (!charged)
    atomic_fetch_add_explicit(&unattributed, 1, memory_order_relaxed);
}

bool knit_device_origin(uint64_t target_id, uint32_t *thread_index, uint32_t *node)
{
  pthread_mutex_lock(&targets_lock);
  const target_slot *s = slot_for(target_id);
  bool known = s && !atomic_load(&s->origin.thread->written);
  if (known) {
    *thread_index = s->origin.thread->index;
    *node = s->origin.construct->node;
  }
  pthread_mutex_unlock(&targets_lock);
  return known;
}

uint64_t knit_device_unattributed(void)
{
  return atomic_load_explicit(&unattributed, memory_order_relaxed);
}

/* The device metrics of node id of t's tree, made at its first construct
 * there; NULL when the thread's table is full or its arena empty. The
 * thread itself, with its handler held off. */
static knit_device_node *construct_of(knit_thread *t, uint32_t id)
{
  knit_device_nodes *d = t->device_nodes;
  if (!d)
    d = t->device_nodes = knit_arena_alloc(&t->arena, sizeof *d, 64);
  if (!d)
    return NULL;
  uint32_t n = atomic_load_explicit(&d->count, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++)
    if (d->at[i].node == id)
      return &d->at[i];
  if (n == KNIT_DEVICE_NODES)
    return NULL;
  d->at[n].node = id;
  atomic_store_explicit(&d->count, n + 1, memory_order_release);
  return &d->at[n];
}

/* The node of the calling thread's tree for the construct at codeptr_ra:
 * the call path of the encountering task down to the program's call into
 * the offloading library, then a <omp-target> placeholder that the report
 * names `target at FILE:LINE` by that call's line. The library is not the
 * OpenMP runtime, whose frames a capture cuts: its frames inward of the
 * call are cut here, by the call's return address. */
static knit_device_node *construct_node(knit_thread *t, const void *codeptr_ra)
{
  int task_flags = 0, thread_num = 0;
  ompt_data_t *task_data = NULL, *region = NULL;
  ompt_frame_t *tf = NULL, here = {0};
  const knit_call_path *outer = NULL;
  if (knit_ompt_runtime.get_task_info(0, &task_flags, &task_data, &tf, &region, &thread_num) == 2) {
    outer = knit_task_prefix(task_flags, task_data, region, tf);
    if (tf)
      here = *tf;
  }
  /* The offloading library sets no enter frame; one the runtime kept from
   * an earlier call names no live frame, and the capture cuts by module. */
  const void *sp = __builtin_frame_address(0);
  if (!knit_ompt_frame_is_live(here.enter_frame.ptr, sp))
    here.enter_frame.ptr = NULL;
  if (!knit_ompt_frame_is_live(here.exit_frame.ptr, sp))
    here.exit_frame.ptr = NULL;
  const knit_call_path *p = knit_capture_call_path(&here, outer, codeptr_ra);
  if (!p || !knit_thread_claim(t))
    return NULL;
  knit_path_frame *path = t->capture_path;
  uint32_t len = knit_path_copy(p, path, KNIT_CAPTURE_FRAMES * 2 - 1);
  const knit_module *m = knit_loadmap_find(knit_loadmap_current(), (uint64_t)(uintptr_t)codeptr_ra);
  if (m) {
    uint64_t offset = (uint64_t)(uintptr_t)codeptr_ra - m->base;
    for (uint32_t i = len; i > 0; i--) {
      if (path[i - 1].module == m->id && path[i - 1].offset == offset) {
        len = i;
        break;
      }
    }
  }
  /* The construct itself, under that call: its samples waiting for the
   * device go there too (ompt/attribution.c). */
  path[len++] = (knit_path_frame){.module = KNIT_MODULE_PLACEHOLDER,
                                  .offset = KNIT_PH_OMP_TARGET,
                                  .kind = KNIT_NODE_PLACEHOLDER};
  knit_cct_node *node = knit_thread_path_node(t, path, (int)len);
  knit_device_node *construct = node ? construct_of(t, t->path_leaf) : NULL;
  knit_thread_give_back(t);
  return construct;
}

/* A construct's begin: its node made, and filed under its target id for
 * the trace records; the node, or NULL. */
static knit_device_node *target_begins(int device_num, ompt_id_t target_id, const void *codeptr_ra)
{
  knit_device_seen(device_num);
  knit_thread *t = knit_thread_self();
  if (!t || !t->cct_ready || !knit_ompt_runtime.get_task_info)
    return NULL;
  knit_target_origin o = {.thread = t, .construct = construct_node(t, codeptr_ra)};
  if (o.construct)
    file_target(target_id, &o);
  knit_take_missed(t);
  return o.construct;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_id_t target_id, const void *codeptr_ra)
{
  (void)kind;
  (void)task_data;
  if (endpoint == ompt_scope_begin)
    target_begins(device_num, target_id, codeptr_ra);
}

/* OpenMP 5.1's form passes no target id: the trace records still name the
 * runtime's, which ompt_get_target_info answers inside the construct. The
 * node itself rides in target_data, so that the host's own callbacks of
 * the construct need no look-up. */
static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra)
{
  (void)kind;
  (void)task_data;
  (void)target_task_data;
  if (!target_data)
    return;
  if (endpoint != ompt_scope_begin) {
    target_data->ptr = NULL;
    return;
  }
  uint64_t info_device = 0;
  ompt_id_t target_id = ompt_id_none, host_op_id = ompt_id_none;
  if (knit_ompt_runtime.get_target_info &&
      !knit_ompt_runtime.get_target_info(&info_device, &target_id, &host_op_id))
    target_id = ompt_id_none;
  target_data->ptr = target_begins(device_num, target_id, codeptr_ra);
}

/* The device a data operation works on: the destination of what goes to
 * it (and of an allocation), the source of the rest. */
static int device_of(ompt_target_data_op_t optype, int src_device_num, int dest_device_num)
{
  switch (optype & 0xf) {
  case ompt_target_data_alloc:
  case ompt_target_data_transfer_to_device:
  case ompt_target_data_associate: return dest_device_num;
  default: return src_device_num;
  }
}

/* Without device tracing the bytes are all a runtime says: the metric a
 * host callback's operation adds to, or -1 for none (a traced device's
 * records count instead, so that nothing is counted twice). */
static int untraced_metric(ompt_target_data_op_t optype, int src_device_num, int dest_device_num)
{
  if (knit_device_traced(device_of(optype, src_device_num, dest_device_num)))
    return -1;
  switch (optype & 0xf) {
  case ompt_target_data_alloc: return KNIT_METRIC_DEVICE_ALLOC_BYTES;
  case ompt_target_data_transfer_to_device: return KNIT_METRIC_DEVICE_H2D_BYTES;
  case ompt_target_data_transfer_from_device: return KNIT_METRIC_DEVICE_D2H_BYTES;
  default: return -1;
  }
}

static void on_target_data_op(ompt_id_t target_id, ompt_id_t host_op_id,
                              ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                              void *dest_addr, int dest_device_num, size_t bytes,
                              const void *codeptr_ra)
{
  (void)host_op_id;
  (void)src_addr;
  (void)dest_addr;
  (void)codeptr_ra;
  int metric = untraced_metric(optype, src_device_num, dest_device_num);
  if (metric >= 0)
    knit_device_charge(target_id, &(knit_device_amount){metric, bytes}, 1);
}

/* Charged once, at the operation's begin, to the node target_data carries:
 * the callback comes on the thread that began the construct (which made
 * the node in its own tree) while the construct runs. Not once that
 * thread's file is written, as knit_device_charge. */
static void on_target_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                  ompt_data_t *target_data, ompt_id_t *host_op_id,
                                  ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                                  void *dest_addr, int dest_device_num, size_t bytes,
                                  const void *codeptr_ra)
{
  (void)target_task_data;
  (void)host_op_id;
  (void)src_addr;
  (void)dest_addr;
  (void)codeptr_ra;
  if (endpoint != ompt_scope_begin)
    return;
  int metric = untraced_metric(optype, src_device_num, dest_device_num);
  if (metric < 0)
    return;
  knit_device_node *construct = target_data ? target_data->ptr : NULL;
  knit_thread *t = knit_thread_self();
  if (!t || atomic_load(&t->written))
    construct = NULL;
  if (construct && bytes != 0)
    atomic_fetch_add_explicit(&construct->metrics[metric - KNIT_METRIC_HOST_COUNT], bytes,
                              memory_order_relaxed);
  else if (!construct)
    atomic_fetch_add_explicit(&unattributed, 1, memory_order_relaxed);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
  knit_device_initialize(device_num, type, device, lookup, documentation);
}

static void on_device_finalize(int device_num)
{
  knit_device_finalize(device_num);
}

void knit_device_register(ompt_set_callback_t set_callback)
{
  /* OpenMP 5.1's forms first: a runtime that has them may have dropped the
   * 5.0 ones (and dispatches only the _emi form when a tool has both). The
   * two forms are not mixed: the _emi data operations find their construct
   * in the target_data that on_target_emi filled. */
  ompt_set_result_t target = set_callback(ompt_callback_target_emi, (ompt_callback_t)on_target_emi);
  bool emi = target != ompt_set_never && target != ompt_set_error;
  if (emi)
    set_callback(ompt_callback_target_data_op_emi, (ompt_callback_t)on_target_data_op_emi);
  else {
    target = set_callback(ompt_callback_target, (ompt_callback_t)on_target);
    set_callback(ompt_callback_target_data_op, (ompt_callback_t)on_target_data_op);
  }
  if (emi && !knit_ompt_runtime.get_target_info)
    knit_log_line("ompt: _emi target callbacks without ompt_get_target_info; device trace "
                  "records are not attributed");
  else if (emi)
    knit_log_line("ompt: target callbacks: OpenMP 5.1's _emi forms");
  else if (target != ompt_set_never && target != ompt_set_error)
    knit_log_line("ompt: target callbacks: OpenMP 5.0's forms");
  ompt_set_result_t init =
      set_callback(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
  set_callback(ompt_callback_device_finalize, (ompt_callback_t)on_device_finalize);
  set_callback(ompt_callback_device_load, (ompt_callback_t)knit_device_load);
  /* libomp 14 has none of them (ompt_set_never): a program that offloads
   * runs unattributed on the device side, and the log says so once. */
  if (target == ompt_set_never || init == ompt_set_never)
    knit_log_line("ompt: no target or device_initialize callbacks; target devices are not "
                  "followed");
}
