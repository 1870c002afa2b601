/* Work done on a helper thread: see run_aside.h. */
#define _GNU_SOURCE
#include "base/run_aside.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct aside {
  void (*fn)(void *);
  void *arg;
} aside;

static void *run(void *p)
{
  aside *a = p;
  a->fn(a->arg);
  return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

void knit_run_aside(void (*fn)(void *), void *arg)
{
  /* libknit.so's own pthread_create is the wrapper that attaches every new
   * thread: the next one is the C library's. */
  static _Atomic(pthread_create_fn) real_create;
  pthread_create_fn create = atomic_load_explicit(&real_create, memory_order_relaxed);
  if (!create) {
    create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
    atomic_store_explicit(&real_create, create, memory_order_relaxed);
  }
  aside a = {fn, arg};
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the helper inherits the mask */
  pthread_t helper;
  bool started = create && create(&helper, NULL, run, &a) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (started)
    pthread_join(helper, NULL);
  else
    fn(arg);
}
