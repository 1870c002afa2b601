/*
 * The segments themselves: mapped on first use and kept per thread, one per
 * nesting depth, because a region opened again (the common case: a loop
 * around a parallel region) should not pay for mmap, mprotect and munmap
 * every time.  Depths beyond the cache get a mapping of their own that goes
 * away with the task.  A thread's cached segments are unmapped when the
 * thread ends (a thread key's destructor); the initial thread's go with the
 * process.
 */
#define _GNU_SOURCE
#include "segment.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

/* Nesting depths whose segments a thread keeps. */
#define MOCKRT_PGI_CACHED 4

typedef struct mockrt_pgi_cache {
  mockrt_pgi_segment_t seg[MOCKRT_PGI_CACHED];
  int depth;      /* segments in use by this thread */
  int registered; /* the thread key holds this cache */
} mockrt_pgi_cache_t;

static __thread mockrt_pgi_cache_t mockrt_pgi_cache;
static pthread_key_t mockrt_pgi_key;
static pthread_once_t mockrt_pgi_key_once = PTHREAD_ONCE_INIT;

static int mockrt_pgi_map(mockrt_pgi_segment_t *seg)
{
  /* The guard is a whole page of the running system (64 KiB on some ppc64le). */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t len = MOCKRT_PGI_SEGMENT_SIZE + page;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (p == MAP_FAILED)
    return 0;
  if (mprotect(p, page, PROT_NONE) != 0) {
    munmap(p, len);
    return 0;
  }
  seg->base = p;
  seg->len = len;
  seg->top = (char *)p + len;
  return 1;
}

static void mockrt_pgi_unmap(mockrt_pgi_segment_t *seg)
{
  if (seg->base)
    munmap(seg->base, seg->len);
  seg->base = NULL;
}

static void mockrt_pgi_cache_free(void *arg)
{
  mockrt_pgi_cache_t *c = arg;
  for (int i = 0; i < MOCKRT_PGI_CACHED; i++)
    mockrt_pgi_unmap(&c->seg[i]);
}

static void mockrt_pgi_key_init(void)
{
  /* Without the key the segments leak at thread exit, which is harmless. */
  if (pthread_key_create(&mockrt_pgi_key, mockrt_pgi_cache_free) != 0)
    mockrt_pgi_key = (pthread_key_t)-1;
}

int mockrt_pgi_segment_take(mockrt_pgi_segment_t *seg)
{
  mockrt_pgi_cache_t *c = &mockrt_pgi_cache;
  int d = c->depth;

  if (d >= MOCKRT_PGI_CACHED) {
    if (!mockrt_pgi_map(seg))
      return 0;
    c->depth++;
    return 1;
  }
  if (!c->seg[d].base) {
    if (!mockrt_pgi_map(&c->seg[d]))
      return 0;
    if (!c->registered) {
      pthread_once(&mockrt_pgi_key_once, mockrt_pgi_key_init);
      if (mockrt_pgi_key != (pthread_key_t)-1 && pthread_setspecific(mockrt_pgi_key, c) == 0)
        c->registered = 1;
    }
  }
  *seg = c->seg[d];
  c->depth++;
  return 1;
}

void mockrt_pgi_segment_give(const mockrt_pgi_segment_t *seg)
{
  mockrt_pgi_cache_t *c = &mockrt_pgi_cache;
  int d = --c->depth;

  if (d >= MOCKRT_PGI_CACHED) {
    mockrt_pgi_segment_t s = *seg;
    mockrt_pgi_unmap(&s);
  }
}
