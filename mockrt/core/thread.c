/*
 * Thread-local state, runtime initialization and shutdown.
 *
 * Initialization is lazy: it happens when a thread first enters the runtime,
 * not in a constructor.  A tool that is preloaded runs its own constructors
 * after ours (the loader initializes libgomp.so.1 first), so calling
 * ompt_start_tool from a constructor could reach a tool that is not ready.
 */
#define _GNU_SOURCE
#include "mockrt.h"
#include "fault.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

MOCKRT_TLS mockrt_thread_t mockrt_self_tls;

static pthread_once_t mockrt_once = PTHREAD_ONCE_INIT;
static pthread_key_t mockrt_initial_key;
static atomic_int mockrt_shut_down;
/* Global thread numbers in order of attachment; the first initial thread is 0. */
static atomic_int mockrt_next_gtid;

static void mockrt_end_initial(mockrt_thread_t *self)
{
  mockrt_task_t *t = &self->initial_task;
  if (mockrt_ompt.implicit_task)
    /* As libomp 14: no parallelism at the end. */
    mockrt_ompt.implicit_task(ompt_scope_end, &self->initial_team->parallel_data, &t->task_data, 0,
                              1, ompt_task_initial);
  if (mockrt_ompt.thread_end)
    mockrt_ompt.thread_end(&self->thread_data);
}

/*
 * Initial threads other than the first one (user pthreads that use OpenMP)
 * end with the thread; a key destructor gives them their end events.
 */
static void mockrt_initial_thread_exit(void *arg)
{
  mockrt_thread_t *self = arg;
  if (self && self->kind == ompt_thread_initial && !atomic_load(&mockrt_shut_down)) {
    mockrt_end_initial(self);
    mockrt_set_state(self, ompt_state_undefined);
    mockrt_pool_release_root(self);
    /* The thread ends: nothing reaches its initial team once no task of
     * it is current (a signal handler here finds none). */
    atomic_signal_fence(memory_order_seq_cst);
    self->task = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    free(self->initial_team);
    self->initial_team = NULL;
  }
}

/*
 * At exit the idle workers are stopped first (thread_end each), then the
 * exiting thread ends its initial task, and the tool is finalized last so it
 * has seen every end event when it writes its results.  ompt_finalize_tool
 * does the same, as libomp 14 tears itself down there; a region after it
 * starts new workers, and no tool sees them.
 */
void mockrt_shutdown(void)
{
  if (atomic_exchange(&mockrt_shut_down, 1))
    return;
  if (mockrt_fault(MOCKRT_FAULT_FINALIZE_BEFORE_ENDS))
    mockrt_ompt_finalize();
  /* The devices first: their last trace buffers and device_finalize reach
   * the tool, and their threads' end events come before the pool's. */
  mockrt_target_shutdown();
  mockrt_pool_shutdown();
  if (mockrt_personality_stop)
    mockrt_personality_stop();
  mockrt_thread_t *self = &mockrt_self_tls;
  if (self->kind == ompt_thread_initial)
    mockrt_end_initial(self);
  mockrt_ompt_finalize();
}

static void mockrt_init_once(void)
{
  mockrt_icv_init();
  pthread_key_create(&mockrt_initial_key, mockrt_initial_thread_exit);
  mockrt_ompt_init();
  mockrt_ompt_places_ready(); /* after initialize, as libomp sets its places up */
  /* atexit handlers run before any library destructor, while tools still work. */
  atexit(mockrt_shutdown);
}

/*
 * A thread the runtime did not start (the mock device's) ends before the
 * runtime's shutdown is over: its end events now, and the thread is no
 * longer known, so the key destructor gives it none twice.
 */
void mockrt_thread_end_initial(void)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  if (self->kind != ompt_thread_initial)
    return;
  mockrt_end_initial(self);
  mockrt_set_state(self, ompt_state_undefined);
  mockrt_pool_release_root(self);
  atomic_signal_fence(memory_order_seq_cst);
  self->kind = 0;
  self->task = NULL;
  pthread_setspecific(mockrt_initial_key, NULL);
}

static mockrt_team_t *mockrt_new_initial_team(void)
{
  mockrt_team_t *team = calloc(1, sizeof *team);
  if (!team)
    abort();
  team->nthreads = 1;
  mockrt_barrier_init(&team->barrier, 1);
  for (unsigned i = 0; i < MOCKRT_WS_SLOTS; i++)
    atomic_init(&team->ws[i].ticket, i);
  return team;
}

mockrt_thread_t *mockrt_thread_attach_initial(void)
{
  static atomic_int first_done;
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_task_t *t = &self->initial_task;

  pthread_once(&mockrt_once, mockrt_init_once);

  /* Everything is set up before kind is set, which makes the thread known. */
  self->state = ompt_state_overhead;
  self->thread_data.value = 0;
  self->gtid = atomic_fetch_add(&mockrt_next_gtid, 1);
  self->initial_team = mockrt_new_initial_team();
  memset(t, 0, sizeof *t);
  t->team = self->initial_team;
  t->flags = ompt_task_initial;
  t->nthreads_var = mockrt_icv.nthreads;
  self->initial_team->encountering = NULL;
  atomic_signal_fence(memory_order_seq_cst);
  self->task = t;
  self->kind = ompt_thread_initial;
  self->no_tool = !MOCKRT_OMPT_ON; /* the tool, if any, initialized in mockrt_init_once */
  bool first = !atomic_exchange(&first_done, 1);
  if (!first)
    pthread_setspecific(mockrt_initial_key, self);

  if (mockrt_ompt.thread_begin)
    mockrt_ompt.thread_begin(ompt_thread_initial, &self->thread_data);
  if (mockrt_ompt.implicit_task)
    mockrt_ompt.implicit_task(ompt_scope_begin, &self->initial_team->parallel_data, &t->task_data,
                              1, 1, ompt_task_initial);
  /* After the initial thread's own events, so a tool sees it first. */
  if (first && mockrt_personality_start)
    mockrt_personality_start();
  mockrt_set_state(self, ompt_state_work_serial);
  return self;
}

mockrt_thread_t *mockrt_thread_attach_worker(void)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  self->state = ompt_state_overhead;
  self->thread_data.value = 0;
  self->task = NULL;
  self->gtid = atomic_fetch_add(&mockrt_next_gtid, 1);
  atomic_signal_fence(memory_order_seq_cst);
  self->kind = ompt_thread_worker;
  self->place_bound = true;
  self->no_tool = !MOCKRT_OMPT_ON;
  if (mockrt_ompt.thread_begin && !mockrt_fault(MOCKRT_FAULT_THREAD_BEGIN_DROPPED))
    mockrt_ompt.thread_begin(ompt_thread_worker, &self->thread_data);
  mockrt_set_state(self, ompt_state_idle);
  return self;
}

/*
 * A helper thread has no task and no global thread number, and its state
 * stays idle: it waits, but for nothing a team will ever give it.
 */
mockrt_thread_t *mockrt_thread_attach_other(void)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  self->state = ompt_state_overhead;
  self->thread_data.value = 0;
  self->task = NULL;
  self->gtid = -1;
  atomic_signal_fence(memory_order_seq_cst);
  self->kind = ompt_thread_other;
  if (mockrt_ompt.thread_begin)
    mockrt_ompt.thread_begin(ompt_thread_other, &self->thread_data);
  mockrt_set_state(self, ompt_state_idle);
  return self;
}

void mockrt_thread_detach_worker(mockrt_thread_t *self)
{
  mockrt_set_state(self, ompt_state_overhead);
  if (mockrt_ompt.thread_end)
    mockrt_ompt.thread_end(&self->thread_data);
  mockrt_set_state(self, ompt_state_undefined);
}
