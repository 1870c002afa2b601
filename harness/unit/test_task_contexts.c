/* Transient creation contexts of tasks (ompt/task_contexts.c): a task's
 * context reads back as its whole path, lives while its task or a context
 * under it does, goes back for reuse after, is interned on demand with its
 * ancestors, and stays bounded by the tasks alive at once however many are
 * made, also when tasks end on threads other than their creators'. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/arena.h"
#include "measure/format.h"
#include "ompt/path_tree.h"
#include "ompt/task_contexts.h"

static knit_path_frame call(uint64_t offset)
{
  return (knit_path_frame){offset, 1, KNIT_NODE_CALL};
}

static const knit_call_path *region(void)
{
  knit_path_frame f[2] = {call(0x10), call(0x20)};
  return knit_path_intern(NULL, f, 2);
}

static void counts(uint64_t *made, uint64_t *back, uint64_t *resolved)
{
  knit_task_context_counts(made, back, resolved);
}

static void test_context_reads_back_and_lives_with_its_children(void **state)
{
  (void)state;
  uint64_t made0, back0, res0;
  counts(&made0, &back0, &res0);
  knit_path_frame seg[2] = {call(0x100), call(0x110)};
  const knit_call_path *outer = knit_task_context_make(region(), seg, 2);
  assert_true(knit_path_is_transient(outer));
  knit_path_frame seg2[1] = {call(0x200)};
  const knit_call_path *inner = knit_task_context_make(outer, seg2, 1);
  assert_int_equal(inner->length, 5);
  knit_path_frame out[8];
  assert_int_equal(knit_path_copy(inner, out, 8), 5);
  assert_int_equal(out[0].offset, 0x10);
  assert_int_equal(out[2].offset, 0x100);
  assert_int_equal(out[4].offset, 0x200);
  /* The outer task ends first: its context stays for the inner one's. */
  knit_task_context_release(outer);
  uint64_t made, back, res;
  counts(&made, &back, &res);
  assert_int_equal(made - made0, 2);
  assert_int_equal(back - back0, 0);
  assert_int_equal(knit_path_copy(inner, out, 8), 5);
  assert_int_equal(out[3].offset, 0x110);
  /* The inner one ends: both go back. */
  knit_task_context_release(inner);
  counts(&made, &back, &res);
  assert_int_equal(back - back0, 2);
  /* Interned contexts and NULL are never given back. */
  knit_task_context_release(region());
  knit_task_context_release(NULL);
  counts(&made, &back, &res);
  assert_int_equal(back - back0, 2);
}

static void test_nothing_of_its_own_under_interned_is_the_parent(void **state)
{
  (void)state;
  assert_ptr_equal(knit_task_context_make(region(), NULL, 0), region());
  /* Under a transient one it holds a reference of its own. */
  knit_path_frame seg[1] = {call(0x300)};
  const knit_call_path *outer = knit_task_context_make(region(), seg, 1);
  const knit_call_path *empty = knit_task_context_make(outer, NULL, 0);
  assert_ptr_not_equal(empty, outer);
  assert_int_equal(empty->length, outer->length);
  knit_task_context_release(outer);
  knit_task_context_release(empty);
}

static void test_resolve_interns_once_with_ancestors(void **state)
{
  (void)state;
  knit_path_frame a[1] = {call(0x400)}, b[2] = {call(0x410), call(0x420)};
  const knit_call_path *ta = knit_task_context_make(region(), a, 1);
  const knit_call_path *tb = knit_task_context_make(ta, b, 2);
  const knit_call_path *node = knit_path_resolve(tb);
  assert_false(knit_path_is_transient(node));
  assert_true(knit_path_equal(node, tb));
  assert_false(knit_path_is_transient(node->parent));
  assert_ptr_equal(node->parent, knit_path_resolve(ta));
  /* The interned form is the eager capture's node. */
  assert_ptr_equal(node, knit_path_intern(knit_path_intern(region(), a, 1), b, 2));
  assert_ptr_equal(knit_path_resolve(tb), node);
  assert_ptr_equal(knit_path_resolve(region()), region());
  knit_task_context_release(ta);
  knit_task_context_release(tb);
  /* A segment too long for a slot is interned at once. */
  knit_path_frame many[KNIT_TASK_CONTEXT_FRAMES + 1];
  for (int i = 0; i <= KNIT_TASK_CONTEXT_FRAMES; i++)
    many[i] = call(0x500 + (uint64_t)i);
  const knit_call_path *long_one =
      knit_task_context_make(region(), many, KNIT_TASK_CONTEXT_FRAMES + 1);
  assert_false(knit_path_is_transient(long_one));
  assert_int_equal(long_one->length, 2 + KNIT_TASK_CONTEXT_FRAMES + 1);
}

/* Recursive tasks, a deep chain made and ended many times: the memory
 * taken stays what the first chain took. */
static void test_memory_follows_live_tasks(void **state)
{
  (void)state;
  enum { DEPTH = 40 };
  const knit_call_path *chain[DEPTH];
  size_t before = 0;
  for (int round = 0; round < 2000; round++) {
    const knit_call_path *up = region();
    for (int d = 0; d < DEPTH; d++) {
      knit_path_frame f[2] = {call(0x600), call(0x600 + (uint64_t)(round & 1) + 1)};
      up = chain[d] = knit_task_context_make(up, f, 2);
      assert_non_null(up);
    }
    /* Parents end before their children, as without a taskwait. */
    for (int d = 0; d < DEPTH; d++)
      knit_task_context_release(chain[d]);
    if (round == 0)
      before = knit_shared_mapped();
  }
  assert_int_equal(knit_shared_mapped(), before);
}

/* Tasks made on one thread and ended on another (a steal): contexts go
 * back to their maker, which reuses them. */
enum { HANDED = 20000, BATCH = 100 };
static const knit_call_path *_Atomic mailbox[BATCH];

static void *ender(void *arg)
{
  (void)arg;
  for (int done = 0; done < HANDED;) {
    for (int i = 0; i < BATCH; i++) {
      const knit_call_path *p = atomic_exchange(&mailbox[i], NULL);
      if (p) {
        knit_task_context_release(p);
        done++;
      }
    }
  }
  return NULL;
}

static void test_contexts_ended_elsewhere_come_back(void **state)
{
  (void)state;
  uint64_t made0, back0, res0;
  counts(&made0, &back0, &res0);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, ender, NULL), 0);
  size_t mapped_after_warmup = 0;
  for (int made = 0; made < HANDED;) {
    for (int i = 0; i < BATCH && made < HANDED; i++) {
      if (atomic_load(&mailbox[i]))
        continue;
      knit_path_frame f[1] = {call(0x700)};
      atomic_store(&mailbox[i], knit_task_context_make(region(), f, 1));
      made++;
    }
    if (!mapped_after_warmup && made >= HANDED / 2)
      mapped_after_warmup = knit_shared_mapped();
  }
  pthread_join(th, NULL);
  uint64_t made, back, res;
  counts(&made, &back, &res);
  assert_int_equal(made - made0, HANDED);
  assert_int_equal(back - back0, HANDED);
  /* Bounded: at most a few chunks of slots beyond the mailbox's worth. */
  assert_true(knit_shared_mapped() - mapped_after_warmup <= (1u << 20));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_context_reads_back_and_lives_with_its_children),
      cmocka_unit_test(test_nothing_of_its_own_under_interned_is_the_parent),
      cmocka_unit_test(test_resolve_interns_once_with_ancestors),
      cmocka_unit_test(test_memory_follows_live_tasks),
      cmocka_unit_test(test_contexts_ended_elsewhere_come_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
