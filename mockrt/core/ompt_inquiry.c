/*
 * OMPT inquiry functions.  A profiler calls these from a signal handler at
 * any instruction, so they read only the calling thread's TLS and the task
 * chain it points to (never freed while reachable), take no locks and never
 * allocate.
 */
#include "mockrt.h"
#include "fault.h"
#include "task.h"

static mockrt_thread_t *mockrt_known_self(void)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  return self->kind ? self : NULL;
}

int mockrt_ompt_get_state(ompt_wait_id_t *wait_id)
{
  mockrt_thread_t *self = mockrt_known_self();
  if (!self)
    return ompt_state_undefined;
  int state = self->state;
  atomic_signal_fence(memory_order_seq_cst);
  if (wait_id)
    *wait_id = (state & 0xf0) == 0x40 || (state & 0xf0) == 0x10 ? self->wait_id : 0;
  return state;
}

static mockrt_task_t *mockrt_task_at(int level)
{
  mockrt_thread_t *self = mockrt_known_self();
  if (!self || level < 0)
    return NULL;
  if (mockrt_fault(MOCKRT_FAULT_TASK_INFO_LEVEL_WRONG) ||
      (mockrt_fault(MOCKRT_FAULT_ANCESTOR_LEVEL_WRONG) && level > 1))
    level++;
  mockrt_task_t *t = self->task;
  while (t && level-- > 0)
    t = t->parent;
  return t;
}

int mockrt_ompt_get_task_info(int level, int *flags, ompt_data_t **task_data, ompt_frame_t **frame,
                              ompt_data_t **parallel_data, int *thread_num)
{
  mockrt_task_t *t = mockrt_task_at(level);
  if (!t)
    return 0;
  if (flags)
    *flags = t->flags;
  if (task_data)
    *task_data = &t->task_data;
  if (frame)
    *frame = &t->frame;
  if (parallel_data)
    *parallel_data = &t->team->parallel_data;
  if (thread_num)
    *thread_num = t->thread_num;
  return 2;
}

/*
 * The current explicit task's data environment, as one block (block 0
 * only): the personality's copy of the task's arguments and privates,
 * allocated with the task.  As libomp 14: nothing for implicit tasks.
 */
int mockrt_ompt_get_task_memory(void **addr, size_t *size, int block)
{
  mockrt_thread_t *self = mockrt_known_self();
  mockrt_task_t *t = self ? self->task : NULL;
  if (!t || block != 0 || !(t->flags & ompt_task_explicit))
    return 0;
  mockrt_xtask_t *x = (mockrt_xtask_t *)t;
  if (x->data_size == 0)
    return 0;
  if (addr)
    *addr = mockrt_task_data(x);
  if (size)
    *size = x->data_size - mockrt_fault(MOCKRT_FAULT_TASK_MEMORY_WRONG);
  return 1;
}

/* The implicit (or initial) task t is in, skipping explicit tasks. */
static mockrt_task_t *mockrt_implicit_of(mockrt_task_t *t)
{
  while (t && (t->flags & ompt_task_explicit))
    t = t->parent;
  return t;
}

/*
 * Parallel levels count regions, not tasks: each level out is the implicit
 * task that encountered the region, past any explicit tasks in between.
 */
int mockrt_ompt_get_parallel_info(int level, ompt_data_t **parallel_data, int *team_size)
{
  mockrt_thread_t *self = mockrt_known_self();
  if (!self || level < 0)
    return 0;
  if (mockrt_fault(MOCKRT_FAULT_TASK_INFO_LEVEL_WRONG) ||
      (mockrt_fault(MOCKRT_FAULT_ANCESTOR_LEVEL_WRONG) && level > 0))
    level++;
  mockrt_task_t *t = mockrt_implicit_of(self->task);
  while (t && level-- > 0)
    t = mockrt_implicit_of(t->parent);
  if (!t)
    return 0;
  if (parallel_data)
    *parallel_data = &t->team->parallel_data;
  if (team_size)
    *team_size = (int)t->team->nthreads;
  return 2;
}

ompt_data_t *mockrt_ompt_get_thread_data(void)
{
  mockrt_thread_t *self = mockrt_known_self();
  return self ? &self->thread_data : NULL;
}

int mockrt_ompt_enumerate_states(int current, int *next, const char **name)
{
  static const struct {
    int state;
    const char *name;
  } states[] = {
#define MOCKRT_STATE(s, v) {v, #s},
      FOREACH_OMPT_STATE(MOCKRT_STATE)
#undef MOCKRT_STATE
  };
  const int n = (int)(sizeof states / sizeof states[0]);
  int i = 0;
  /* The enumeration starts from ompt_state_undefined, the first entry. */
  if (current != ompt_state_undefined) {
    while (i < n && states[i].state != current)
      i++;
    i++;
  } else {
    i = 1;
  }
  if (i >= n)
    return 0;
  *next = states[i].state;
  *name = states[i].name;
  return 1;
}
