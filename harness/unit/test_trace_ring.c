/* The trace ring (core/trace_ring.h): order across the wrap, refused
 * events counted and reported in the stream, a consumer that refuses a
 * span, a short state's begin taken back (and kept when a sample, another
 * record, a refused push or a consumer came between), and one producer
 * with one consumer on two threads, with and without taking back. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/trace_ring.h"
#include "measure/short_state.h"

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

/* The bound the recording and the Chrome export share. */
static void test_short_state_bound(void **state)
{
  (void)state;
  assert_int_equal(knit_short_state_ns(1000000), 10000);   /* 1 kHz: 10 us */
  assert_int_equal(knit_short_state_ns(500000), 5000);     /* 2 kHz: 5 us */
  assert_int_equal(knit_short_state_ns(0), 10000);         /* PROBE: 1 ms */
  assert_int_equal(knit_short_state_ns(100000000), 10000); /* 10 Hz: at most 10 us */
  assert_true(knit_trace_kind_begins_state(KNIT_TRACE_BARRIER_BEGIN));
  assert_true(knit_trace_kind_ends_state(KNIT_TRACE_BARRIER_END));
  assert_false(knit_trace_kind_begins_state(KNIT_TRACE_SAMPLE));
  assert_false(knit_trace_kind_ends_state(KNIT_TRACE_DEVICE_END));
}

static void test_short_state_taken_back(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  assert_true(knit_trace_ring_push(r, 100, 1, KNIT_TRACE_SAMPLE));
  assert_true(knit_trace_ring_push(r, 1000, 1, KNIT_TRACE_BARRIER_BEGIN));
  /* Its end 9.999 us later, the bound 10 us: the begin goes. */
  assert_true(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 10999, 10000));
  assert_int_equal(knit_trace_ring_pending(r), 1);
  assert_int_equal(atomic_load(&r->taken_back), 1);
  /* Exactly the bound is long enough (the export draws it), and a begin
   * of another kind is not this end's. */
  assert_true(knit_trace_ring_push(r, 20000, 1, KNIT_TRACE_IDLE_BEGIN));
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_IDLE_BEGIN, 30000, 10000));
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 20001, 10000));
  assert_true(knit_trace_ring_push(r, 30000, 1, KNIT_TRACE_IDLE_END));
  /* A state inside a state: the inner one goes, and then the outer one's
   * begin is no longer the last push, whatever its length. */
  assert_true(knit_trace_ring_push(r, 40000, 2, KNIT_TRACE_PARALLEL_BEGIN));
  assert_true(knit_trace_ring_push(r, 40001, 2, KNIT_TRACE_LOCK_WAIT_BEGIN));
  assert_true(knit_trace_ring_take_back(r, KNIT_TRACE_LOCK_WAIT_BEGIN, 40002, 10000));
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_PARALLEL_BEGIN, 40003, 10000));
  assert_true(knit_trace_ring_push(r, 40003, 2, KNIT_TRACE_PARALLEL_END));
  /* The slot taken back is pushed again, in order. */
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 5);
  uint32_t kinds[] = {KNIT_TRACE_SAMPLE, KNIT_TRACE_IDLE_BEGIN, KNIT_TRACE_IDLE_END,
                      KNIT_TRACE_PARALLEL_BEGIN, KNIT_TRACE_PARALLEL_END};
  for (size_t i = 0; i < 5; i++)
    assert_int_equal(k->records[i].kind, kinds[i]);
  assert_int_equal(atomic_load(&r->taken_back), 2);
  free(k);
  free(r);
}

/* A sample between a state's begin and its end keeps the begin, however
 * short the state: the timeline would otherwise show a sample in no
 * state. */
static void test_sample_between_keeps_begin(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  assert_true(knit_trace_ring_push(r, 1000, 3, KNIT_TRACE_IDLE_BEGIN));
  assert_true(knit_trace_ring_push(r, 1001, 4, KNIT_TRACE_SAMPLE));
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_IDLE_BEGIN, 1002, 10000));
  assert_true(knit_trace_ring_push(r, 1002, 4, KNIT_TRACE_IDLE_END));
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 3);
  assert_int_equal(k->records[0].kind, KNIT_TRACE_IDLE_BEGIN);
  assert_int_equal(k->records[1].kind, KNIT_TRACE_SAMPLE);
  assert_int_equal(k->records[2].kind, KNIT_TRACE_IDLE_END);
  assert_int_equal(atomic_load(&r->taken_back), 0);
  free(k);
  free(r);
}

/* A begin a consumer has looked at stays: it may be in the file already.
 * So does one after a refused push, which came between. */
static void test_seen_or_refused_keeps_begin(void **state)
{
  (void)state;
  knit_trace_ring *r = make_ring(8);
  taken *k = calloc(1, sizeof *k);
  assert_true(knit_trace_ring_push(r, 1000, 1, KNIT_TRACE_BARRIER_BEGIN));
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 1);
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 1001, 10000));
  /* A drain that its sink refused has still looked. */
  assert_true(knit_trace_ring_push(r, 2000, 1, KNIT_TRACE_BARRIER_BEGIN));
  k->refuse = 1;
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 0);
  k->refuse = 0;
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 2001, 10000));
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 1);
  /* Full, with a begin last: a refused sample comes between. */
  for (uint32_t i = 0; i < 7; i++)
    assert_true(knit_trace_ring_push(r, 3000 + i, i, KNIT_TRACE_SAMPLE));
  assert_true(knit_trace_ring_push(r, 3010, 1, KNIT_TRACE_BARRIER_BEGIN));
  assert_false(knit_trace_ring_push(r, 3011, 1, KNIT_TRACE_SAMPLE));
  assert_false(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 3012, 10000));
  /* Full, with nothing refused: taking back needs no room. */
  assert_int_equal(knit_trace_ring_drain(r, keep, k), 8);
  assert_true(knit_trace_ring_push(r, 4000, 9, KNIT_TRACE_SAMPLE)); /* and the count */
  for (uint32_t i = 0; i < 5; i++)
    assert_true(knit_trace_ring_push(r, 4001 + i, i, KNIT_TRACE_SAMPLE));
  assert_true(knit_trace_ring_push(r, 4010, 1, KNIT_TRACE_BARRIER_BEGIN));
  assert_int_equal(knit_trace_ring_pending(r), 8);
  assert_true(knit_trace_ring_take_back(r, KNIT_TRACE_BARRIER_BEGIN, 4011, 10000));
  assert_int_equal(knit_trace_ring_pending(r), 7);
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

/* The same with states, each begin taken back when its end comes if the
 * consumer has not looked at it yet: the consumer sees a begin only if it
 * was not taken back, never twice, and its end right after it (a begin
 * taken back while a drain wrote it out would break one or the other). */
typedef struct state_shared {
  knit_trace_ring *ring;
  _Atomic int done;
  unsigned char *taken_back; /* by the producer, per state */
  uint64_t refused_begins;
} state_shared;

static void *produce_states(void *arg)
{
  state_shared *s = arg;
  for (uint32_t i = 0; i < PUSHED; i++) {
    if (!knit_trace_ring_push(s->ring, i, i, KNIT_TRACE_BARRIER_BEGIN))
      s->refused_begins++;
    /* Now and then a pause between the two, in which the consumer, on
     * another core or this one, may look. */
    if (i % 64 == 0)
      sched_yield();
    else
      for (volatile uint32_t spin = 0; spin < i % 128; spin++)
        ;
    if (knit_trace_ring_take_back(s->ring, KNIT_TRACE_BARRIER_BEGIN, i, 1))
      s->taken_back[i] = 1;
    else
      knit_trace_ring_push(s->ring, i, i, KNIT_TRACE_BARRIER_END);
  }
  atomic_store(&s->done, 1);
  return NULL;
}

typedef struct state_checker {
  unsigned char *seen; /* begins seen, per state */
  int64_t open;        /* the begin seen last, not yet ended; -1: none */
  int twice, unmatched;
} state_checker;

static int check_states(void *ctx, const knit_trace_record *records, size_t n)
{
  state_checker *c = ctx;
  for (size_t i = 0; i < n; i++) {
    if (records[i].kind == KNIT_TRACE_BARRIER_BEGIN) {
      if (c->seen[records[i].node]++)
        c->twice++;
      c->open = records[i].node;
    } else if (records[i].kind == KNIT_TRACE_BARRIER_END) {
      /* An end without its begin: the begin was refused, or is the
       * last refusal a DROPPED record counts. */
      if (c->open >= 0 && c->open != (int64_t)records[i].node)
        c->unmatched++;
      c->open = -1;
    } else if (records[i].kind == KNIT_TRACE_DROPPED) {
      c->open = -1;
    }
  }
  return 0;
}

static void test_two_threads_taking_back(void **state)
{
  (void)state;
  state_shared s = {make_ring(256), 0, calloc(PUSHED, 1), 0};
  state_checker c = {calloc(PUSHED, 1), -1, 0, 0};
  assert_non_null(s.taken_back);
  assert_non_null(c.seen);
  pthread_t producer;
  assert_int_equal(pthread_create(&producer, NULL, produce_states, &s), 0);
  while (!atomic_load(&s.done))
    knit_trace_ring_drain(s.ring, check_states, &c);
  pthread_join(producer, NULL);
  knit_trace_ring_drain(s.ring, check_states, &c);
  assert_int_equal(c.twice, 0);
  assert_int_equal(c.unmatched, 0);
  uint64_t seen = 0, taken = 0, both = 0;
  for (uint32_t i = 0; i < PUSHED; i++) {
    seen += c.seen[i];
    taken += s.taken_back[i];
    both += c.seen[i] && s.taken_back[i];
  }
  assert_int_equal(both, 0);
  assert_int_equal(seen + taken + s.refused_begins, PUSHED);
  assert_int_equal(taken, atomic_load(&s.ring->taken_back));
  /* Both happened: the test raced the two. */
  assert_true(taken > 0);
  assert_true(seen > 0);
  free(c.seen);
  free(s.taken_back);
  free(s.ring);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_across_wrap),
      cmocka_unit_test(test_full_ring_counts_drops),
      cmocka_unit_test(test_drops_left_at_the_end),
      cmocka_unit_test(test_refused_span_stays),
      cmocka_unit_test(test_short_state_bound),
      cmocka_unit_test(test_short_state_taken_back),
      cmocka_unit_test(test_sample_between_keeps_begin),
      cmocka_unit_test(test_seen_or_refused_keeps_begin),
      cmocka_unit_test(test_two_threads),
      cmocka_unit_test(test_two_threads_taking_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
