/* The trace ring (core/trace_ring.h): order across the wrap, refused
 * events counted and reported in the stream, a consumer that refuses a
 * span, and one producer with one consumer on two threads. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/trace_ring.h"

/* A consumer that keeps what it is given. */
typedef struct taken {
  knit_trace_record records[4096];
  size_t count;
  int refuse; /* refuse every span while set */
  size_t spans;
} taken;

static int keep(void *ctx, const knit_trace_record *records, size_t n)
{
  taken *k = ctx;
  if (k->refuse)
    return -1;
  k->spans++;
  for (size_t i = 0; i < n && k->count < 4096; i++)
    k->records[k->count++] = records[i];
  return 0;
}

static knit_trace_ring *make_ring(uint32_t capacity)
{
  knit_trace_ring *r = calloc(1, knit_trace_ring_bytes(capacity));
  assert_non_null(r);
  knit_trace_ring_init(r, capacity);
  return r;
}

static void test_order_across_wrap(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  uint64_t next = 0;
  /* Five records a round into eight slots: every round after the first
   * wraps somewhere else, and a wrapped drain hands over two spans. */
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < 5; i++, next++)
      assert_true(knit_trace_ring_push(r, 1000 + next, (uint32_t)next, KNIT_TRACE_SAMPLE));
    assert_int_equal(knit_trace_ring_pending(r), 5);
    assert_int_equal(knit_trace_ring_drain(r, keep, k), 5);
    assert_int_equal(knit_trace_ring_pending(r), 0);
  }
  assert_int_equal(k->count, 100);
  for (size_t i = 0; i < k->count; i++) {
    assert_int_equal(k->records[i].node, i);
    assert_int_equal(k->records[i].time_ns, 1000 + i);
    assert_int_equal(k->records[i].kind, KNIT_TRACE_SAMPLE);
  }
  assert_true(k->spans > 20);
  assert_int_equal(atomic_load(&r->dropped_total), 0);
  free(k);
  free(r);
}

static void test_full_ring_counts_drops(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  for (uint32_t i = 0; i < 8; i++)
    assert_true(knit_trace_ring_push(r, i, i, KNIT_TRACE_IDLE_BEGIN));
  /* Full: three refused, counted. */
  for (uint32_t i = 8; i < 11; i++)
    assert_false(knit_trace_ring_push(r, i, i, KNIT_TRACE_IDLE_END));
  assert_int_equal(atomic_load(&r->dropped), 3);
  assert_int_equal(atomic_load(&r->dropped_total), 3);
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 8);
  /* With room again, the count goes in first, at the next event's time. */
  assert_true(knit_trace_ring_push(r, 50, 7, KNIT_TRACE_SAMPLE));
  assert_int_equal(knit_trace_ring_pending(r), 2);
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 2);
  assert_int_equal(k->count, 10);
  assert_int_equal(k->records[8].kind, KNIT_TRACE_DROPPED);
  assert_int_equal(k->records[8].node, 3);
  assert_int_equal(k->records[8].time_ns, 50);
  assert_int_equal(k->records[9].kind, KNIT_TRACE_SAMPLE);
  assert_int_equal(k->records[9].node, 7);
  assert_int_equal(atomic_load(&r->dropped), 0);
  assert_int_equal(atomic_load(&r->dropped_total), 3);
  free(k);
  free(r);
}

static void test_drops_left_at_the_end(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(4);
  for (uint32_t i = 0; i < 6; i++)
    knit_trace_ring_push(r, i, i, KNIT_TRACE_SAMPLE);
  /* Three free slots after one is taken: room for the count and one
   * event, which it then holds. */
  taken *k = calloc(1, sizeof *k);
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 4);
  assert_true(knit_trace_ring_push(r, 10, 10, KNIT_TRACE_SAMPLE));
  assert_int_equal(knit_trace_ring_pending(r), 2);
  assert_int_equal(knit_trace_ring_take_dropped(r), 0);
  /* Refused with no push after: the consumer at the end takes the count
   * that no DROPPED record carries. */
  knit_trace_ring_push(r, 11, 11, KNIT_TRACE_SAMPLE);
  knit_trace_ring_push(r, 12, 12, KNIT_TRACE_SAMPLE);
  assert_false(knit_trace_ring_push(r, 13, 13, KNIT_TRACE_SAMPLE));
  assert_false(knit_trace_ring_push(r, 14, 14, KNIT_TRACE_SAMPLE));
  assert_int_equal(knit_trace_ring_take_dropped(r), 2);
  assert_int_equal(knit_trace_ring_take_dropped(r), 0);
  assert_int_equal(atomic_load(&r->dropped_total), 4);
  free(k);
  free(r);
}

static void test_refused_span_stays(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  for (uint32_t i = 0; i < 3; i++)
    knit_trace_ring_push(r, i, i, KNIT_TRACE_BARRIER_BEGIN);
  k->refuse = 1;
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 0);
  assert_int_equal(knit_trace_ring_pending(r), 3);
  k->refuse = 0;
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 3);
  assert_int_equal(k->records[2].node, 2);
  free(k);
  free(r);
}

/* One producer, one consumer, on two threads: every event arrives once, in
 * order, or is counted as dropped. */
#define PUSHED 200000u

typedef struct shared {
  knit_trace_ring *ring;
  _Atomic int done;
} shared;

static void *produce(void *arg)
{
  shared *s = arg;
  for (uint32_t i = 0; i < PUSHED; i++)
    knit_trace_ring_push(s->ring, i, i, KNIT_TRACE_SAMPLE);
  atomic_store(&s->done, 1);
  return NULL;
}

typedef struct checker {
  uint64_t events, told_dropped;
  int64_t last;
  int out_of_order;
} checker;

static int check(void *ctx, const knit_trace_record *records, size_t n)
{
  checker *c = ctx;
  for (size_t i = 0; i < n; i++) {
    if (records[i].kind == KNIT_TRACE_DROPPED) {
      c->told_dropped += records[i].node;
      continue;
    }
    if ((int64_t)records[i].node <= c->last)
      c->out_of_order++;
    c->last = records[i].node;
    c->events++;
  }
  return 0;
}

static void test_two_threads(void **state)
{
  (void)state;
  shared s = {make_ring(256), 0};
  checker c = {0, 0, -1, 0};
  pthread_t producer;
  assert_int_equal(pthread_create(&producer, NULL, produce, &s), 0);
  while (!atomic_load(&s.done))
    knit_trace_ring_drain(s.ring, check, &c);
  pthread_join(producer, NULL);
  knit_trace_ring_drain(s.ring, check, &c);
  c.told_dropped += knit_trace_ring_take_dropped(s.ring);
  assert_int_equal(c.out_of_order, 0);
  assert_int_equal(c.events + c.told_dropped, PUSHED);
  assert_int_equal(c.told_dropped, atomic_load(&s.ring->dropped_total));
  free(s.ring);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_across_wrap),     cmocka_unit_test(test_full_ring_counts_drops),
      cmocka_unit_test(test_drops_left_at_the_end), cmocka_unit_test(test_refused_span_stays),
      cmocka_unit_test(test_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
