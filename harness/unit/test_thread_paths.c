/* Paths into a thread's calling-context tree (core/thread_paths.c): the
 * walk that starts below the frames a path shares with the one before must
 * give exactly the nodes a walk from the root gives, for paths that share
 * any prefix, are shorter or longer than the last, or longer than the
 * frames remembered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cct/cct.h"
#include "core/thread.h"

/* The node of path in a tree of its own, walked from the root. */
static uint32_t plain(knit_cct *t, const knit_path_frame *path, int n)
{
  uint32_t node = 0;
  for (int i = 0; i < n; i++)
    node = knit_cct_child(t, node, path[i].module, path[i].offset, path[i].kind);
  return node;
}

static uint32_t id_of(const knit_cct *t, const knit_cct_node *n)
{
  for (uint32_t id = 0; id < t->count; id++)
    if (knit_cct_node_at(t, id) == n)
      return id;
  return UINT32_MAX;
}

static void test_same_nodes_as_from_the_root(void **state)
{
  (void)state;
  knit_thread *th = calloc(1, sizeof *th);
  knit_arena_init(&th->arena, 0, 0);
  assert_true(knit_cct_init(&th->cct, &th->arena));
  th->last_path = knit_arena_alloc(&th->arena, KNIT_LAST_PATH_FRAMES * sizeof *th->last_path, 64);
  th->last_nodes = knit_arena_alloc(&th->arena, KNIT_LAST_PATH_FRAMES * sizeof *th->last_nodes, 64);
  knit_arena ref_arena;
  knit_arena_init(&ref_arena, 0, 0);
  knit_cct ref;
  assert_true(knit_cct_init(&ref, &ref_arena));

  enum { MAX = KNIT_LAST_PATH_FRAMES + 40, ROUNDS = 3000 };
  knit_path_frame *path = calloc(MAX, sizeof *path);
  unsigned seed = 7;
  int n = 0;
  for (int r = 0; r < ROUNDS; r++) {
    seed = seed * 1103515245u + 12345u;
    /* Keep a prefix of the last path (any length, none included), then
     * new frames; now and then a path past the frames remembered. */
    int keep = n ? (int)((seed >> 8) % (unsigned)(n + 1)) : 0;
    int len = (seed >> 20) % 16 == 0 ? KNIT_LAST_PATH_FRAMES + 1 + (int)(seed % 39)
                                     : 1 + (int)((seed >> 4) % 60);
    if (len < keep)
      len = keep;
    for (int i = keep; i < len; i++) {
      seed = seed * 1103515245u + 12345u;
      path[i] = (knit_path_frame){0x1000 + (seed >> 16) % 4, 1 + (seed >> 10) % 2,
                                  (uint8_t)(i == len - 1 ? KNIT_NODE_SAMPLE : KNIT_NODE_CALL)};
    }
    n = len;
    knit_cct_node *got = knit_thread_path_node(th, path, n);
    uint32_t want = plain(&ref, path, n);
    /* Both trees made their nodes in the same order: the same ids. */
    assert_int_equal(id_of(&th->cct, got), want);
  }
  assert_int_equal(th->cct.count, ref.count);
  free(path);
  knit_arena_release(&ref_arena);
  knit_arena_release(&th->arena);
  free(th);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_nodes_as_from_the_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
