/*
 * Memory allocators (OpenMP 5.0, 2.11 and the omp_*alloc routines), the same
 * under every ABI.  Every memory space is the host's memory, so each
 * allocator hands out malloc'd memory, aligned as its alignment trait or
 * the call asks, whichever is larger.  A block keeps its start and size in
 * a header just before the address it returns, so that omp_free and
 * omp_realloc need not know the allocator.  The predefined allocators are
 * small numbers (omp.h's enum: 1 omp_default_mem_alloc .. 8
 * omp_thread_mem_alloc); omp_init_allocator returns the address of a
 * record of its traits, a number no predefined handle reaches.  What
 * happens when memory runs out follows the fallback trait: NULL, abort,
 * or another allocator (the default one when none is named).
 */
#include "mockrt.h"
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* omp.h's traits, keys and values, and the largest predefined handle. */
enum {
  MOCKRT_ATK_ALIGNMENT = 2,
  MOCKRT_ATK_FALLBACK = 5,
  MOCKRT_ATK_FB_DATA = 6,
};
enum {
  MOCKRT_ATV_DEFAULT_MEM_FB = 11,
  MOCKRT_ATV_NULL_FB = 12,
  MOCKRT_ATV_ABORT_FB = 13,
  MOCKRT_ATV_ALLOCATOR_FB = 14,
};
#define MOCKRT_DEFAULT_MEM_ALLOC 1
#define MOCKRT_PREDEFINED_MAX    1024
#define MOCKRT_ALLOC_MIN_ALIGN   16

typedef struct mockrt_alloctrait {
  int key;
  uintptr_t value;
} mockrt_alloctrait_t;

typedef struct mockrt_allocator {
  size_t alignment;
  int fallback;
  uintptr_t fb_data;
} mockrt_allocator_t;

/* What precedes every block: where malloc's block starts, and its size. */
typedef struct mockrt_alloc_header {
  void *base;
  size_t size;
} mockrt_alloc_header_t;

/* def-allocator-var: one per thread, as the implicit tasks' data environment
 * would have it (a task's own value is not kept: tasks rarely set it). */
static MOCKRT_TLS uintptr_t mockrt_default_allocator = MOCKRT_DEFAULT_MEM_ALLOC;

static const mockrt_allocator_t *mockrt_allocator_of(uintptr_t handle)
{
  return handle > MOCKRT_PREDEFINED_MAX ? (const mockrt_allocator_t *)handle : NULL;
}

static void *mockrt_alloc_block(size_t align, size_t size, uintptr_t handle)
{
  if (handle == 0)
    handle = mockrt_default_allocator;
  const mockrt_allocator_t *a = mockrt_allocator_of(handle);
  if (a && a->alignment > align)
    align = a->alignment;
  if (align < MOCKRT_ALLOC_MIN_ALIGN)
    align = MOCKRT_ALLOC_MIN_ALIGN;
  /* Alignments are powers of two (OpenMP); anything else is made one. */
  while (align & (align - 1))
    align &= align - 1;
  size_t room = sizeof(mockrt_alloc_header_t) + align - 1;
  void *base = size <= SIZE_MAX - room ? malloc(size + room) : NULL;
  if (!base) {
    int fb = a ? a->fallback : MOCKRT_ATV_DEFAULT_MEM_FB;
    if (fb == MOCKRT_ATV_ABORT_FB) {
      fprintf(stderr, "mockrt: out of memory for a %zu-byte allocation (abort_fb)\n", size);
      abort();
    }
    if (fb == MOCKRT_ATV_ALLOCATOR_FB && a->fb_data && a->fb_data != handle)
      return mockrt_alloc_block(align, size, a->fb_data);
    if (fb == MOCKRT_ATV_DEFAULT_MEM_FB && handle != MOCKRT_DEFAULT_MEM_ALLOC)
      return mockrt_alloc_block(align, size, MOCKRT_DEFAULT_MEM_ALLOC);
    return NULL;
  }
  uintptr_t p =
      ((uintptr_t)base + sizeof(mockrt_alloc_header_t) + align - 1) & ~(uintptr_t)(align - 1);
  mockrt_alloc_header_t *h = (mockrt_alloc_header_t *)p - 1;
  h->base = base;
  h->size = size;
  return (void *)p;
}

MOCKRT_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
  if (size == 0)
    return NULL;
  return mockrt_alloc_block(alignment, size, allocator);
}

MOCKRT_EXPORT void *omp_alloc(size_t size, uintptr_t allocator)
{
  return omp_aligned_alloc(0, size, allocator);
}

MOCKRT_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                       uintptr_t allocator)
{
  if (nmemb == 0 || size == 0 || nmemb > SIZE_MAX / size)
    return NULL;
  void *p = mockrt_alloc_block(alignment, nmemb * size, allocator);
  if (p)
    memset(p, 0, nmemb * size);
  return p;
}

MOCKRT_EXPORT void *omp_calloc(size_t nmemb, size_t size, uintptr_t allocator)
{
  return omp_aligned_calloc(0, nmemb, size, allocator);
}

MOCKRT_EXPORT void omp_free(void *ptr, uintptr_t allocator)
{
  (void)allocator;
  if (ptr)
    free(((mockrt_alloc_header_t *)ptr - 1)->base);
}

MOCKRT_EXPORT void *omp_realloc(void *ptr, size_t size, uintptr_t allocator,
                                uintptr_t free_allocator)
{
  if (!ptr)
    return omp_alloc(size, allocator);
  if (size == 0) {
    omp_free(ptr, free_allocator);
    return NULL;
  }
  void *p = omp_alloc(size, allocator ? allocator : free_allocator);
  if (!p)
    return NULL;
  size_t old = ((mockrt_alloc_header_t *)ptr - 1)->size;
  memcpy(p, ptr, old < size ? old : size);
  omp_free(ptr, free_allocator);
  return p;
}

MOCKRT_EXPORT uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const void *traits_in)
{
  const mockrt_alloctrait_t *traits = traits_in;
  (void)memspace;
  mockrt_allocator_t *a = calloc(1, sizeof *a);
  if (!a)
    return 0; /* omp_null_allocator: the request cannot be met */
  a->fallback = MOCKRT_ATV_DEFAULT_MEM_FB;
  for (int i = 0; i < ntraits && traits; i++) {
    if (traits[i].key == MOCKRT_ATK_ALIGNMENT)
      a->alignment = traits[i].value;
    else if (traits[i].key == MOCKRT_ATK_FALLBACK)
      a->fallback = (int)traits[i].value;
    else if (traits[i].key == MOCKRT_ATK_FB_DATA)
      a->fb_data = traits[i].value;
  }
  /* A heap address: above every predefined handle. */
  return (uintptr_t)a;
}

MOCKRT_EXPORT void omp_destroy_allocator(uintptr_t allocator)
{
  if (allocator > MOCKRT_PREDEFINED_MAX)
    free((void *)allocator);
}

MOCKRT_EXPORT void omp_set_default_allocator(uintptr_t allocator)
{
  mockrt_default_allocator = allocator ? allocator : MOCKRT_DEFAULT_MEM_ALLOC;
}

MOCKRT_EXPORT uintptr_t omp_get_default_allocator(void)
{
  return mockrt_default_allocator;
}
