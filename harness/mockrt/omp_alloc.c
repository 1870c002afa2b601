/*
 * The memory allocators of OpenMP 5.0: the omp_*alloc routines with the
 * predefined allocators and one made with traits (alignment, fallback), the
 * default allocator, the allocate clause on a private variable in a
 * parallel region, and a dependence object (clang allocates it through the
 * runtime).  Built by gcc and by clang, run on the mocks and on the real
 * runtimes with the same expectations; exit status 0 means every check
 * passed.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static int aligned(const void *p, size_t a)
{
  return ((uintptr_t)p & (a - 1)) == 0;
}

int main(void)
{
  /* The predefined allocators, and the default one. */
  CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
  char *p = omp_alloc(100, omp_default_mem_alloc);
  CHECK(p != NULL);
  memset(p, 'x', 100);
  p = omp_realloc(p, 4000, omp_default_mem_alloc, omp_default_mem_alloc);
  CHECK(p != NULL && p[0] == 'x' && p[99] == 'x');
  omp_free(p, omp_default_mem_alloc);
  int *z = omp_calloc(64, sizeof(int), omp_default_mem_alloc);
  CHECK(z != NULL);
  int zero = 1;
  for (int i = 0; z && i < 64; i++)
    zero &= z[i] == 0;
  CHECK(zero);
  omp_free(z, omp_default_mem_alloc);
  void *a = omp_aligned_alloc(256, 10, omp_default_mem_alloc);
  CHECK(a != NULL && aligned(a, 256));
  omp_free(a, omp_null_allocator);
  CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL);
  omp_free(NULL, omp_default_mem_alloc);

  /* An allocator with traits: its alignment holds for every block, and a
   * request that cannot be met gives NULL with the null fallback. */
  omp_alloctrait_t traits[2] = {{omp_atk_alignment, 128}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t mine = omp_init_allocator(omp_default_mem_space, 2, traits);
  CHECK(mine != omp_null_allocator);
  void *b = omp_alloc(24, mine);
  CHECK(b != NULL && aligned(b, 128));
  omp_free(b, mine);
  CHECK(omp_alloc(SIZE_MAX / 2, mine) == NULL);

  /* The default allocator is the thread's: the null allocator names it. */
  omp_set_default_allocator(mine);
  CHECK(omp_get_default_allocator() == mine);
  void *c = omp_alloc(8, omp_null_allocator);
  CHECK(c != NULL && aligned(c, 128));
  omp_free(c, omp_null_allocator);
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_destroy_allocator(mine);

  /* The allocate clause: each thread's private copy from the allocator. */
  int sum = 0, v = 0;
#pragma omp parallel num_threads(4) private(v) allocate(omp_low_lat_mem_alloc : v) reduction(+ : sum)
  {
    v = omp_get_thread_num() + 1;
    sum += v;
  }
  CHECK(sum == 1 + 2 + 3 + 4 || sum == 1);

  /* A dependence object orders two tasks like the dependence it holds. */
  int x = 0;
  omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : x)
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(depobj : obj)
    x = x * 2 + 1;
#pragma omp task depend(inout : x)
    x = x * 2 + 2;
  }
#pragma omp depobj(obj) destroy
  CHECK(x == 4);

  printf("omp_alloc: %d failure(s)\n", failures);
  return failures != 0;
}
