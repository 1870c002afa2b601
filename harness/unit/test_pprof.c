/* The pprof export's parts (report/pprof.h, pprof_tables.h,
 * pprof_output.h): values in the profile's units, the string and id
 * tables, and the gzip form zlib reads back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "profiler/report/pprof.h"
#include "profiler/report/pprof_output.h"
#include "profiler/report/pprof_tables.h"

static knit_measurement measurement_of(const char *event, uint64_t period)
{
  knit_measurement m;
  memset(&m, 0, sizeof m);
  snprintf(m.event, sizeof m.event, "%s", event);
  m.period = period;
  return m;
}

static void test_timer_values_in_nanoseconds(void **state)
{
  (void)state;
  knit_measurement m = measurement_of("CPUTIME", 1000000);
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_SAMPLES), "cpu");
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_OMP_IDLE), "OMP_IDLE");
  assert_string_equal(knit_pprof_unit(&m), "nanoseconds");
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, 3), 3000000);
  /* Blame in milli-periods: 1.5 periods, then 1 milli-period = 1 us. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_MUTEX_WAIT, 1500), 1500000);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1), 1000);
  /* Past int64: the largest value, not a wrapped one. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, UINT64_MAX / 2), INT64_MAX);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, UINT64_MAX), INT64_MAX);

  knit_measurement wall = measurement_of("REALTIME", 250);
  assert_string_equal(knit_pprof_type_name(&wall, KNIT_METRIC_SAMPLES), "wall");
  assert_int_equal(knit_pprof_value(&wall, KNIT_METRIC_SAMPLES, 4), 1000);
  /* 1.002 periods of 250 ns: 250 + 0.5, the half cut off. */
  assert_int_equal(knit_pprof_value(&wall, KNIT_METRIC_OMP_IDLE, 1002), 250);
}

static void test_probe_values_in_counts(void **state)
{
  (void)state;
  knit_measurement m = measurement_of("PROBE", 0);
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_SAMPLES), "probes");
  assert_string_equal(knit_pprof_unit(&m), "count");
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, 7), 7);
  /* Blame rounded to whole periods. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1499), 1);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1500), 2);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 499), 0);
}

static void test_strings_deduplicated(void **state)
{
  (void)state;
  knit_pprof_strings t;
  assert_int_equal(knit_pprof_strings_init(&t), 0);
  assert_int_equal(t.count, 1);
  assert_string_equal(t.strings[0], "");
  assert_int_equal(knit_pprof_string(&t, ""), 0);
  assert_int_equal(knit_pprof_string(&t, NULL), 0);
  assert_int_equal(knit_pprof_string(&t, "main"), 1);
  assert_int_equal(knit_pprof_string(&t, "cpu"), 2);
  assert_int_equal(knit_pprof_string(&t, "main"), 1);
  /* Many more: the table grows and still finds the first ones. */
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "f%d", i);
    assert_int_equal(knit_pprof_string(&t, name), 3 + i);
  }
  for (int i = 0; i < 5000; i += 7) {
    snprintf(name, sizeof name, "f%d", i);
    assert_int_equal(knit_pprof_string(&t, name), 3 + i);
  }
  assert_int_equal(knit_pprof_string(&t, "cpu"), 2);
  assert_int_equal(t.count, 5003);
  knit_pprof_strings_free(&t);
}

static void test_ids_by_key(void **state)
{
  (void)state;
  knit_pprof_ids t = {0};
  int added;
  const uint64_t a[3] = {1, 0, 0x401000}, b[3] = {1, 1, 0x401000}, c[3] = {2, 0, 0x401000};
  assert_int_equal(knit_pprof_id(&t, a, &added), 1);
  assert_true(added);
  assert_int_equal(knit_pprof_id(&t, b, &added), 2);
  assert_true(added);
  assert_int_equal(knit_pprof_id(&t, a, &added), 1);
  assert_false(added);
  assert_int_equal(knit_pprof_id(&t, c, &added), 3);
  for (uint64_t i = 0; i < 3000; i++) {
    const uint64_t k[3] = {7, i, i * 3};
    assert_int_equal(knit_pprof_id(&t, k, &added), 4 + i);
  }
  assert_int_equal(knit_pprof_id(&t, b, &added), 2);
  assert_false(added);
  assert_memory_equal(t.keys[2], c, sizeof c);
  knit_pprof_ids_free(&t);
}

/* The gzip form: a gzip header (1f 8b), and zlib inflates it back. */
static void test_gzip_round_trip(void **state)
{
  (void)state;
  uint8_t data[5000];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i * 7 % 251);
  knit_pb gz = {0};
  assert_int_equal(knit_pprof_gzip(data, sizeof data, &gz), 0);
  assert_true(gz.len > 18);
  assert_int_equal(gz.data[0], 0x1f);
  assert_int_equal(gz.data[1], 0x8b);
  uint8_t back[6000];
  z_stream z;
  memset(&z, 0, sizeof z);
  assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = gz.data;
  z.avail_in = (uInt)gz.len;
  z.next_out = back;
  z.avail_out = sizeof back;
  assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
  assert_int_equal(sizeof back - z.avail_out, sizeof data);
  assert_memory_equal(back, data, sizeof data);
  inflateEnd(&z);
  knit_pb_free(&gz);

  /* Nothing at all still makes a whole gzip file. */
  assert_int_equal(knit_pprof_gzip(NULL, 0, &gz), 0);
  assert_int_equal(gz.data[0], 0x1f);
  knit_pb_free(&gz);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timer_values_in_nanoseconds),
      cmocka_unit_test(test_probe_values_in_counts),
      cmocka_unit_test(test_strings_deduplicated),
      cmocka_unit_test(test_ids_by_key),
      cmocka_unit_test(test_gzip_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
