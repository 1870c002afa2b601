/*
 * The allocate directive and clause under the GOMP ABI: gcc calls
 * GOMP_alloc and GOMP_free, which are the API's omp_aligned_alloc and
 * omp_free (core/alloc.c).
 */
#include "gomp.h"
#include "../core/alloc.h"

#include <stdint.h>

MOCKRT_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
  return omp_aligned_alloc(alignment, size, allocator);
}

MOCKRT_EXPORT void GOMP_free(void *ptr, uintptr_t allocator)
{
  omp_free(ptr, allocator);
}
