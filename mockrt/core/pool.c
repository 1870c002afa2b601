/*
 * The worker pool: threads created for the first region that needs them and
 * reused by later ones, as libgomp does.  An idle worker sleeps on a futex
 * word (its "go" generation), so an idle process burns no CPU.
 *
 * mockrt_worker_main is the only runtime frame between start_thread and the
 * outlined function on a worker (gomp), so it calls the function itself and
 * computes its own CFA for the exit frame.  A team with a microtask (the
 * __kmpc_* personalities) is run through the personality's trampoline
 * instead, called from here too, which stores its own CFA as the exit frame.
 */
#define _GNU_SOURCE
#include "mockrt.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct mockrt_worker {
  pthread_t tid;
  atomic_uint go;      /* bumped by the master for each assignment */
  mockrt_team_t *team; /* valid from a go bump until the worker leaves */
  int thread_num;
  bool busy; /* protected by mockrt_pool_lock */
  bool shutdown;
  /* The initial thread whose outermost team it belongs to (its hot team),
   * or NULL: free for any team (protected by mockrt_pool_lock). */
  const mockrt_thread_t *root;
} mockrt_worker_t;

static pthread_mutex_t mockrt_pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Workers are never freed: a stale pointer to one is always safe to read. */
static mockrt_worker_t *mockrt_workers[MOCKRT_MAX_THREADS];
static int mockrt_nworkers;
/* Workers in a team now (protected by mockrt_pool_lock): with the initial
 * thread, the contention group that thread-limit-var bounds. */
static unsigned mockrt_busy_workers;

static unsigned mockrt_wait_go(mockrt_worker_t *w, unsigned seen)
{
  unsigned g;
  int spins = 0;
  while ((g = atomic_load_explicit(&w->go, memory_order_acquire)) == seen) {
    if (!mockrt_spin(&spins, MOCKRT_SPIN_WAIT))
      mockrt_futex_wait(&w->go, seen);
  }
  return g;
}

/*
 * Tell the master that this worker is done with the team; after the
 * increment the team (on the master's stack) may vanish, and the only later
 * access is a futex wake, which is harmless on any address. So the team's
 * size is read before: read after, it could be the next team's, made in
 * the same place, and the master's wake-up would be missed.
 */
static void mockrt_leave_team(mockrt_team_t *team)
{
  unsigned workers = team->nthreads - 1;
  unsigned left = atomic_fetch_add_explicit(&team->left, 1, memory_order_acq_rel) + 1;
  if (left == workers)
    mockrt_futex_wake(&team->left, 1);
}

static void mockrt_release_worker(mockrt_worker_t *w)
{
  pthread_mutex_lock(&mockrt_pool_lock);
  w->busy = false;
  w->team = NULL;
  mockrt_busy_workers--;
  pthread_mutex_unlock(&mockrt_pool_lock);
}

/* A worker's implicit task begins, as a tool sees it: events, exit frame. */
__attribute__((noinline, cold)) static void
mockrt_worker_begin_observed(mockrt_team_t *team, mockrt_task_t *task, int thread_num, void *cfa)
{
  mockrt_implicit_begin(team, task, thread_num);
  if (team->micro)
    mockrt_frame_exit_flags(task); /* the trampoline stores the address */
  else
    mockrt_frame_exit(task, cfa);
}

static void *mockrt_worker_main(void *arg)
{
  mockrt_worker_t *w = arg;
  mockrt_thread_t *self = mockrt_thread_attach_worker();
  void *cfa = __builtin_dwarf_cfa();
  mockrt_task_t task;
  unsigned seen = 0;

  for (;;) {
    seen = mockrt_wait_go(w, seen);
    if (w->shutdown)
      break;
    mockrt_team_t *team = w->team;
    /* One test of the tool flag on each side of the body (team.c). */
    if (MOCKRT_OMPT_ON)
      mockrt_worker_begin_observed(team, &task, w->thread_num, cfa);
    else
      mockrt_implicit_begin_plain(team, &task, w->thread_num);
    if (team->micro) {
      const mockrt_microtask_t *m = team->micro;
      /* The outlined body may keep these pointers for the whole region. */
      int32_t gtid = self->gtid, btid = w->thread_num;
      m->invoke(m->fn, &gtid, &btid, m->argc, m->argv, &task.frame.exit_frame.ptr);
    } else {
      team->fn(team->data);
    }
    if (MOCKRT_OMPT_ON) {
      mockrt_frame_unexit(&task);
      mockrt_implicit_end_worker(team, &task);
    } else {
      mockrt_implicit_end_worker_plain(team, &task);
    }
    /* Back in the pool before the master can see this worker has left. */
    mockrt_release_worker(w);
    mockrt_leave_team(team);
  }
  mockrt_thread_detach_worker(self);
  return NULL;
}

/*
 * Workers are kept per initial thread, as libomp 14 keeps each root
 * thread's hot team (and libgomp each initial thread's pool): an
 * outermost team takes its own initial thread's workers first, then free
 * ones, and owns them until its next outermost team needs fewer or the
 * thread ends; a nested team takes free workers only.  So a program's two
 * threads that each start OpenMP do not share workers while both live.
 */
static bool mockrt_pool_may_take(const mockrt_worker_t *w, const mockrt_thread_t *root, int pass)
{
  if (w->busy)
    return false;
  return pass == 0 ? root && w->root == root : !w->root;
}

void mockrt_pool_release_root(const mockrt_thread_t *root)
{
  pthread_mutex_lock(&mockrt_pool_lock);
  for (int i = 0; i < mockrt_nworkers; i++)
    if (mockrt_workers[i]->root == root)
      mockrt_workers[i]->root = NULL;
  pthread_mutex_unlock(&mockrt_pool_lock);
}

unsigned mockrt_pool_reserve(mockrt_team_t *team, unsigned want)
{
  unsigned got = 0;
  const mockrt_thread_t *self = &mockrt_self_tls;
  /* An outermost team: its initial thread's hot team. */
  const mockrt_thread_t *root =
      self->kind == ompt_thread_initial && self->task && self->task->team->level == 0 ? self : NULL;
  pthread_mutex_lock(&mockrt_pool_lock);
  /* OMP_THREAD_LIMIT bounds every thread at once, nested teams' included,
   * as in libgomp: a team gets only the workers the limit has room for. */
  unsigned limit = (unsigned)mockrt_icv.thread_limit;
  unsigned room = limit > 1 + mockrt_busy_workers ? limit - 1 - mockrt_busy_workers : 0;
  if (want > room)
    want = room;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < mockrt_nworkers && got < want; i++) {
      mockrt_worker_t *w = mockrt_workers[i];
      if (!mockrt_pool_may_take(w, root, pass))
        continue;
      w->busy = true;
      w->team = team;
      w->root = root;
      w->thread_num = (int)++got;
    }
  }
  /* The hot team is the team it now has: workers it no longer needs are free. */
  for (int i = 0; root && i < mockrt_nworkers; i++)
    if (mockrt_workers[i]->root == root && !mockrt_workers[i]->busy)
      mockrt_workers[i]->root = NULL;
  while (got < want && mockrt_nworkers < MOCKRT_MAX_THREADS) {
    mockrt_worker_t *w = calloc(1, sizeof *w);
    if (!w)
      break;
    w->busy = true;
    w->team = team;
    w->root = root;
    w->thread_num = (int)got + 1;
    if (pthread_create(&w->tid, NULL, mockrt_worker_main, w) != 0) {
      free(w);
      break;
    }
    mockrt_workers[mockrt_nworkers++] = w;
    got++;
  }
  mockrt_busy_workers += got;
  pthread_mutex_unlock(&mockrt_pool_lock);
  return got;
}

void mockrt_pool_start(mockrt_team_t *team)
{
  pthread_mutex_lock(&mockrt_pool_lock);
  for (int i = 0; i < mockrt_nworkers; i++) {
    mockrt_worker_t *w = mockrt_workers[i];
    if (w->busy && w->team == team) {
      atomic_fetch_add_explicit(&w->go, 1, memory_order_release);
      mockrt_futex_wake(&w->go, 1);
    }
  }
  pthread_mutex_unlock(&mockrt_pool_lock);
}

void mockrt_pool_shutdown(void)
{
  pthread_t tids[MOCKRT_MAX_THREADS];
  int n = 0;
  pthread_mutex_lock(&mockrt_pool_lock);
  for (int i = 0; i < mockrt_nworkers; i++) {
    mockrt_worker_t *w = mockrt_workers[i];
    /* A busy worker means exit() was called inside a region: leave it be. */
    if (w->busy)
      continue;
    w->busy = true;
    w->shutdown = true;
    atomic_fetch_add_explicit(&w->go, 1, memory_order_release);
    mockrt_futex_wake(&w->go, 1);
    tids[n++] = w->tid;
  }
  pthread_mutex_unlock(&mockrt_pool_lock);
  for (int i = 0; i < n; i++)
    pthread_join(tids[i], NULL);
}
