/* A preloaded watcher of the program's malloc heap, for cli_test.sh's
 * program_heap_untouched: counts the blocks that libelf and Capstone (the
 * libraries knit calls that allocate with malloc) take on the program's
 * main thread, where they would land among the program's own blocks, and
 * prints the counts at exit. knit does such work on a helper thread, whose
 * blocks come from a malloc arena of its own (profiler/base/run_aside.h);
 * there they are not counted. Preloaded ahead of libknit.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static _Atomic unsigned long from_libelf, from_capstone;
/* Set while dladdr runs, whose own blocks are not counted. Initial-exec:
 * reaching the variable allocates nothing. */
static __thread int inside __attribute__((tls_model("initial-exec")));

static void note(const void *caller)
{
  if (inside || syscall(SYS_gettid) != getpid())
    return;
  inside = 1;
  Dl_info info;
  if (dladdr(caller, &info) && info.dli_fname) {
    if (strstr(info.dli_fname, "libelf"))
      from_libelf++;
    else if (strstr(info.dli_fname, "libcapstone"))
      from_capstone++;
  }
  inside = 0;
}

void *malloc(size_t size)
{
  note(__builtin_return_address(0));
  return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
  note(__builtin_return_address(0));
  return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
  note(__builtin_return_address(0));
  return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
  note(__builtin_return_address(0));
  void *p = __libc_memalign(align, size);
  if (!p)
    return 12; /* ENOMEM */
  *out = p;
  return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
  note(__builtin_return_address(0));
  return __libc_memalign(align, size);
}

__attribute__((destructor)) static void report(void)
{
  fprintf(stderr, "heap_watch: main-thread blocks from libelf=%lu capstone=%lu\n",
          (unsigned long)from_libelf, (unsigned long)from_capstone);
}
