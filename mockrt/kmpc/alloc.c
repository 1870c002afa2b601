/*
 * The memory allocators under the __kmpc_* ABI: clang calls these for the
 * allocate directive and clause and for dependence objects (depobj); each
 * is the API routine of core/alloc.c, the thread number aside.
 */
#include "kmpc.h"
#include "../core/alloc.h"

#include <stdint.h>

MOCKRT_EXPORT void *__kmpc_alloc(int gtid, size_t size, uintptr_t allocator)
{
  (void)gtid;
  return omp_aligned_alloc(0, size, allocator);
}

MOCKRT_EXPORT void *__kmpc_aligned_alloc(int gtid, size_t alignment, size_t size,
                                         uintptr_t allocator)
{
  (void)gtid;
  return omp_aligned_alloc(alignment, size, allocator);
}

MOCKRT_EXPORT void *__kmpc_calloc(int gtid, size_t nmemb, size_t size, uintptr_t allocator)
{
  (void)gtid;
  return omp_aligned_calloc(0, nmemb, size, allocator);
}

MOCKRT_EXPORT void *__kmpc_realloc(int gtid, void *ptr, size_t size, uintptr_t allocator,
                                   uintptr_t free_allocator)
{
  (void)gtid;
  return omp_realloc(ptr, size, allocator, free_allocator);
}

MOCKRT_EXPORT void __kmpc_free(int gtid, void *ptr, uintptr_t allocator)
{
  (void)gtid;
  omp_free(ptr, allocator);
}

MOCKRT_EXPORT uintptr_t __kmpc_init_allocator(int gtid, uintptr_t memspace, int ntraits,
                                              const void *traits)
{
  (void)gtid;
  return omp_init_allocator(memspace, ntraits, traits);
}

MOCKRT_EXPORT void __kmpc_destroy_allocator(int gtid, uintptr_t allocator)
{
  (void)gtid;
  omp_destroy_allocator(allocator);
}

MOCKRT_EXPORT void __kmpc_set_default_allocator(int gtid, uintptr_t allocator)
{
  (void)gtid;
  omp_set_default_allocator(allocator);
}

MOCKRT_EXPORT uintptr_t __kmpc_get_default_allocator(int gtid)
{
  (void)gtid;
  return omp_get_default_allocator();
}
