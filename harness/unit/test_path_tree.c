/* Creation contexts as interned nodes (ompt/path_tree.c): a context met
 * again is the same node, recursion shares its prefixes, a path reads back
 * whole however it is split, and threads racing to intern one context get
 * one node. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "measure/format.h"
#include "ompt/path_tree.h"

static knit_path_frame call(uint64_t offset)
{
  return (knit_path_frame){offset, 1, KNIT_NODE_CALL};
}

static void test_same_context_is_the_same_node(void **state)
{
  (void)state;
  knit_path_frame main_f[2] = {call(0x10), call(0x20)};
  const knit_call_path *a = knit_path_intern(NULL, main_f, 2);
  const knit_call_path *b = knit_path_intern(NULL, main_f, 2);
  assert_non_null(a);
  assert_ptr_equal(a, b);
  assert_int_equal(a->length, 2);
  knit_path_frame seg[1] = {call(0x30)};
  const knit_call_path *c = knit_path_intern(a, seg, 1);
  assert_ptr_equal(c->parent, a);
  assert_int_equal(c->length, 3);
  assert_int_equal(c->own, 1);
  assert_ptr_equal(knit_path_intern(a, seg, 1), c);
  /* The same frames under another parent are another context. */
  knit_path_frame other[2] = {call(0x10), call(0x21)};
  const knit_call_path *d = knit_path_intern(knit_path_intern(NULL, other, 2), seg, 1);
  assert_ptr_not_equal(d, c);
  /* No frames of its own: the parent's context. */
  assert_ptr_equal(knit_path_intern(c, seg, 0), c);
  assert_null(knit_path_intern(NULL, seg, 0));
}

/* fib -> task -> fib -> ...: 2^depth contexts, each one node of its own
 * segment, none a copy of its prefix. */
static void test_recursion_shares_prefixes(void **state)
{
  (void)state;
  uint64_t nodes0, frames0;
  knit_path_tree_counts(&nodes0, &frames0);
  knit_path_frame root_f[1] = {call(0x1000)};
  const knit_call_path *root = knit_path_intern(NULL, root_f, 1);
  enum { DEPTH = 12 };
  const knit_call_path *level[1u << DEPTH];
  unsigned count = 1;
  level[0] = root;
  for (int d = 0; d < DEPTH; d++) {
    for (unsigned i = count; i-- > 0;) {
      knit_path_frame x[2] = {call(0x2000), call(0x2100)};
      knit_path_frame y[2] = {call(0x2000), call(0x2200)};
      const knit_call_path *p = level[i];
      level[2 * i] = knit_path_intern(p, x, 2);
      level[2 * i + 1] = knit_path_intern(p, y, 2);
    }
    count *= 2;
  }
  uint64_t nodes1, frames1;
  knit_path_tree_counts(&nodes1, &frames1);
  /* One node per context, two frames each, though the deepest paths are
   * 1 + 2 * DEPTH frames long. */
  assert_int_equal(nodes1 - nodes0, 1 + (2u << DEPTH) - 2);
  assert_int_equal(frames1 - frames0, 1 + 2 * ((2u << DEPTH) - 2));
  knit_path_frame out[64];
  const knit_call_path *deep = level[(1u << DEPTH) - 1]; /* y at every level */
  assert_int_equal(deep->length, 1 + 2 * DEPTH);
  assert_int_equal(knit_path_copy(deep, out, 64), 1 + 2 * DEPTH);
  assert_int_equal(out[0].offset, 0x1000);
  for (int d = 0; d < DEPTH; d++) {
    assert_int_equal(out[1 + 2 * d].offset, 0x2000);
    assert_int_equal(out[2 + 2 * d].offset, 0x2200);
  }
  /* Copies stop at max, outermost frames first. */
  knit_path_frame few[3];
  assert_int_equal(knit_path_copy(deep, few, 3), 3);
  assert_int_equal(few[2].offset, 0x2200);
  assert_int_equal(knit_path_copy(NULL, few, 3), 0);
}

static void test_equal_however_split(void **state)
{
  (void)state;
  knit_path_frame all[4] = {call(0x1), call(0x2), call(0x3), call(0x4)};
  const knit_call_path *whole = knit_path_intern(NULL, all, 4);
  const knit_call_path *split = knit_path_intern(knit_path_intern(NULL, all, 1), all + 1, 3);
  assert_ptr_not_equal(whole, split);
  assert_true(knit_path_equal(whole, split));
  assert_true(knit_path_equal(NULL, NULL));
  assert_false(knit_path_equal(whole, NULL));
  knit_path_frame other[4] = {call(0x1), call(0x2), call(0x3), call(0x5)};
  assert_false(knit_path_equal(whole, knit_path_intern(NULL, other, 4)));
  assert_false(knit_path_equal(whole, knit_path_intern(NULL, all, 3)));
}

/* A chain whose depths do not fall (what a runtime that reports a task
 * done twice could leave, a context reused while still a parent): reads
 * end instead of going round for ever. */
static void test_broken_chain_ends(void **state)
{
  (void)state;
  knit_call_path *a = calloc(1, sizeof *a + sizeof(knit_path_frame));
  knit_call_path *b = calloc(1, sizeof *b + sizeof(knit_path_frame));
  a->parent = b;
  b->parent = a;
  a->own = b->own = 1;
  a->length = b->length = 2;
  a->depth = b->depth = 2;
  a->frames[0] = call(0xa);
  b->frames[0] = call(0xb);
  knit_path_frame out[4] = {{0}};
  /* It returns: what it copied of a chain that makes no sense matters
   * less than that. */
  assert_int_equal(knit_path_copy(a, out, 4), 2);
  assert_false(knit_path_equal(a, b));
  free(a);
  free(b);
}

enum { RACERS = 4, CONTEXTS = 2000 };
static const knit_call_path *race_parent;
static const knit_call_path *raced[RACERS][CONTEXTS];

static void *racer(void *arg)
{
  int r = (int)(intptr_t)arg;
  for (int i = 0; i < CONTEXTS; i++) {
    knit_path_frame f[1] = {call(0x9000 + (uint64_t)i)};
    raced[r][i] = knit_path_intern(race_parent, f, 1);
  }
  return NULL;
}

static void test_racing_threads_get_one_node(void **state)
{
  (void)state;
  knit_path_frame p[1] = {call(0x8000)};
  race_parent = knit_path_intern(NULL, p, 1);
  uint64_t nodes0, frames0;
  knit_path_tree_counts(&nodes0, &frames0);
  pthread_t th[RACERS];
  for (int r = 0; r < RACERS; r++)
    assert_int_equal(pthread_create(&th[r], NULL, racer, (void *)(intptr_t)r), 0);
  for (int r = 0; r < RACERS; r++)
    pthread_join(th[r], NULL);
  for (int i = 0; i < CONTEXTS; i++) {
    for (int r = 1; r < RACERS; r++)
      assert_ptr_equal(raced[r][i], raced[0][i]);
    assert_int_equal(raced[0][i]->frames[0].offset, 0x9000 + (uint64_t)i);
  }
  uint64_t nodes1, frames1;
  knit_path_tree_counts(&nodes1, &frames1);
  assert_int_equal(nodes1 - nodes0, CONTEXTS);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_context_is_the_same_node),
      cmocka_unit_test(test_recursion_shares_prefixes),
      cmocka_unit_test(test_equal_however_split),
      cmocka_unit_test(test_broken_chain_ends),
      cmocka_unit_test(test_racing_threads_get_one_node),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
