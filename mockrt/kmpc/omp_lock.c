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
  int impl;    /* the implementation libomp 14 would choose (mockrt_kmpc_lock_impl) */
} mockrt_kmpc_nest_lock_t;

/* A simple lock in omp_lock_t's storage: the lock word and the implementation. */
typedef struct mockrt_kmpc_simple_lock {
  atomic_int word;
  int impl;
} mockrt_kmpc_simple_lock_t;

/* omp_nest_lock_t as clang's omp.h declares it. */
typedef struct mockrt_kmpc_nest_handle {
  mockrt_kmpc_nest_lock_t *lk;
} mockrt_kmpc_nest_handle_t;

_Static_assert(sizeof(mockrt_kmpc_simple_lock_t) <= sizeof(void *),
               "a lock word and its implementation fit in LLVM's omp_lock_t");

#define MOCKRT_ID(p) ((ompt_wait_id_t)(uintptr_t)(p))

/* The synchronization hints (omp.h's omp_sync_hint_t). */
enum {
  MOCKRT_HINT_UNCONTENDED = 1,
  MOCKRT_HINT_CONTENDED = 2,
  MOCKRT_HINT_NONSPECULATIVE = 4,
  MOCKRT_HINT_SPECULATIVE = 8,
};

/*
 * The implementation libomp 14 picks for a lock with a hint, as its mutex
 * events name it: a test-and-set lock (kmp_mutex_impl_spin) for an
 * uncontended lock without speculation, its default queuing lock for
 * every other hint and for none.  Speculation is no choice here: it needs
 * transactional memory, which libomp looks for and the mock has not, and
 * without it libomp takes its default lock too.
 */
static int mockrt_kmpc_lock_impl(unsigned hint)
{
  if ((hint & MOCKRT_HINT_CONTENDED) && (hint & MOCKRT_HINT_UNCONTENDED))
    return MOCKRT_MUTEX_IMPL_QUEUING;
  if ((hint & MOCKRT_HINT_SPECULATIVE) && (hint & MOCKRT_HINT_NONSPECULATIVE))
    return MOCKRT_MUTEX_IMPL_QUEUING;
  if (hint & MOCKRT_HINT_CONTENDED)
    return MOCKRT_MUTEX_IMPL_QUEUING;
  if ((hint & MOCKRT_HINT_UNCONTENDED) && !(hint & MOCKRT_HINT_SPECULATIVE))
    return MOCKRT_MUTEX_IMPL_SPIN;
  return MOCKRT_MUTEX_IMPL_QUEUING;
}

static mockrt_kmpc_simple_lock_t *mockrt_kmpc_simple(void **l)
{
  return (mockrt_kmpc_simple_lock_t *)l;
}

static void mockrt_kmpc_simple_init(void **l, unsigned hint, const void *ra)
{
  mockrt_kmpc_simple_lock_t *s = mockrt_kmpc_simple(l);
  *l = NULL;
  atomic_init(&s->word, 0);
  s->impl = mockrt_kmpc_lock_impl(hint);
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_lock, hint, (unsigned)s->impl, MOCKRT_ID(l), ra);
}

/*
 * A simple lock of another implementation than the core's (queuing): the
 * same steps as mockrt_mutex_acquire and mockrt_mutex_try, with its own
 * implementation in the events.
 */
static void mockrt_kmpc_simple_acquire(mockrt_kmpc_simple_lock_t *s, const void *ra)
{
  mockrt_thread_t *self = mockrt_self();
  int prev = self->state;
  mockrt_set_wait(self, ompt_state_wait_lock, s);
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_lock, 0, (unsigned)s->impl, MOCKRT_ID(s), ra);
  mockrt_word_lock(&s->word);
  mockrt_set_state(self, prev);
  if (mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_lock, MOCKRT_ID(s), ra);
}

static bool mockrt_kmpc_simple_try(mockrt_kmpc_simple_lock_t *s, const void *ra)
{
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_lock, 0, (unsigned)s->impl, MOCKRT_ID(s), ra);
  bool got = mockrt_word_trylock(&s->word);
  if (got && mockrt_ompt.mutex_acquired)
    mockrt_ompt.mutex_acquired(ompt_mutex_lock, MOCKRT_ID(s), ra);
  return got;
}

MOCKRT_EXPORT void omp_init_lock(void **l)
{
  mockrt_kmpc_simple_init(l, 0, __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_init_lock_with_hint(void **l, int hint)
{
  mockrt_kmpc_simple_init(l, (unsigned)hint, __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_destroy_lock(void **l)
{
  if (mockrt_ompt.lock_destroy)
    mockrt_ompt.lock_destroy(ompt_mutex_lock, MOCKRT_ID(l), __builtin_return_address(0));
}

MOCKRT_EXPORT void omp_set_lock(void **l)
{
  if (mockrt_kmpc_simple(l)->impl == MOCKRT_MUTEX_IMPL_SPIN)
    mockrt_kmpc_simple_acquire(mockrt_kmpc_simple(l), __builtin_return_address(0));
  else
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
  int got =
      mockrt_kmpc_simple(l)->impl == MOCKRT_MUTEX_IMPL_SPIN
          ? mockrt_kmpc_simple_try(mockrt_kmpc_simple(l), __builtin_return_address(0))
          : mockrt_mutex_try(mockrt_kmpc_word(l), ompt_mutex_lock, __builtin_return_address(0));
  return got;
}

static void mockrt_kmpc_nest_init(mockrt_kmpc_nest_handle_t *h, unsigned hint, const void *ra)
{
  mockrt_kmpc_nest_lock_t *l = calloc(1, sizeof *l);
  if (!l)
    abort();
  atomic_init(&l->lock, 0);
  l->impl = mockrt_kmpc_lock_impl(hint);
  h->lk = l;
  if (mockrt_self() && mockrt_ompt.lock_init)
    mockrt_ompt.lock_init(ompt_mutex_nest_lock, hint, (unsigned)l->impl, MOCKRT_ID(h), ra);
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
  /* libomp 14 sends mutex_acquire before it knows whether the task owns
   * the lock already: then nest_lock begins instead of mutex_acquired. */
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_nest_lock, 0, (unsigned)l->impl, MOCKRT_ID(h), ra);
  if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == t) {
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
  /* As a set's (omp_set_nest_lock): libomp 14 names a test's events
   * ompt_mutex_nest_lock, and sends mutex_acquire first in any case. */
  if (mockrt_ompt.mutex_acquire)
    mockrt_ompt.mutex_acquire(ompt_mutex_nest_lock, 0, (unsigned)l->impl, MOCKRT_ID(h), ra);
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
