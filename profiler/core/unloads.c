/* dlclose, counted: see unloads.h. */
#define _GNU_SOURCE
#include "core/unloads.h"

#include <dlfcn.h>
#include <stdatomic.h>

static _Atomic uint64_t begun, ended;

bool knit_unloads_settled(uint64_t *count)
{
  /* ended first: an unload that begins after this load is seen by the
   * second, and one that ended before it left begun == ended. */
  uint64_t e = atomic_load(&ended);
  uint64_t b = atomic_load(&begun);
  *count = e;
  return b == e;
}

typedef int (*dlclose_fn)(void *);

__attribute__((visibility("default"))) int dlclose(void *handle)
{
  static _Atomic(dlclose_fn) real;
  dlclose_fn next = atomic_load(&real);
  if (!next) {
    next = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    atomic_store(&real, next);
  }
  /* Counted as begun before the library can go, and as ended only once it
   * has: a result worked out in between is not kept (unloads.h). */
  atomic_fetch_add(&begun, 1);
  int rc = next ? next(handle) : -1;
  atomic_fetch_add(&ended, 1);
  return rc;
}
