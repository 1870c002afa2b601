/*
 * The omp_*_lock API with gcc's layouts: omp_lock_t is one 4-byte lock
 * word; omp_nest_lock_t is { int lock; int count; void *owner }.  The owner
 * of a nest lock is the task that holds it (OpenMP 3.0 semantics).  Each
 * entry point publishes its own CFA as the enter frame while it may block.
 */
#include "gomp.h"

typedef struct mockrt_gomp_nest_lock {
  atomic_int lock;
  int count;
  void *owner;
} mockrt_gomp_nest_lock_t;

_Static_assert(sizeof(mockrt_gomp_nest_lock_t) == 8 + sizeof(void *), "gcc's omp_nest_lock_t");

#define MOCKRT_ID(p) ((ompt_wait_id_t)(uintptr_t)(p))

MOCKRT_EXPORT void omp_init_lock(atomic_int *l)
{
  atomic_init(l, 0);
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(l),
                          __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_destroy_lock(atomic_int *l)
{
  if (mockrt_ompt.lock_destroy)
    mockrt_ompt.lock_destroy(ompt_mutex_lock, MOCKRT_ID(l), __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_set_lock(atomic_int *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_acquire(l, ompt_mutex_lock, ompt_state_wait_lock, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void omp_unset_lock(atomic_int *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  mockrt_mutex_release(l, ompt_mutex_lock, __builtin_return_address(0));
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT int omp_test_lock(atomic_int *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  int got = mockrt_mutex_try(l, ompt_mutex_test_lock, __builtin_return_address(0));
  mockrt_frame_leave(t);
  return got;
}

MOCKRT_EXPORT void omp_init_nest_lock(mockrt_gomp_nest_lock_t *l)
{
  atomic_init(&l->lock, 0);
  l->count = 0;
  __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_nest_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(l),
                          __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_destroy_nest_lock(mockrt_gomp_nest_lock_t *l)
{
  if (mockrt_ompt.lock_destroy)
    mockrt_ompt.lock_destroy(ompt_mutex_nest_lock, MOCKRT_ID(l), __builtin_return_address(0));
}

/*
 * Only the owning task touches count and owner while it holds the lock, so
 * reading owner without the lock is safe: no other task can make it equal
 * to the caller.
 */
MOCKRT_EXPORT void omp_set_nest_lock(mockrt_gomp_nest_lock_t *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  const void *ra = __builtin_return_address(0);
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
    l->count++;
    if (mockrt_ompt.nest_lock)
      mockrt_ompt.nest_lock(ompt_scope_begin, MOCKRT_ID(l), ra);
  } else {
    mockrt_mutex_acquire(&l->lock, ompt_mutex_nest_lock, ompt_state_wait_lock, ra);
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    l->count = 1;
  }
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void omp_unset_nest_lock(mockrt_gomp_nest_lock_t *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  const void *ra = __builtin_return_address(0);
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  if (--l->count == 0) {
    __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
    mockrt_mutex_release(&l->lock, ompt_mutex_nest_lock, ra);
  } else if (mockrt_ompt.nest_lock) {
    mockrt_ompt.nest_lock(ompt_scope_end, MOCKRT_ID(l), ra);
  }
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT int omp_test_nest_lock(mockrt_gomp_nest_lock_t *l)
{
  mockrt_task_t *t = mockrt_cur_task();
  const void *ra = __builtin_return_address(0);
  int count = 0;
  mockrt_frame_enter(t, __builtin_dwarf_cfa());
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
    count = ++l->count;
    if (mockrt_ompt.nest_lock)
      mockrt_ompt.nest_lock(ompt_scope_begin, MOCKRT_ID(l), ra);
  } else if (mockrt_mutex_try(&l->lock, ompt_mutex_test_nest_lock, ra)) {
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    count = l->count = 1;
  }
  mockrt_frame_leave(t);
  return count;
}
