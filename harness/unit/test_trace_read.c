/* Reading trace files (measure/read_trace.h): this host's byte order and
 * the other one, a torn last record, unknown kinds, and headers that cannot
 * be trusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "measure/read_trace.h"

/* A file of n records (time 100*i, node i, kinds cycling through the
 * known ones), as a process of this byte order (swap 0) or of the other
 * (swap 1) writes it. */
static uint8_t *make_file(size_t n, int swap, size_t *len)
{
  *len = sizeof(knit_trace_header) + n * sizeof(knit_trace_record);
  uint8_t *data = calloc(1, *len);
  knit_trace_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KNIT_TRACE_MAGIC, sizeof h.magic);
  h.version = swap ? __builtin_bswap32(KNIT_TRACE_VERSION) : KNIT_TRACE_VERSION;
  h.byte_order = swap ? __builtin_bswap32(KNIT_BYTE_ORDER_MARK) : KNIT_BYTE_ORDER_MARK;
  h.tid = swap ? __builtin_bswap32(4242) : 4242;
  h.thread_index = swap ? __builtin_bswap32(3) : 3;
  h.clock = swap ? __builtin_bswap64(1) : 1;
  memcpy(data, &h, sizeof h);
  for (size_t i = 0; i < n; i++) {
    knit_trace_record r = {100 * (uint64_t)i + 0x0102030405ull, (uint32_t)i,
                           (uint32_t)(i % (KNIT_TRACE_KIND_COUNT - 1))};
    if (swap) {
      r.time_ns = __builtin_bswap64(r.time_ns);
      r.node = __builtin_bswap32(r.node);
      r.kind = __builtin_bswap32(r.kind);
    }
    memcpy(data + sizeof h + i * sizeof r, &r, sizeof r);
  }
  return data;
}

static void check_records(const knit_trace_file *f, size_t n)
{
  assert_int_equal(f->header.tid, 4242);
  assert_int_equal(f->header.thread_index, 3);
  assert_int_equal(f->header.clock, 1);
  assert_int_equal(f->count, n);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(f->records[i].time_ns, 100 * (uint64_t)i + 0x0102030405ull);
    assert_int_equal(f->records[i].node, i);
    assert_int_equal(f->records[i].kind, i % (KNIT_TRACE_KIND_COUNT - 1));
  }
}

static void test_both_byte_orders(void **state)
{
  (void)state;
  for (int swap = 0; swap < 2; swap++) {
    size_t len;
    uint8_t *data = make_file(20, swap, &len);
    knit_trace_file f;
    char err[200];
    assert_int_equal(knit_trace_file_parse(data, len, &f, err, sizeof err), 0);
    assert_int_equal(f.other_byte_order, swap);
    assert_int_equal(f.torn_bytes, 0);
    assert_int_equal(f.bad_kinds, 0);
    check_records(&f, 20);
    knit_trace_file_free(&f);
    free(data);
  }
}

static void test_torn_last_record(void **state)
{
  (void)state;
  for (int swap = 0; swap < 2; swap++) {
    size_t len;
    uint8_t *data = make_file(5, swap, &len);
    knit_trace_file f;
    char err[200];
    /* Cut inside the fifth record: the four before it are kept. */
    assert_int_equal(knit_trace_file_parse(data, len - 7, &f, err, sizeof err), 0);
    assert_int_equal(f.torn_bytes, sizeof(knit_trace_record) - 7);
    check_records(&f, 4);
    knit_trace_file_free(&f);
    /* The header alone: a trace without events. */
    assert_int_equal(knit_trace_file_parse(data, sizeof(knit_trace_header), &f, err, sizeof err),
                     0);
    assert_int_equal(f.count, 0);
    knit_trace_file_free(&f);
    free(data);
  }
}

static void test_unknown_kind_skipped(void **state)
{
  (void)state;
  size_t len;
  uint8_t *data = make_file(3, 0, &len);
  knit_trace_record bad = {7, 1, 999};
  memcpy(data + sizeof(knit_trace_header) + sizeof bad, &bad, sizeof bad);
  knit_trace_file f;
  char err[200];
  assert_int_equal(knit_trace_file_parse(data, len, &f, err, sizeof err), 0);
  assert_int_equal(f.bad_kinds, 1);
  assert_int_equal(f.count, 2);
  assert_int_equal(f.records[1].node, 2);
  knit_trace_file_free(&f);
  free(data);
}

static void test_bad_headers(void **state)
{
  (void)state;
  size_t len;
  uint8_t *data = make_file(2, 0, &len);
  knit_trace_file f;
  char err[200];
  assert_int_equal(knit_trace_file_parse(data, 20, &f, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated"));
  assert_null(f.records);
  data[0] = 'X';
  assert_int_equal(knit_trace_file_parse(data, len, &f, err, sizeof err), -1);
  assert_non_null(strstr(err, "bad magic"));
  data[0] = 'K';
  uint32_t version = 2;
  memcpy(data + offsetof(knit_trace_header, version), &version, sizeof version);
  assert_int_equal(knit_trace_file_parse(data, len, &f, err, sizeof err), -1);
  assert_non_null(strstr(err, "version 2"));
  version = KNIT_TRACE_VERSION;
  memcpy(data + offsetof(knit_trace_header, version), &version, sizeof version);
  uint32_t mark = 0x04030201u + 1;
  memcpy(data + offsetof(knit_trace_header, byte_order), &mark, sizeof mark);
  assert_int_equal(knit_trace_file_parse(data, len, &f, err, sizeof err), -1);
  assert_non_null(strstr(err, "byte-order mark"));
  free(data);
}

static void test_file_names(void **state)
{
  (void)state;
  uint32_t index, tid;
  assert_true(knit_trace_file_name("trace-12-4567.knit", &index, &tid));
  assert_int_equal(index, 12);
  assert_int_equal(tid, 4567);
  assert_false(knit_trace_file_name("thread-12-4567.knit", &index, &tid));
  assert_false(knit_trace_file_name("trace-12-4567.knit.tmp", &index, &tid));
  assert_false(knit_trace_file_name("trace-12.knit", &index, &tid));
  /* A device's trace is no thread's, and a thread's no device's. */
  uint32_t device;
  assert_false(knit_trace_file_name("trace-device-0.knit", &index, &tid));
  assert_true(knit_trace_device_file_name("trace-device-3.knit", &device));
  assert_int_equal(device, 3);
  assert_false(knit_trace_device_file_name("trace-3-4567.knit", &device));
  assert_false(knit_trace_device_file_name("trace-device-3.knit.tmp", &device));
  assert_false(knit_trace_device_file_name("trace-device-.knit", &device));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_both_byte_orders),     cmocka_unit_test(test_torn_last_record),
      cmocka_unit_test(test_unknown_kind_skipped), cmocka_unit_test(test_bad_headers),
      cmocka_unit_test(test_file_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
