/* The signal-safe allocators: alignment, zeroing, limits, and the shared
 * arena under concurrent use. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/arena.h"

static void test_alignment_and_zeroing(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 4096, 0);
  for (size_t align = 1; align <= 4096; align *= 2) {
    unsigned char *p = knit_arena_alloc(&a, 100, align);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % align, 0);
    for (int i = 0; i < 100; i++)
      assert_int_equal(p[i], 0);
    memset(p, 0xab, 100);
  }
  knit_arena_release(&a);
  assert_int_equal(a.mapped, 0);
}

static void test_large_request_keeps_current_chunk(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 8192, 0);
  char *small1 = knit_arena_alloc(&a, 64, 8);
  char *big = knit_arena_alloc(&a, 100000, 64);
  char *small2 = knit_arena_alloc(&a, 64, 8);
  assert_non_null(small1);
  assert_non_null(big);
  assert_non_null(small2);
  /* The second small block comes from the same chunk as the first. */
  assert_true(small2 > small1 && small2 - small1 < 8192);
  memset(big, 1, 100000);
  knit_arena_release(&a);
}

static void test_limit(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 4096, 3 * 4096);
  int got = 0;
  while (knit_arena_alloc(&a, 1000, 8))
    got++;
  /* Three chunks of 4096 hold at most 12 blocks of 1000 (less headers). */
  assert_in_range(got, 6, 12);
  assert_true(a.mapped <= 3 * 4096);
  knit_arena_release(&a);
}

#define THREADS    4
#define PER_THREAD 20000

static void *hammer(void *arg)
{
  uintptr_t **out = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    uintptr_t *p = knit_shared_alloc(24, 8);
    if (!p)
      return NULL;
    p[0] = (uintptr_t)p; /* each block holds its own address */
    out[i] = p;
  }
  return arg;
}

static void test_shared_concurrent(void **state)
{
  (void)state;
  static uintptr_t *blocks[THREADS][PER_THREAD];
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&th[t], NULL, hammer, blocks[t]), 0);
  for (int t = 0; t < THREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    assert_non_null(r);
  }
  /* No block was handed out twice: each still holds its own address. */
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < PER_THREAD; i++)
      assert_int_equal(blocks[t][i][0], (uintptr_t)blocks[t][i]);
  assert_true(knit_shared_mapped() >= THREADS * PER_THREAD * 24u);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alignment_and_zeroing),
      cmocka_unit_test(test_large_request_keeps_current_chunk),
      cmocka_unit_test(test_limit),
      cmocka_unit_test(test_shared_concurrent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
