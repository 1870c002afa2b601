/* The flusher thread of traces: see trace.h. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/next_symbol.h"
#include "core/session.h"
#include "core/thread.h"
#include "core/trace.h"
#include "core/trace_ring.h"

static _Atomic bool started;

static void *flush_loop(void *arg)
{
  (void)arg;
  for (;;) {
    struct timespec period = {0, KNIT_TRACE_FLUSH_MS * 1000000l};
    nanosleep(&period, NULL);
    /* A fork child has no flusher (threads do not survive fork), and
     * knit does not run there anyway (session.c): nothing to check. */
    if (!knit_the_session.active)
      continue;
    for (knit_thread *t = knit_thread_list(); t; t = t->next)
      knit_trace_drain(t, false);
  }
  return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

void knit_trace_start_flusher(void)
{
  if (!knit_trace_enabled() || atomic_exchange(&started, true))
    return;
  /* The real pthread_create: knit's own (core/thread.c) would attach the
   * thread and sample it. Every signal is blocked in it, inherited from the
   * mask set around its creation, so none of the program's signals is ever
   * delivered to it and no sample is taken of it. */
  pthread_create_fn real = KNIT_NEXT_SYMBOL(pthread_create_fn, "pthread_create");
  if (!real)
    return;
  sigset_t all, was;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &was, (size_t)(_NSIG / 8));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  real(&thread, &attr, flush_loop, NULL);
  pthread_attr_destroy(&attr);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &was, NULL, (size_t)(_NSIG / 8));
}
