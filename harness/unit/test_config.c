/* The event syntax shared by `knit record` and libknit.so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/config.h"

static void test_good(void **state)
{
  (void)state;
  knit_event ev;
  char err[256];
  assert_true(knit_event_parse("CPUTIME", &ev, err, sizeof err));
  assert_int_equal(ev.kind, KNIT_EVENT_CPUTIME);
  assert_int_equal(ev.period_ns, KNIT_DEFAULT_PERIOD_NS);
  assert_true(knit_event_parse("CPUTIME@1000", &ev, err, sizeof err));
  assert_int_equal(ev.period_ns, 1000000);
  assert_true(knit_event_parse("REALTIME@f2000", &ev, err, sizeof err));
  assert_int_equal(ev.kind, KNIT_EVENT_REALTIME);
  assert_int_equal(ev.period_ns, 500000);
  assert_true(knit_event_parse("PROBE", &ev, err, sizeof err));
  assert_int_equal(ev.kind, KNIT_EVENT_PROBE);
  assert_int_equal(ev.period_ns, 0);
  assert_string_equal(knit_event_name(KNIT_EVENT_REALTIME), "REALTIME");
  /* The bound on the rate, both ways of writing it. */
  assert_true(knit_event_parse("REALTIME@f20000", &ev, err, sizeof err));
  assert_int_equal(ev.period_ns, KNIT_MIN_PERIOD_NS);
  assert_true(knit_event_parse("CPUTIME@50", &ev, err, sizeof err));
  assert_int_equal(ev.period_ns, KNIT_MIN_PERIOD_NS);
}

static void test_bad(void **state)
{
  (void)state;
  static const char *const bad[] = {
      "",
      "cputime",
      "CPUTIMEX",
      "CPUTIME@",
      "CPUTIME@0",
      "CPUTIME@-5",
      "CPUTIME@12x",
      "CPUTIME@f",
      "CPUTIME@f0",
      "CPUTIME@f2000000",
      "PROBE@100",
      "CYCLES@1000",
      "REALTIME@99999999999999",
      "REALTIME@f20001",
      "REALTIME@f500000",
      "REALTIME@f1000000",
      "CPUTIME@49",
      "REALTIME@1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    knit_event ev;
    char err[256] = "";
    assert_false(knit_event_parse(bad[i], &ev, err, sizeof err));
    /* Every refusal says what was wrong. */
    assert_true(strlen(err) > 10);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good),
      cmocka_unit_test(test_bad),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
