/*
 * The Intel layout's extra thread.  Intel's runtime used to start a monitor
 * thread with the runtime, one that never runs user code; a profiler must
 * see it (thread_begin with ompt_thread_other), sample it and never mistake
 * it for a worker.  The shepherd reproduces that: it is created when the
 * runtime starts (on the first thread's first entry, after the tool is
 * initialized and has seen the initial thread begin), announces itself,
 * sleeps on a futex until the process exits, and then ends before the tool
 * is finalized.  The runtime's start waits for the announcement: the
 * shepherd exists from start-up, so its thread_begin comes before any
 * event of the program's first construct, never between two of them.
 */
#define _GNU_SOURCE
#include "../core/mockrt.h"

#include <pthread.h>

/* What ompt_start_tool is told about the runtime. */
const char *mockrt_runtime_version = "knit mockrt 0.1 (intel personality, libomp.so.5 ABI)";

static pthread_t mockrt_shepherd_tid;
static bool mockrt_shepherd_running;
static atomic_uint mockrt_shepherd_stop;
static atomic_uint mockrt_shepherd_announced;

static void *mockrt_shepherd_main(void *arg)
{
  (void)arg;
  mockrt_thread_t *self = mockrt_thread_attach_other();
  atomic_store_explicit(&mockrt_shepherd_announced, 1, memory_order_release);
  mockrt_futex_wake(&mockrt_shepherd_announced, 1);
  unsigned stop;
  while ((stop = atomic_load_explicit(&mockrt_shepherd_stop, memory_order_acquire)) == 0)
    mockrt_futex_wait(&mockrt_shepherd_stop, stop);
  mockrt_thread_detach_worker(self);
  return NULL;
}

void mockrt_personality_start(void)
{
  /* A runtime without its shepherd still runs programs correctly. */
  mockrt_shepherd_running =
      pthread_create(&mockrt_shepherd_tid, NULL, mockrt_shepherd_main, NULL) == 0;
  if (!mockrt_shepherd_running)
    return;
  unsigned announced;
  while ((announced = atomic_load_explicit(&mockrt_shepherd_announced, memory_order_acquire)) == 0)
    mockrt_futex_wait(&mockrt_shepherd_announced, announced);
}

void mockrt_personality_stop(void)
{
  if (!mockrt_shepherd_running)
    return;
  atomic_store_explicit(&mockrt_shepherd_stop, 1, memory_order_release);
  mockrt_futex_wake(&mockrt_shepherd_stop, 1);
  pthread_join(mockrt_shepherd_tid, NULL);
  mockrt_shepherd_running = false;
}
