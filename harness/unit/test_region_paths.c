/* Region paths captured after the fork (ompt/region_paths.c): tickets,
 * their resolution, and the samples a thread keeps while it waits for one.
 * The capture itself is replaced by a counter that hands out fixed paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <omp-tools.h>

#include "cct/cct.h"
#include "core/session.h"
#include "core/thread.h"
#include "measure/format.h"
#include "ompt/blame.h"
#include "gomp/gomp_interpose.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"

/* --- what region_paths.c calls, standing in for the tool --- */
knit_session knit_the_session = {.defer_captures = true};
knit_ompt knit_ompt_runtime = {.implicit_tasks = true};
static knit_thread *current;
knit_thread *knit_thread_self(void)
{
  return current;
}
knit_thread *knit_thread_list(void)
{
  return NULL;
}
void knit_log_line(const char *line)
{
  (void)line;
}
bool knit_gomp_current_task(ompt_frame_t *frame, const void **prefix)
{
  (void)frame;
  (void)prefix;
  return false;
}
const void *knit_task_prefix_word(int flags, ompt_data_t *task_data, ompt_data_t *parallel_data,
                                  const ompt_frame_t *tf)
{
  (void)flags;
  (void)task_data;
  (void)tf;
  return parallel_data ? parallel_data->ptr : NULL;
}

/* Signals missed during a capture: none in these tests, which send none. */
void knit_take_missed(knit_thread *t)
{
  (void)t;
}

/* Samples' trace events: these tests trace nothing. */
void knit_trace_sample(knit_thread *t, uint32_t node, uint64_t time_ns)
{
  (void)t;
  (void)node;
  (void)time_ns;
}

/* The path every capture gives: two frames of module 1. */
static knit_call_path *region_path;
static int captures;
const knit_call_path *knit_capture_call_path(const ompt_frame_t *here, const knit_call_path *outer,
                                             const void *site)
{
  (void)here;
  (void)outer;
  (void)site;
  captures++;
  return region_path;
}

knit_cct_node *knit_thread_path_node(knit_thread *t, const knit_path_frame *path, int n)
{
  uint32_t node = 0;
  for (int i = 0; i < n; i++)
    node = knit_cct_child(&t->cct, node, path[i].module, path[i].offset, path[i].kind);
  return knit_cct_node_at(&t->cct, node);
}

/* Every thread a test makes, released when the tests end. */
static knit_thread *threads_made[64];
static size_t threads_count;

static knit_thread *new_thread(void)
{
  knit_thread *t = calloc(1, sizeof *t);
  assert_true(threads_count < sizeof threads_made / sizeof *threads_made);
  threads_made[threads_count++] = t;
  knit_arena_init(&t->arena, 1u << 20, 64u << 20);
  t->cct_ready = knit_cct_init(&t->cct, &t->arena);
  return t;
}

static int release_threads(void **state)
{
  (void)state;
  for (size_t i = 0; i < threads_count; i++) {
    knit_arena_release(&threads_made[i]->arena);
    free(threads_made[i]);
  }
  threads_count = 0;
  return 0;
}

static const ompt_frame_t no_frame;
static const void *const site = (const void *)0x4000;

/* The node a kept sample's frame (module 2, offset 0x300) went to: its
 * parent's offset says what it was put under. */
static knit_cct_node *kept_node(knit_thread *t, const knit_path_frame *above, int n)
{
  knit_path_frame path[4];
  memcpy(path, above, (size_t)n * sizeof *path);
  path[n] = (knit_path_frame){0x300, 2, KNIT_NODE_CALL};
  return knit_thread_path_node(t, path, n + 1);
}

/* A worker's sample of the region named by word, kept: 3 periods. */
static bool keep_sample(knit_thread *w, const void *word)
{
  knit_sample_state st = {0};
  const knit_call_path *path = NULL;
  assert_false(knit_region_path_peek(word, &path, &st.pending_slot, &st.pending_number));
  knit_path_frame frame = {0x300, 2, KNIT_NODE_CALL};
  uint64_t metrics[KNIT_METRIC_COUNT] = {[KNIT_METRIC_SAMPLES] = 3};
  current = w;
  return knit_deferred_keep(w, &st, &frame, 1, metrics);
}

/* Opens a region on m at the test's call site. */
static void *open_region(knit_thread *m)
{
  current = m;
  return knit_region_open(m, &no_frame, NULL, site, true);
}

/* A thread that has opened a region at the call site once: the site is
 * warm, so its next regions get tickets. */
static knit_thread *warm_master(void)
{
  knit_thread *m = new_thread();
  open_region(m);
  return m;
}

/* A worker that keeps one sample of the region word names. */
static knit_thread *worker_keeping(const void *word)
{
  knit_thread *w = new_thread();
  current = w;
  knit_region_state_of(w);
  assert_true(keep_sample(w, word));
  return w;
}

static void test_first_region_at_a_site_is_captured_at_once(void **state)
{
  (void)state;
  knit_thread *m = new_thread();
  current = m;
  captures = 0;
  void *word = knit_region_open(m, &no_frame, NULL, site, true);
  assert_ptr_equal(word, region_path);
  assert_int_equal(captures, 1);
  /* From the second region on, the capture waits for the thread's task. */
  ompt_data_t region = {.ptr = knit_region_open(m, &no_frame, NULL, site, true)};
  assert_int_equal(captures, 1);
  assert_ptr_not_equal(region.ptr, region_path);
  const knit_call_path *path = NULL;
  knit_region_slot *slot = NULL;
  uint64_t number = 0;
  assert_false(knit_region_path_peek(region.ptr, &path, &slot, &number));
  void *ticket = region.ptr;
  knit_region_task_begins(m);
  assert_int_equal(captures, 2);
  /* The ticket resolves to the path now, with or without waiting. */
  assert_true(knit_region_path_peek(ticket, &path, &slot, &number));
  assert_ptr_equal(path, region_path);
  assert_ptr_equal(knit_region_path_wait(ticket), region_path);
}

static void test_kept_sample_goes_under_its_region_once_resolved(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  void *ticket = open_region(m);
  knit_thread *w = worker_keeping(ticket);
  /* Not resolved yet: it stays. */
  knit_deferred_flush(w, false, false);
  assert_int_equal(w->regions->deferred_count, 1);
  current = m;
  knit_region_task_begins(m);
  current = w;
  knit_deferred_flush(w, false, false);
  assert_int_equal(w->regions->deferred_count, 0);
  assert_int_equal(w->regions->resolved, 1);
  knit_cct_node *node = kept_node(w, region_path->frames, 2);
  assert_int_equal(node->metrics[KNIT_METRIC_SAMPLES], 3);
  assert_int_equal(w->stats[KNIT_STAT_PARTIAL], 0);
}

static const knit_path_frame partial_frame = {KNIT_PH_PARTIAL, KNIT_MODULE_PLACEHOLDER,
                                              KNIT_NODE_PLACEHOLDER};

static void test_sample_of_a_reused_slot_goes_under_partial(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  void *ticket = open_region(m);
  knit_thread *w = worker_keeping(ticket);
  /* The region ends and the next opens at its level, in its slot: the
   * kept sample must not take the new region's path. */
  current = m;
  knit_region_task_begins(m);
  knit_region_task_ends(m);
  void *next = open_region(m);
  assert_ptr_equal(next, ticket);
  knit_region_task_begins(m);
  current = w;
  knit_deferred_flush(w, false, false);
  assert_int_equal(w->regions->deferred_count, 0);
  assert_int_equal(w->regions->unresolved, 1);
  assert_int_equal(kept_node(w, &partial_frame, 1)->metrics[KNIT_METRIC_SAMPLES], 3);
  assert_int_equal(w->stats[KNIT_STAT_PARTIAL], 1);
}

static void test_open_region_keeps_its_slot_through_nested_ones(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  void *outer = open_region(m);
  knit_region_task_begins(m);
  /* Inside its task, the master opens region after region: each takes the
   * next level's slot, never the open region's. */
  for (int i = 0; i < 3 * KNIT_REGION_SLOTS; i++) {
    void *inner = open_region(m);
    assert_ptr_not_equal(inner, outer);
    knit_region_task_begins(m);
    knit_region_task_ends(m);
  }
  assert_ptr_equal(knit_region_path_wait(outer), region_path);
  knit_region_task_ends(m);
  assert_int_equal(m->regions->open, 0);
}

static void test_regions_nested_deeper_than_the_board_are_captured_at_once(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  for (int i = 0; i < KNIT_REGION_SLOTS; i++) {
    void *word = open_region(m);
    assert_ptr_not_equal(word, region_path);
    knit_region_task_begins(m);
  }
  captures = 0;
  assert_ptr_equal(open_region(m), region_path);
  assert_int_equal(captures, 1);
  /* The runtime cannot wait for the task either: captured at once. */
  knit_thread *other = new_thread();
  current = other;
  knit_region_open(other, &no_frame, NULL, site, false);
  assert_ptr_equal(knit_region_open(other, &no_frame, NULL, site, false), region_path);
}

static void test_region_without_a_task_is_never_waited_for(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  void *lost = open_region(m);
  knit_thread *w = worker_keeping(lost);
  /* The runtime never gave the master its task: the next region (or
   * parallel_end) gives the first up, and waiting for it ends at once. */
  current = m;
  open_region(m);
  assert_int_equal(m->regions->untasked, 1);
  assert_null(knit_region_path_wait(lost));
  current = w;
  knit_deferred_flush(w, true, false);
  assert_int_equal(w->regions->unresolved, 1);
  assert_int_equal(kept_node(w, &partial_frame, 1)->metrics[KNIT_METRIC_SAMPLES], 3);
}

static void test_kept_samples_are_bounded_and_given_up_at_the_end(void **state)
{
  (void)state;
  knit_thread *m = warm_master();
  void *ticket = open_region(m);
  knit_thread *w = worker_keeping(ticket);
  for (int i = 1; i < KNIT_DEFERRED_SAMPLES; i++)
    assert_true(keep_sample(w, ticket));
  /* Full: the sampler puts the next one under <partial> itself. */
  assert_false(keep_sample(w, ticket));
  /* The thread's end: what is still kept goes under <partial>, counted. */
  knit_deferred_flush(w, false, true);
  assert_int_equal(w->regions->deferred_count, 0);
  assert_int_equal(kept_node(w, &partial_frame, 1)->metrics[KNIT_METRIC_SAMPLES],
                   3 * KNIT_DEFERRED_SAMPLES);
  assert_int_equal(w->stats[KNIT_STAT_PARTIAL], KNIT_DEFERRED_SAMPLES);
}

static void test_without_deferral_every_region_is_captured_at_once(void **state)
{
  (void)state;
  knit_thread *m = new_thread();
  current = m;
  knit_the_session.defer_captures = false;
  captures = 0;
  for (int i = 0; i < 3; i++)
    assert_ptr_equal(knit_region_open(m, &no_frame, NULL, site, true), region_path);
  assert_int_equal(captures, 3);
  knit_the_session.defer_captures = true;
}

int main(void)
{
  region_path = calloc(1, sizeof *region_path + 2 * sizeof(knit_path_frame));
  region_path->length = 2;
  region_path->own = 2;
  region_path->frames[0] = (knit_path_frame){0x100, 1, KNIT_NODE_CALL};
  region_path->frames[1] = (knit_path_frame){0x200, 1, KNIT_NODE_CALL};
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_region_at_a_site_is_captured_at_once),
      cmocka_unit_test(test_kept_sample_goes_under_its_region_once_resolved),
      cmocka_unit_test(test_sample_of_a_reused_slot_goes_under_partial),
      cmocka_unit_test(test_open_region_keeps_its_slot_through_nested_ones),
      cmocka_unit_test(test_regions_nested_deeper_than_the_board_are_captured_at_once),
      cmocka_unit_test(test_region_without_a_task_is_never_waited_for),
      cmocka_unit_test(test_kept_samples_are_bounded_and_given_up_at_the_end),
      cmocka_unit_test(test_without_deferral_every_region_is_captured_at_once),
  };
  int failed = cmocka_run_group_tests(tests, NULL, release_threads);
  free(region_path);
  return failed;
}
