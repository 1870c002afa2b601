/* The calling-context tree: find-or-insert, id order, growth, and what
 * happens when memory runs out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cct/cct.h"

static void test_root(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 0, 0);
  knit_cct t;
  assert_true(knit_cct_init(&t, &a));
  assert_int_equal(t.count, 1);
  knit_cct_node *root = knit_cct_node_at(&t, 0);
  assert_int_equal(root->module, KNIT_MODULE_PLACEHOLDER);
  assert_int_equal(root->offset, KNIT_PH_ROOT);
  assert_int_equal(root->kind, KNIT_NODE_PLACEHOLDER);
  knit_arena_release(&a);
}

static void test_find_or_insert(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 0, 0);
  knit_cct t;
  assert_true(knit_cct_init(&t, &a));
  uint32_t main_ = knit_cct_child(&t, 0, 1, 0x1000, KNIT_NODE_CALL);
  uint32_t f = knit_cct_child(&t, main_, 1, 0x2000, KNIT_NODE_CALL);
  assert_int_equal(knit_cct_child(&t, 0, 1, 0x1000, KNIT_NODE_CALL), main_);
  assert_int_equal(knit_cct_child(&t, main_, 1, 0x2000, KNIT_NODE_CALL), f);
  /* Any difference in the key makes another node. */
  uint32_t as_sample = knit_cct_child(&t, main_, 1, 0x2000, KNIT_NODE_SAMPLE);
  uint32_t other_module = knit_cct_child(&t, main_, 2, 0x2000, KNIT_NODE_CALL);
  uint32_t other_parent = knit_cct_child(&t, f, 1, 0x2000, KNIT_NODE_CALL);
  assert_int_not_equal(as_sample, f);
  assert_int_not_equal(other_module, f);
  assert_int_not_equal(other_parent, f);
  assert_int_equal(t.count, 6);
  assert_int_equal(knit_cct_node_at(&t, other_parent)->parent, f);
  knit_arena_release(&a);
}

/* A deep path and a wide fan-out, past several chunk and bucket growths:
 * every node keeps its key, parents precede children, lookups still hit. */
static void test_growth(void **state)
{
  (void)state;
  knit_arena a;
  knit_arena_init(&a, 0, 0);
  knit_cct t;
  assert_true(knit_cct_init(&t, &a));
  uint32_t node = 0;
  for (uint32_t d = 0; d < 5000; d++)
    node = knit_cct_child(&t, node, 3, d, KNIT_NODE_CALL);
  for (uint32_t w = 0; w < 20000; w++)
    knit_cct_child(&t, 0, 4, w, KNIT_NODE_SAMPLE);
  assert_int_equal(t.count, 1 + 5000 + 20000);
  for (uint32_t id = 1; id < t.count; id++)
    assert_true(knit_cct_node_at(&t, id)->parent < id);
  node = 0;
  for (uint32_t d = 0; d < 5000; d++) {
    uint32_t next = knit_cct_child(&t, node, 3, d, KNIT_NODE_CALL);
    assert_int_equal(knit_cct_node_at(&t, next)->offset, d);
    node = next;
  }
  assert_int_equal(t.count, 1 + 5000 + 20000);
  assert_true(t.bucket_count >= 8192);
  knit_arena_release(&a);
}

static void test_out_of_memory_keeps_prefix(void **state)
{
  (void)state;
  knit_arena a;
  /* Chunks of 256 KiB, at most two: room for the buckets and two chunks of
   * nodes (4096 nodes of 56 bytes each), not for a third. */
  knit_arena_init(&a, 256u << 10, 512u << 10);
  knit_cct t;
  assert_true(knit_cct_init(&t, &a));
  uint32_t node = 0, last = 0;
  for (uint32_t d = 0; d < 4 * KNIT_CCT_CHUNK_NODES; d++) {
    last = node;
    node = knit_cct_child(&t, node, 1, d, KNIT_NODE_CALL);
    if (node == last)
      break;
  }
  /* Insertion stopped at the arena's limit and fell back to the parent. */
  assert_int_equal(node, last);
  assert_true(t.dropped > 0);
  assert_true(t.count <= 2 * KNIT_CCT_CHUNK_NODES);
  knit_arena_release(&a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_root),
      cmocka_unit_test(test_find_or_insert),
      cmocka_unit_test(test_growth),
      cmocka_unit_test(test_out_of_memory_keeps_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
