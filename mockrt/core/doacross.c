/*
 * Doacross loops: cross-iteration dependences (ordered(n) with
 * depend(sink: vec) and depend(source)).
 *
 * A loop's state is one flag per iteration of its whole iteration space
 * (row major), set by the iteration's depend(source).  It hangs on a
 * worksharing slot of its own (mockrt_ws_claim), which every thread of the
 * team takes in the same order as its other constructs, so the state of
 * the loop is found without any lookup and is freed by the last thread to
 * leave.  A flag per iteration makes the semantics independent of the
 * schedule: a wait returns exactly when the iteration it names has posted.
 *
 * Waiting: a short spin, then a sleep on a futex word that every post
 * moves (under QEMU a spinning waiter would starve the thread it waits
 * for).  The waiting thread is in state wait_ordered (a doacross wait is
 * the stand-alone ordered construct) with the address of the awaited
 * iteration's flag as wait id.  OMPT: as libomp 14 does, each post and
 * each wait that names an iteration inside the space dispatches
 * dependences on the implicit task, with the vector's logical iteration
 * numbers and ompt_dependence_type_source or _sink; libomp stays in its
 * work state while it waits, the mock reports the wait.
 */
#include "doacross.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Iterations a doacross loop may have in all (one byte each). */
#define MOCKRT_DOACROSS_MAX_ITERS (1ul << 36)
#define MOCKRT_DOACROSS_SPINS     200

struct mockrt_doacross {
  int ndims;
  mockrt_doacross_dim_t dims[MOCKRT_DOACROSS_MAX_DIMS];
  unsigned long total;
  atomic_uint wake; /* moves at every post; sleepers wait on it */
  atomic_uint sleepers;
  atomic_uchar done[]; /* 1 once the iteration has posted */
};

static void mockrt_doacross_unsupported(const char *what, unsigned long n)
{
  fprintf(stderr, "mockrt: doacross loop with %s %lu is not supported\n", what, n);
  abort();
}

void mockrt_doacross_begin(mockrt_task_t *t, int ndims, const mockrt_doacross_dim_t *dims)
{
  if (ndims < 1 || ndims > MOCKRT_DOACROSS_MAX_DIMS)
    mockrt_doacross_unsupported("a dimension count of", (unsigned long)ndims);
  mockrt_ws_t *ws = mockrt_ws_claim(t);
  if (!__atomic_load_n(&ws->doacross, __ATOMIC_ACQUIRE)) {
    unsigned long total = 1;
    for (int i = 0; i < ndims; i++) {
      if (dims[i].count && total > MOCKRT_DOACROSS_MAX_ITERS / dims[i].count)
        mockrt_doacross_unsupported("more iterations than", MOCKRT_DOACROSS_MAX_ITERS);
      total *= dims[i].count;
    }
    struct mockrt_doacross *d = calloc(1, sizeof *d + total);
    if (!d)
      mockrt_doacross_unsupported("too many iterations to track:", total);
    d->ndims = ndims;
    for (int i = 0; i < ndims; i++)
      d->dims[i] = dims[i];
    d->total = total;
    /* Every thread of the team describes the same loop: the first one's wins. */
    struct mockrt_doacross *none = NULL;
    if (!__atomic_compare_exchange_n(&ws->doacross, &none, d, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      free(d);
  }
  t->doacross = ws;
}

void mockrt_doacross_end(mockrt_task_t *t)
{
  mockrt_ws_t *ws = t->doacross;
  if (!ws)
    return;
  t->doacross = NULL;
  mockrt_ws_unclaim(ws);
}

/*
 * The loop the task is in, or NULL.  The slot's pointer is read atomically:
 * a thread of the team that enters the loop late may be in the
 * compare-and-swap above at this moment (it fails, the state is set).
 */
static struct mockrt_doacross *mockrt_doacross_of(const mockrt_task_t *t)
{
  return t->doacross ? __atomic_load_n(&t->doacross->doacross, __ATOMIC_ACQUIRE) : NULL;
}

int mockrt_doacross_dims(const mockrt_task_t *t)
{
  const struct mockrt_doacross *d = mockrt_doacross_of(t);
  return d ? d->ndims : 0;
}

/*
 * The flat index of the iteration vec names, with each dimension's logical
 * number in num[]; false if it is outside the iteration space.
 */
static bool mockrt_doacross_index(const struct mockrt_doacross *d, const long *vec,
                                  unsigned long *flat, long *num)
{
  unsigned long f = 0;
  for (int i = 0; i < d->ndims; i++) {
    const mockrt_doacross_dim_t *dim = &d->dims[i];
    unsigned long k;
    if (dim->st > 0) {
      if (vec[i] < dim->lo)
        return false;
      k = ((unsigned long)vec[i] - (unsigned long)dim->lo) / (unsigned long)dim->st;
    } else {
      if (vec[i] > dim->lo)
        return false;
      k = ((unsigned long)dim->lo - (unsigned long)vec[i]) / (0ul - (unsigned long)dim->st);
    }
    if (k >= dim->count)
      return false;
    num[i] = (long)k;
    f = f * dim->count + k;
  }
  *flat = f;
  return true;
}

static void mockrt_doacross_event(mockrt_task_t *t, const struct mockrt_doacross *d,
                                  const long *num, int type)
{
  ompt_dependence_t deps[MOCKRT_DOACROSS_MAX_DIMS];
  for (int i = 0; i < d->ndims; i++) {
    deps[i].variable.value = (uint64_t)num[i];
    deps[i].dependence_type = (ompt_dependence_type_t)type;
  }
  mockrt_ompt.dependences(&t->task_data, deps, d->ndims);
}

void mockrt_doacross_post(mockrt_task_t *t, const long *vec)
{
  struct mockrt_doacross *d = mockrt_doacross_of(t);
  unsigned long flat;
  long num[MOCKRT_DOACROSS_MAX_DIMS];

  if (!d || !mockrt_doacross_index(d, vec, &flat, num)) {
    /* Nothing to post to: the post is still a release of what came before. */
    atomic_thread_fence(memory_order_seq_cst);
    return;
  }
  if (mockrt_ompt.dependences)
    mockrt_doacross_event(t, d, num, ompt_dependence_type_source);
  atomic_store_explicit(&d->done[flat], 1, memory_order_release);
  atomic_fetch_add(&d->wake, 1);
  if (atomic_load(&d->sleepers))
    mockrt_futex_wake(&d->wake, INT_MAX);
}

void mockrt_doacross_wait(mockrt_task_t *t, const long *vec)
{
  struct mockrt_doacross *d = mockrt_doacross_of(t);
  unsigned long flat;
  long num[MOCKRT_DOACROSS_MAX_DIMS];

  if (!d || !mockrt_doacross_index(d, vec, &flat, num))
    return;
  atomic_uchar *flag = &d->done[flat];
  if (!atomic_load_explicit(flag, memory_order_acquire)) {
    mockrt_thread_t *self = &mockrt_self_tls;
    int prev = self->state;
    int spins = 0;
    mockrt_set_wait(self, ompt_state_wait_ordered, flag);
    for (;;) {
      unsigned w = atomic_load(&d->wake);
      if (atomic_load_explicit(flag, memory_order_acquire))
        break;
      if (spins++ < MOCKRT_DOACROSS_SPINS)
        continue;
      atomic_fetch_add(&d->sleepers, 1);
      mockrt_futex_wait(&d->wake, w);
      atomic_fetch_sub(&d->sleepers, 1);
    }
    mockrt_set_state(self, prev);
  }
  if (mockrt_ompt.dependences)
    mockrt_doacross_event(t, d, num, ompt_dependence_type_sink);
}
