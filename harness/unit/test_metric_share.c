/* Metric shares in goldens: the check of metric-share and metric-value
 * directives against a measurement written to disk and read back
 * (blame_measurement.h), passing and failing; a malformed metric-value.
 * Parsing the share directives is test_check.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness/unit/blame_measurement.h"
#include "profiler/report/golden.h"

typedef struct checked {
  size_t differences;
  char *diff;   /* what a failing directive writes (caller frees) */
  char *passed; /* what a holding one writes (caller frees) */
} checked;

/* Checks the golden's metric shares against the measurement in dir. */
static checked check(const char *golden_text, const char *dir)
{
  knit_golden g;
  char err[256] = "";
  if (knit_golden_parse(golden_text, &g, err, sizeof err) != 0)
    fail_msg("golden did not parse: %s", err);
  knit_profile p;
  blame_measurement_load(dir, &p);
  checked c = {0};
  size_t diff_len = 0, passed_len = 0;
  FILE *diff = open_memstream(&c.diff, &diff_len);
  FILE *passed = open_memstream(&c.passed, &passed_len);
  assert_non_null(diff);
  assert_non_null(passed);
  c.differences = knit_metric_shares_check(g.shares, g.share_count, &p, diff, passed);
  fclose(diff);
  fclose(passed);
  knit_profile_free(&p);
  knit_golden_free(&g);
  return c;
}

static void checked_free(checked *c)
{
  free(c->diff);
  free(c->passed);
}

static char dir[64];

static int write_blame(void **state)
{
  (void)state;
  blame_measurement_make_dir(dir, sizeof dir);
  blame_measurement_write(dir, "CPUTIME", 1000000, 1);
  return 0;
}

static int write_without_blame(void **state)
{
  (void)state;
  blame_measurement_make_dir(dir, sizeof dir);
  blame_measurement_write(dir, "PROBE", 0, 0);
  return 0;
}

static int remove_measurement(void **state)
{
  (void)state;
  blame_measurement_remove_dir(dir);
  return 0;
}

static void test_share_holds(void **state)
{
  (void)state;
  /* hold_long holds 4.0 of the 5.0 ms of OMP_MUTEX_BLAME: exactly 0.8. */
  checked c = check("# metric-share: OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_long"
                    " >= 0.8\n"
                    "# metric-share: omp_mutex_blame main;run_locks <= 1\n"
                    "# metric-share: OMP_MUTEX_WAIT main;run_locks;run_locks._omp_fn.0;"
                    "<omp-lock-wait> >= 1\n"
                    "# metric-share: CPUTIME <omp-idle> <= 0.05\n",
                    dir);
  assert_int_equal(c.differences, 0);
  assert_string_equal(c.diff, "");
  assert_string_equal(
      c.passed,
      "  metric-share OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_long >= 0.8: "
      "measured 80.0% of the 5.0 ms of OMP_MUTEX_BLAME\n"
      "  metric-share omp_mutex_blame main;run_locks <= 1: measured 100.0% of the 5.0 ms "
      "of OMP_MUTEX_BLAME\n"
      "  metric-share OMP_MUTEX_WAIT main;run_locks;run_locks._omp_fn.0;<omp-lock-wait> >= 1: "
      "measured 100.0% of the 7.0 ms of OMP_MUTEX_WAIT\n"
      "  metric-share CPUTIME <omp-idle> <= 0.05: measured 3.8% of the 26.0 ms of CPUTIME\n");
  checked_free(&c);
}

static void test_share_fails(void **state)
{
  (void)state;
  checked c = check("# metric-share: OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_long"
                    " >= 0.9\n"
                    "# metric-share: OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_short"
                    " <= 0.1\n"
                    "# metric-share: OMP_IDLE main;run_locks;omp.outlined;compute >= 0.5\n",
                    dir);
  assert_int_equal(c.differences, 2);
  /* Each failure shows the share found, the total and where the metric
   * went instead. */
  assert_string_equal(
      c.diff, "~ metric-share OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_long >= 0.9: "
              "measured 80.0% of the 5.0 ms of OMP_MUTEX_BLAME\n"
              "    heaviest OMP_MUTEX_BLAME paths:\n"
              "     80.0%         4.0 ms  main;run_locks;omp.outlined;hold_long\n"
              "     20.0%         1.0 ms  main;run_locks;omp.outlined;hold_short\n"
              "~ metric-share OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_short <= 0.1: "
              "measured 20.0% of the 5.0 ms of OMP_MUTEX_BLAME\n"
              "    heaviest OMP_MUTEX_BLAME paths:\n"
              "     80.0%         4.0 ms  main;run_locks;omp.outlined;hold_long\n"
              "     20.0%         1.0 ms  main;run_locks;omp.outlined;hold_short\n");
  assert_string_equal(c.passed, "  metric-share OMP_IDLE main;run_locks;omp.outlined;compute "
                                ">= 0.5: measured 75.0% of the 2.0 ms of OMP_IDLE\n");
  checked_free(&c);

  /* Whole frames only: main;run_locks;omp is no frame of the paths. */
  c = check("# metric-share: OMP_MUTEX_BLAME main;run_locks;omp >= 0.1\n", dir);
  assert_int_equal(c.differences, 1);
  assert_non_null(strstr(c.diff, ": measured 0.0% of the 5.0 ms of OMP_MUTEX_BLAME\n"));
  checked_free(&c);

  /* A metric the measurement does not name is a difference, not a crash. */
  c = check("# metric-share: REALTIME main >= 0.5\n", dir);
  assert_int_equal(c.differences, 1);
  assert_string_equal(c.diff, "- metric-share REALTIME main >= 0.5: unknown metric 'REALTIME' "
                              "(this measurement has: CPUTIME, OMP_IDLE, OMP_MUTEX_WAIT, "
                              "OMP_MUTEX_BLAME)\n");
  checked_free(&c);
}

static void test_zero_total(void **state)
{
  (void)state;
  checked c = check("# metric-share: OMP_MUTEX_BLAME main >= 0\n"
                    "# metric-share: PROBE main;run_locks >= 0.9\n",
                    dir);
  /* Even a limit of 0 fails: a blame golden run without blame proves
   * nothing. */
  assert_int_equal(c.differences, 1);
  assert_string_equal(c.diff, "- metric-share OMP_MUTEX_BLAME main >= 0: no OMP_MUTEX_BLAME in "
                              "the measurement\n");
  assert_string_equal(c.passed, "  metric-share PROBE main;run_locks >= 0.9: measured 96.2% "
                                "of the 26 probes of PROBE\n");
  checked_free(&c);
}

static void test_value_exact(void **state)
{
  (void)state;
  /* 25 of the 26 probes fall under main;run_locks. */
  checked c = check("# metric-value: PROBE main;run_locks = 25\n"
                    "# metric-value: PROBE main;run_locks = 24\n",
                    dir);
  assert_int_equal(c.differences, 1);
  assert_string_equal(c.passed, "  metric-value PROBE main;run_locks = 25: measured 25 of the 26 "
                                "of PROBE\n");
  assert_non_null(
      strstr(c.diff, "~ metric-value PROBE main;run_locks = 24: measured 25 of the 26 of PROBE\n"
                     "    heaviest PROBE paths:\n"));
  checked_free(&c);
}

static void test_value_malformed(void **state)
{
  (void)state;
  static const char *const bad[][2] = {
      {"# metric-value: PROBE main >= 3\n", "line 1: metric-value: expected \"METRIC PREFIX = "
                                            "VALUE\""},
      {"# metric-value: PROBE main = 2.5\n", "line 1: metric-value: the value '2.5' must be a "
                                             "whole number"},
      {"# metric-value: PROBE main = -1\n", "line 1: metric-value: the value '-1' must be a "
                                            "whole number"},
      {"# metric-value: PROBE main;;x = 1\n", "line 1: metric-value: the path 'main;;x' has an "
                                              "empty frame"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    knit_golden g;
    char err[256] = "";
    assert_int_equal(knit_golden_parse(bad[i][0], &g, err, sizeof err), -1);
    assert_string_equal(err, bad[i][1]);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_share_holds, write_blame, remove_measurement),
      cmocka_unit_test_setup_teardown(test_share_fails, write_blame, remove_measurement),
      cmocka_unit_test_setup_teardown(test_zero_total, write_without_blame, remove_measurement),
      cmocka_unit_test_setup_teardown(test_value_exact, write_without_blame, remove_measurement),
      cmocka_unit_test(test_value_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
