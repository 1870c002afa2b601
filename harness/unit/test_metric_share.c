/* Metric shares in goldens: the metric-share and paths directives, the
 * check of a share against a measurement written to disk and read back
 * (blame_measurement.h), passing and failing, and what a golden that
 * ignores paths keeps when rewritten. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "harness/unit/blame_measurement.h"
#include "profiler/report/golden.h"

static knit_golden parse_ok(const char *text)
{
  knit_golden g;
  char err[256] = "";
  if (knit_golden_parse(text, &g, err, sizeof err) != 0)
    fail_msg("golden did not parse: %s", err);
  return g;
}

static void expect_parse_error(const char *text, const char *want)
{
  knit_golden g;
  char err[256] = "";
  assert_int_equal(knit_golden_parse(text, &g, err, sizeof err), -1);
  if (strcmp(err, want) != 0)
    fail_msg("expected \"%s\", got \"%s\"", want, err);
}

typedef struct checked {
  size_t differences;
  char *diff;    /* what a failing directive writes (caller frees) */
  char *passed;  /* what a holding one writes (caller frees) */
} checked;

/* Checks the golden's metric shares against the measurement in dir. */
static checked check(const char *golden_text, const char *dir)
{
  knit_golden g = parse_ok(golden_text);
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

static void test_parse_directives(void **state)
{
  (void)state;
  knit_golden g = parse_ok("# paths: ignore\n"
                           "# metric-share: OMP_MUTEX_BLAME main;run_locks;hold_long >= 0.90\n"
                           "#metric-share:\tOMP_IDLE  main;f._omp_fn.2;compute <= 0.5 \n");
  assert_true(g.paths_ignored);
  assert_int_equal(g.share_count, 2);
  assert_string_equal(g.shares[0].metric, "OMP_MUTEX_BLAME");
  assert_string_equal(g.shares[0].prefix, "main;run_locks;hold_long");
  assert_false(g.shares[0].at_most);
  assert_true(g.shares[0].limit > 0.8999 && g.shares[0].limit < 0.9001);
  assert_string_equal(g.shares[0].text, "OMP_MUTEX_BLAME main;run_locks;hold_long >= 0.90");
  /* An outlined body may be written as compiled: it is folded's name. */
  assert_string_equal(g.shares[1].prefix, "main;omp.outlined;compute");
  assert_true(g.shares[1].at_most);
  /* The directives are comments too, kept for a rewrite. */
  assert_int_equal(g.comment_count, 3);
  knit_golden_free(&g);

  g = parse_ok("# paths: compare\nmain 1\n");
  assert_false(g.paths_ignored);
  knit_golden_free(&g);
}

static void test_parse_errors(void **state)
{
  (void)state;
  static const char FORM[] = "expected \"METRIC PREFIX >= SHARE\" or \"... <= SHARE\"";
  char want[200];
  snprintf(want, sizeof want, "line 2: metric-share: %s", FORM);
  expect_parse_error("# ok\n# metric-share: OMP_IDLE main\n", want);
  snprintf(want, sizeof want, "line 1: metric-share: %s, not '>'", FORM);
  expect_parse_error("# metric-share: OMP_IDLE main > 0.5\n", want);
  snprintf(want, sizeof want, "line 1: metric-share: %s", FORM);
  expect_parse_error("# metric-share: OMP_IDLE main >= 0.5 and more\n", want);
  expect_parse_error("# metric-share: OMP_IDLE main >= 90%\n",
                     "line 1: metric-share: the share '90%' must be a number from 0 to 1");
  expect_parse_error("# metric-share: OMP_IDLE main >= 1.5\n",
                     "line 1: metric-share: the share '1.5' must be a number from 0 to 1");
  expect_parse_error("# metric-share: OMP_IDLE main;;work >= 0.5\n",
                     "line 1: metric-share: the path 'main;;work' has an empty frame");
  expect_parse_error("# paths: some\n", "line 1: paths must be \"compare\" or \"ignore\"");
  /* Paths under "paths: ignore" would look checked and never be. */
  expect_parse_error("main;a 3\n# paths: ignore\nmain;b 1\n",
                     "the golden says \"paths: ignore\" but lists 2 paths");
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
      c.diff,
      "~ metric-share OMP_MUTEX_BLAME main;run_locks;omp.outlined;hold_long >= 0.9: "
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

static void test_update_keeps_directives_only(void **state)
{
  (void)state;
  char path[] = "/tmp/knit-test-share-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  static const char TEXT[] = "# blame of the locks workload\n"
                             "# paths: ignore\n"
                             "# metric-share: OMP_MUTEX_BLAME main;hold >= 0.9\n";
  knit_golden old = parse_ok(TEXT);
  knit_folded measured = {0};
  assert_int_equal(knit_folded_add(&measured, "main;hold", 5), 0);
  knit_folded_finish(&measured);
  char err[256];
  assert_int_equal(knit_golden_write(path, &old, &measured, err, sizeof err), 0);
  FILE *f = fopen(path, "r");
  char text[256] = "";
  size_t len = fread(text, 1, sizeof text - 1, f);
  text[len] = '\0';
  fclose(f);
  /* Writing the paths would make the golden unreadable. */
  assert_string_equal(text, TEXT);
  knit_golden back;
  assert_int_equal(knit_golden_read(path, &back, err, sizeof err), 0);
  assert_int_equal(back.share_count, 1);
  knit_golden_free(&back);
  knit_golden_free(&old);
  knit_folded_free(&measured);
  unlink(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_directives),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test_setup_teardown(test_share_holds, write_blame, remove_measurement),
      cmocka_unit_test_setup_teardown(test_share_fails, write_blame, remove_measurement),
      cmocka_unit_test_setup_teardown(test_zero_total, write_without_blame, remove_measurement),
      cmocka_unit_test(test_update_keeps_directives_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
