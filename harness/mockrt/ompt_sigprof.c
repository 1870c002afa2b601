/*
 * Async-signal safety of the OMPT inquiries: every thread gets a per-thread
 * timer (timer_create, SIGEV_THREAD_ID) firing every 200 us of wall time,
 * and the handler asks get_state, get_task_info, get_parallel_info and
 * get_thread_data while the program runs regions, barriers, locks and loops.
 * The handler checks what it sees for consistency; any crash, hang or
 * inconsistent answer fails the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <omp-tools.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static ompt_get_state_t get_state;
static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_thread_data_t get_thread_data;
static int initialized;
static long samples, bad;
static __thread timer_t my_timer;
static __thread int have_timer;

static void on_sample(int sig, siginfo_t *si, void *uc)
{
  (void)sig;
  (void)si;
  (void)uc;
  int saved = errno;
  int here = 0;
  ompt_wait_id_t wid;
  int state = get_state(&wid);
  int flags = 0, size = 0;
  ompt_frame_t *f = NULL;
  ompt_data_t *pd = NULL;
  __atomic_add_fetch(&samples, 1, __ATOMIC_RELAXED);
  if (!get_thread_data())
    __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
  if (state == ompt_state_work_parallel) {
    /* In a region: an implicit task whose exit frame (if set) is above us. */
    if (get_task_info(0, &flags, NULL, &f, &pd, NULL) != 2 || !(flags & ompt_task_implicit) ||
        !pd || (f->exit_frame.ptr && (char *)f->exit_frame.ptr < (char *)&here) ||
        (f->exit_frame.ptr && f->enter_frame.ptr &&
         (char *)f->enter_frame.ptr > (char *)f->exit_frame.ptr) ||
        get_parallel_info(0, NULL, &size) != 2 || size < 1)
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
  } else if (state == ompt_state_work_serial) {
    if (get_task_info(0, &flags, NULL, &f, NULL, NULL) != 2 || !(flags & ompt_task_initial) ||
        f->exit_frame.ptr != NULL)
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
  } else if (state == ompt_state_wait_lock || state == ompt_state_wait_critical ||
             state == ompt_state_wait_barrier_explicit ||
             state == ompt_state_wait_barrier_implicit) {
    if (wid == 0)
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
  }
  /* Walk every level the runtime admits to; none may fault. */
  for (int lvl = 0; lvl < 4; lvl++) {
    ompt_data_t *td = NULL;
    if (get_task_info(lvl, &flags, &td, &f, &pd, NULL) != 2)
      break;
    if (!td || !f || !pd)
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    (void)*(volatile void **)&f->enter_frame.ptr;
  }
  errno = saved;
}

static void start_timer(void)
{
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &sev, &my_timer) != 0)
    return;
  struct itimerspec its = {{0, 200000}, {0, 200000}};
  timer_settime(my_timer, 0, &its, NULL);
  have_timer = 1;
}

static void stop_timer(void)
{
  if (have_timer)
    timer_delete(my_timer);
  have_timer = 0;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
  (void)type;
  data->value = 1;
  start_timer();
}

static void on_thread_end(ompt_data_t *data)
{
  (void)data;
  stop_timer();
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *tool_data)
{
  (void)dev;
  (void)tool_data;
  ompt_set_callback_t set_cb = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_state = (ompt_get_state_t)lookup("ompt_get_state");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  set_cb(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  set_cb(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
  initialized = 1;
  return 1;
}

static void tool_fini(ompt_data_t *tool_data)
{
  (void)tool_data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int v, const char *rt)
{
  static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
  (void)v;
  (void)rt;
  return &r;
}

int main(void)
{
  omp_lock_t lock;
  long counter = 0, expect = 0;
  double t0;
  omp_set_num_threads(4);
  omp_init_lock(&lock);
  if (!initialized) {
    fprintf(stderr, "ompt_sigprof: no tool\n");
    return 1;
  }
  t0 = omp_get_wtime();
  /* About a second of wall time, or 20000 regions, whichever comes first. */
  for (int r = 0; r < 20000 && omp_get_wtime() - t0 < 1.0; r++) {
#pragma omp parallel
    {
      omp_set_lock(&lock);
      counter++;
      omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp for schedule(dynamic, 4)
      for (int i = 0; i < 64; i++) {
        volatile int x = 0;
        for (int j = 0; j < 200; j++)
          x += j;
      }
#pragma omp critical
      counter++;
    }
    expect += 2 * 4;
  }
  omp_destroy_lock(&lock);
  /* The handler counts atomically: read them so. */
  long seen = __atomic_load_n(&samples, __ATOMIC_RELAXED);
  long wrong = __atomic_load_n(&bad, __ATOMIC_RELAXED);
  if (counter != expect || wrong != 0 || seen < 20) {
    fprintf(stderr, "ompt_sigprof: counter %ld/%ld, %ld samples, %ld bad\n", counter, expect, seen,
            wrong);
    return 1;
  }
  printf("ompt_sigprof: %ld samples, all consistent\n", seen);
  return 0;
}
