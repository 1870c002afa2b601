/*
 * The memory allocator routines of the OpenMP API (alloc.c), which the
 * ABIs' own entry points call.  Handles are omp.h's integer types, spelled
 * uintptr_t: a file that includes this header must not include omp.h,
 * whose prototypes name them with its own types.
 */
#ifndef MOCKRT_CORE_ALLOC_H
#define MOCKRT_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator);
void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size, uintptr_t allocator);
void *omp_realloc(void *ptr, size_t size, uintptr_t allocator, uintptr_t free_allocator);
void omp_free(void *ptr, uintptr_t allocator);
uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const void *traits);
void omp_destroy_allocator(uintptr_t allocator);
void omp_set_default_allocator(uintptr_t allocator);
uintptr_t omp_get_default_allocator(void);

#endif
