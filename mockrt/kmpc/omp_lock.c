/*
 * The omp_*_lock API with LLVM's layouts: omp_lock_t and omp_nest_lock_t
 * are each one pointer.  A simple lock's lock word fits in that pointer's
 * storage, so it needs no allocation; a nest lock needs an owner and a
 * count as well, so the pointer names a small allocation made by init and
 * freed by destroy.  As in libomp 14, no entry point sets an enter frame:
 * a tool sees the lock's frames as the task's own.
 */
#include "kmpc.h"

#include <stdlib.h>

typedef struct mockrt_kmpc_nest_lock {
  atomic_int lock;
  int count;
  void *owner; /* the task that holds it */
} mockrt_kmpc_nest_lock_t;

/* omp_nest_lock_t as clang's omp.h declares it. */
typedef struct mockrt_kmpc_nest_handle {
  mockrt_kmpc_nest_lock_t *lk;
} mockrt_kmpc_nest_handle_t;

_Static_assert(sizeof(atomic_int) <= sizeof(void *), "a lock word fits in LLVM's omp_lock_t");

#define MOCKRT_ID(p) ((ompt_wait_id_t)(uintptr_t)(p))

MOCKRT_EXPORT void omp_init_lock(void **l)
{
  *l = NULL;
  atomic_init(mockrt_kmpc_word(l), 0);
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(l),
                          __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_init_lock_with_hint(void **l, int hint)
{
  (void)hint;
  *l = NULL;
  atomic_init(mockrt_kmpc_word(l), 0);
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_lock, (unsigned)hint, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(l),
                          __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_destroy_lock(void **l)
{
  if (mockrt_ompt.lock_destroy)
    mockrt_ompt.lock_destroy(ompt_mutex_lock, MOCKRT_ID(l), __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_set_lock(void **l)
{
  mockrt_mutex_acquire(mockrt_kmpc_word(l), ompt_mutex_lock, ompt_state_wait_lock,
                       __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_unset_lock(void **l)
{
  mockrt_mutex_release(mockrt_kmpc_word(l), ompt_mutex_lock, __builtin_return_address(0));
}

MOCKRT_EXPORT int omp_test_lock(void **l)
{
  /* libomp 14 names a test's events as a set's (ompt_mutex_lock). */
  int got = mockrt_mutex_try(mockrt_kmpc_word(l), ompt_mutex_lock, __builtin_return_address(0));
  return got;
}

static void mockrt_kmpc_nest_init(mockrt_kmpc_nest_handle_t *h, unsigned hint, const void *ra)
{
  mockrt_kmpc_nest_lock_t *l = calloc(1, sizeof *l);
  if (!l)
    abort();
  atomic_init(&l->lock, 0);
  h->lk = l;
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_nest_lock, hint, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(h), ra);
}

MOCKRT_EXPORT void omp_init_nest_lock(mockrt_kmpc_nest_handle_t *h)
{
  mockrt_kmpc_nest_init(h, 0, __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_init_nest_lock_with_hint(mockrt_kmpc_nest_handle_t *h, int hint)
{
  mockrt_kmpc_nest_init(h, (unsigned)hint, __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_destroy_nest_lock(mockrt_kmpc_nest_handle_t *h)
{
  if (mockrt_ompt.lock_destroy)
    mockrt_ompt.lock_destroy(ompt_mutex_nest_lock, MOCKRT_ID(h), __builtin_return_address(0));
  free(h->lk);
  h->lk = NULL;
}

/*
 * The wait id of a nest lock is the program's handle, as for simple locks;
 * its lock word is in the allocation.  Only the owning task touches count
 * and owner while it holds the lock, so reading owner unlocked is safe
 * (atomically, so that the model agrees: no other task can make it equal).
 */
static void mockrt_kmpc_nest_acquire(mockrt_kmpc_nest_handle_t *h, mockrt_kmpc_nest_lock_t *l,
                                     const void *ra)
{
  mockrt_thread_t *self = mockrt_self();
  int prev = self->state;
  mockrt_set_wait(self, ompt_state_wait_lock, h);
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_nest_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(h), ra);
  mockrt_word_lock(&l->lock);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_nest_lock, MOCKRT_ID(h), ra);
}

MOCKRT_EXPORT void omp_set_nest_lock(mockrt_kmpc_nest_handle_t *h)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_kmpc_nest_lock_t *l = h->lk;
  const void *ra = __builtin_return_address(0);
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
    /* libomp 14 announces every set, a re-acquisition by the owner too. */
    if (mockrt_ompt.mutex_acquire)
      mockrt_ompt.mutex_acquire(ompt_mutex_nest_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(h),
                                ra);
    l->count++;
    if (mockrt_ompt.nest_lock)
      mockrt_ompt.nest_lock(ompt_scope_begin, MOCKRT_ID(h), ra);
  } else {
    mockrt_kmpc_nest_acquire(h, l, ra);
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    l->count = 1;
  }
}

MOCKRT_EXPORT void omp_unset_nest_lock(mockrt_kmpc_nest_handle_t *h)
{
  mockrt_kmpc_nest_lock_t *l = h->lk;
  const void *ra = __builtin_return_address(0);
  if (--l->count == 0) {
    __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
    mockrt_word_unlock(&l->lock);
    if (mockrt_ompt.mutex_released)
      mockrt_ompt.mutex_released(ompt_mutex_nest_lock, MOCKRT_ID(h), ra);
  } else if (mockrt_ompt.nest_lock) {
    mockrt_ompt.nest_lock(ompt_scope_end, MOCKRT_ID(h), ra);
  }
}

/*
 * As libomp 14: every test is announced (mutex_acquire, kind nest_lock, as
 * a set's), then a first acquisition is mutex_acquired and the owner's
 * re-acquisition nest_lock begin; a failed test sends nothing more.
 */
MOCKRT_EXPORT int omp_test_nest_lock(mockrt_kmpc_nest_handle_t *h)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_kmpc_nest_lock_t *l = h->lk;
  const void *ra = __builtin_return_address(0);
  int count = 0;
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_nest_lock, 0, MOCKRT_MUTEX_IMPL_QUEUING, MOCKRT_ID(h), ra);
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
    count = ++l->count;
    if (mockrt_ompt.nest_lock)
      mockrt_ompt.nest_lock(ompt_scope_begin, MOCKRT_ID(h), ra);
  } else if (mockrt_word_trylock(&l->lock)) {
    __atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
    count = l->count = 1;
    if (mockrt_ompt.mutex_acquired)
      mockrt_ompt.mutex_acquired(ompt_mutex_nest_lock, MOCKRT_ID(h), ra);
  }
  return count;
}
