/* Metrics in `knit report`: the blame columns, their units, sorting and
 * --min by any metric, the metric lines and the blame line of the header,
 * the threads table, the folded form of one metric, and the choice of
 * metrics from the command line's words; on a measurement written to disk
 * and read back (blame_measurement.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness/unit/blame_measurement.h"
#include "profiler/report/folded.h"
#include "profiler/report/metric_select.h"
#include "profiler/report/metrics.h"
#include "profiler/report/view_metrics.h"
#include "profiler/report/view_tree.h"

typedef struct fixture {
  char dir[64];
  knit_profile profile;
  /* The memory stream's buffer; see test_tree_view.c. */
  char *text;
  size_t len;
} fixture;

static fixture *load(const char *event, uint64_t period, int with_blame)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  blame_measurement_make_dir(f->dir, sizeof f->dir);
  blame_measurement_write(f->dir, event, period, with_blame);
  blame_measurement_load(f->dir, &f->profile);
  return f;
}

static void unload(fixture *f)
{
  knit_profile_free(&f->profile);
  blame_measurement_remove_dir(f->dir);
  free(f);
}

enum view { TREE, HEADER, TOTALS, THREADS };

/* What one view prints (caller frees). */
static char *render(fixture *f, enum view view, const knit_view_options *o)
{
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  switch (view) {
  case TREE: knit_view_top_down(&f->profile, o, out); break;
  case HEADER: knit_view_header(&f->profile, out); break;
  case TOTALS: knit_view_metric_totals(&f->profile, &o->columns, out); break;
  case THREADS: knit_view_threads(&f->profile, NULL, out); break;
  }
  fclose(out);
  return f->text;
}

static void expect_contains(const char *text, const char *what)
{
  if (strstr(text, what) == NULL)
    fail_msg("expected \"%s\" in:\n%s", what, text);
}

static void expect_before(const char *text, const char *first, const char *second)
{
  const char *a = strstr(text, first), *b = strstr(text, second);
  if (a == NULL || b == NULL || a > b)
    fail_msg("expected \"%s\" before \"%s\" in:\n%s", first, second, text);
}

static void test_blame_columns(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, TREE, &o);
  /* Every metric is non-zero somewhere, so each has its columns by
   * default, in milliseconds: blame is milli-periods of 1 ms periods.
   * compute and hold_long tie on CPUTIME and go by name. */
  assert_string_equal(
      text, "CPUTIME                   OMP_IDLE          OMP_MUTEX_WAIT    OMP_MUTEX_BLAME\n"
            "incl ms   incl%  excl ms  incl ms  excl ms  incl ms  excl ms  incl ms  excl ms  "
            "function                 source\n"
            "   25.0   96.2%      0.0      2.0      0.0      7.0      0.0      5.0      0.0  main  "
            "                   locks.c:10\n"
            "   25.0   96.2%      0.0      2.0      0.0      7.0      0.0      5.0      0.0    "
            "run_locks              locks.c:20\n"
            "   25.0   96.2%      0.0      2.0      0.0      7.0      0.0      5.0      0.0      "
            "run_locks._omp_fn.0  locks.c:30\n"
            "    8.0   30.8%      8.0      1.5      1.5      0.0      0.0      0.0      0.0        "
            "compute            locks.c:60\n"
            "    8.0   30.8%      8.0      0.5      0.5      0.0      0.0      4.0      4.0        "
            "hold_long          locks.c:40\n"
            "    7.0   26.9%      7.0      0.0      0.0      7.0      7.0      0.0      0.0        "
            "<omp-lock-wait>\n"
            "    2.0    7.7%      2.0      0.0      0.0      0.0      0.0      1.0      1.0        "
            "hold_short         locks.c:50\n"
            "    1.0    3.8%      1.0      0.0      0.0      0.0      0.0      0.0      0.0  "
            "<omp-idle>\n");
  free(text);
  unload(f);
}

static void test_plain_profile_unchanged(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 0);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, TREE, &o);
  /* Without blame: one pair of columns, no line of names, as always. */
  assert_string_equal(text, "incl ms   incl%  excl ms  function                 source\n"
                            "   25.0   96.2%      0.0  main                     locks.c:10\n"
                            "   25.0   96.2%      0.0    run_locks              locks.c:20\n"
                            "   25.0   96.2%      0.0      run_locks._omp_fn.0  locks.c:30\n"
                            "    8.0   30.8%      8.0        compute            locks.c:60\n"
                            "    8.0   30.8%      8.0        hold_long          locks.c:40\n"
                            "    7.0   26.9%      7.0        <omp-lock-wait>\n"
                            "    2.0    7.7%      2.0        hold_short         locks.c:50\n"
                            "    1.0    3.8%      1.0  <omp-idle>\n");
  free(text);
  knit_metric_columns_default(&f->profile, &o.columns);
  assert_true(knit_metric_columns_plain(&o.columns));
  text = render(f, TOTALS, &o);
  assert_string_equal(text, "");
  free(text);
  text = render(f, HEADER, &o);
  assert_null(strstr(text, "blame:"));
  free(text);
  unload(f);
}

static void test_units(void **state)
{
  (void)state;
  /* A 2 ms period doubles every value, blame included. */
  fixture *f = load("REALTIME", 2000000, 1);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, TREE, &o);
  expect_contains(text, "   50.0   96.2%      0.0      4.0      0.0     14.0      0.0     10.0"
                        "      0.0  main ");
  free(text);
  unload(f);

  /* PROBE: whole probes for the time metric, fractions of one for blame;
   * the columns widen to their names. */
  f = load("PROBE", 0, 1);
  text = render(f, TREE, &o);
  expect_contains(text, "PROBE               OMP_IDLE    OMP_MUTEX_WAIT  OMP_MUTEX_BLAME\n"
                        "incl   incl%  excl  incl  excl    incl    excl     incl     excl"
                        "  function ");
  expect_contains(text, "   8   30.8%     8   0.5   0.5     0.0     0.0      4.0      4.0"
                        "        hold_long ");
  free(text);
  o.columns.count = 0;
  knit_metric_columns_add(&o.columns, KNIT_METRIC_OMP_MUTEX_WAIT);
  text = render(f, TOTALS, &o);
  assert_string_equal(text, "metric OMP_MUTEX_WAIT  7.0 probes  waiting for a lock, critical, "
                            "ordered or atomic, charged to the waiter\n");
  free(text);
  unload(f);
}

static void test_header_lines(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, HEADER, &o);
  /* The lost and unclaimed blame, summed over threads, stands in the
   * header whichever columns are shown. */
  expect_contains(
      text, "CPUTIME every 1 ms: 26 samples (26 periods, 26.0 ms), 2 threads, "
            "0 partial unwinds\n"
            "lost: 3 signals blocked (at least 3.0 ms not in the tree); 2 paths "
            "cut at the frame limit (outermost frames missing)\n"
            "blame: 1.5 ms of mutex wait lost (no room in the blame table), "
            "0.5 ms of mutex wait unclaimed (the mutex was free, or not "
            "released before the end); counted in OMP_MUTEX_WAIT, missing from OMP_MUTEX_BLAME\n");
  free(text);
  knit_metric_columns_default(&f->profile, &o.columns);
  text = render(f, TOTALS, &o);
  assert_string_equal(
      text, "metric CPUTIME          26.0 ms  charged where each sample was taken\n"
            "metric OMP_IDLE          2.0 ms  idle threads' share, charged to the working threads' "
            "samples\n"
            "metric OMP_MUTEX_WAIT    7.0 ms  waiting for a lock, critical, ordered or atomic, "
            "charged to the waiter\n"
            "metric OMP_MUTEX_BLAME   5.0 ms  that waiting, charged where the holder released the "
            "mutex\n");
  free(text);
  unload(f);
}

static void test_threads_table(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, THREADS, &o);
  expect_contains(text, "  blame lost ms  unclaimed ms\n");
  expect_contains(text, "       100  main,openmp                20         20 ");
  expect_contains(text, "            0.0           0.5\n");
  expect_contains(text, "            1.5           0.0\n");
  free(text);
  unload(f);
}

static void test_sort_by_metric(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  knit_view_options o = {.tree = {.metric = KNIT_METRIC_OMP_MUTEX_BLAME}, .min_percent = 0};
  knit_metric_columns_add(&o.columns, KNIT_METRIC_SAMPLES);
  char *text = render(f, TREE, &o);
  /* The sort metric's column is added and carries the share; the body's
   * children go by blame, then by CPUTIME where blame ties. */
  assert_string_equal(
      text, "CPUTIME           OMP_MUTEX_BLAME\n"
            "incl ms  excl ms  incl ms   incl%  excl ms  function                 source\n"
            "   25.0      0.0      5.0  100.0%      0.0  main                     locks.c:10\n"
            "   25.0      0.0      5.0  100.0%      0.0    run_locks              locks.c:20\n"
            "   25.0      0.0      5.0  100.0%      0.0      run_locks._omp_fn.0  locks.c:30\n"
            "    8.0      8.0      4.0   80.0%      4.0        hold_long          locks.c:40\n"
            "    2.0      2.0      1.0   20.0%      1.0        hold_short         locks.c:50\n"
            "    8.0      8.0      0.0    0.0%      0.0        compute            locks.c:60\n"
            "    7.0      7.0      0.0    0.0%      0.0        <omp-lock-wait>\n"
            "    1.0      1.0      0.0    0.0%      0.0  <omp-idle>\n");
  free(text);

  /* --min applies to the sort metric. */
  o.min_percent = 10;
  text = render(f, TREE, &o);
  assert_null(strstr(text, "compute"));
  assert_null(strstr(text, "<omp-idle>"));
  expect_contains(text, "(3 nodes below 10% of the OMP_MUTEX_BLAME total hidden with their "
                        "callees; --min=0 shows all)\n");
  free(text);

  /* By exclusive idleness: compute (1.5) before hold_long (0.5). */
  o = (knit_view_options){.tree = {.metric = KNIT_METRIC_OMP_IDLE, .sort = KNIT_SORT_EXCLUSIVE},
                          .min_percent = 0};
  text = render(f, TREE, &o);
  expect_before(text, " compute ", " hold_long ");
  free(text);
  unload(f);
}

static void test_folded_metric(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  knit_folded folded;
  assert_int_equal(knit_folded_of_metric(&f->profile.tree, KNIT_METRIC_OMP_MUTEX_BLAME, &folded),
                   0);
  /* Counted as stored: milli-periods. */
  assert_int_equal(folded.count, 2);
  assert_int_equal(folded.total, 5000);
  assert_string_equal(folded.lines[0].path, "main;run_locks;omp.outlined;hold_long");
  assert_int_equal(folded.lines[0].count, 4000);
  assert_string_equal(folded.lines[1].path, "main;run_locks;omp.outlined;hold_short");
  assert_int_equal(folded.lines[1].count, 1000);
  knit_folded_free(&folded);

  /* The time metric is the folded form of old. */
  knit_folded old;
  assert_int_equal(knit_folded_of_metric(&f->profile.tree, KNIT_METRIC_SAMPLES, &folded), 0);
  assert_int_equal(knit_folded_from_tree(&f->profile.tree, &old), 0);
  assert_int_equal(folded.count, old.count);
  assert_int_equal(folded.total, 26);
  for (size_t i = 0; i < old.count; i++) {
    assert_string_equal(folded.lines[i].path, old.lines[i].path);
    assert_int_equal(folded.lines[i].count, old.lines[i].count);
  }
  knit_folded_free(&folded);
  knit_folded_free(&old);
  assert_int_equal(knit_folded_of_metric(&f->profile.tree, KNIT_METRIC_COUNT, &folded), -1);
  unload(f);
}

static void test_sort_keys(void **state)
{
  (void)state;
  knit_sort_key key;
  char err[200];
  assert_int_equal(knit_sort_key_parse("excl", &key, err, sizeof err), 0);
  assert_int_equal(key.sort, KNIT_SORT_EXCLUSIVE);
  assert_string_equal(key.metric, "");
  assert_int_equal(knit_sort_key_parse("name", &key, err, sizeof err), 0);
  assert_int_equal(key.sort, KNIT_SORT_NAME);
  assert_int_equal(knit_sort_key_parse("OMP_IDLE", &key, err, sizeof err), 0);
  assert_int_equal(key.sort, KNIT_SORT_INCLUSIVE);
  assert_string_equal(key.metric, "OMP_IDLE");
  assert_int_equal(knit_sort_key_parse("omp_mutex_blame:excl", &key, err, sizeof err), 0);
  assert_int_equal(key.sort, KNIT_SORT_EXCLUSIVE);

  assert_int_equal(knit_sort_key_parse("OMP_IDLE:sideways", &key, err, sizeof err), -1);
  assert_string_equal(err, "sort key 'OMP_IDLE:sideways': after the metric comes :incl or :excl");
  assert_int_equal(knit_sort_key_parse(":excl", &key, err, sizeof err), -1);
  assert_string_equal(err, "unknown sort key ':excl' (incl, excl, name, or METRIC[:incl|excl])");
}

static void test_metric_names(void **state)
{
  (void)state;
  fixture *f = load("CPUTIME", 1000000, 1);
  const knit_measurement *m = &f->profile.measurement;
  knit_sort_key key;
  char err[200];
  /* Names resolve without regard to case; the time metric's is the event. */
  assert_int_equal(knit_sort_key_parse("omp_mutex_blame:excl", &key, err, sizeof err), 0);
  assert_int_equal(knit_sort_key_metric(&key, m, err, sizeof err), KNIT_METRIC_OMP_MUTEX_BLAME);
  assert_int_equal(knit_sort_key_parse("incl", &key, err, sizeof err), 0);
  assert_int_equal(knit_sort_key_metric(&key, m, err, sizeof err), KNIT_METRIC_SAMPLES);
  assert_int_equal(knit_sort_key_parse("REALTIME", &key, err, sizeof err), 0);
  assert_int_equal(knit_sort_key_metric(&key, m, err, sizeof err), -1);
  assert_string_equal(err, "unknown metric 'REALTIME' (this measurement has: CPUTIME, "
                           "OMP_IDLE, OMP_MUTEX_WAIT, OMP_MUTEX_BLAME)");

  knit_metric_columns c;
  assert_int_equal(knit_metric_columns_parse(&f->profile, "omp_mutex_blame,CPUTIME,cputime", &c,
                                             err, sizeof err),
                   0);
  assert_int_equal(c.count, 2);
  assert_int_equal(c.metric[0], KNIT_METRIC_OMP_MUTEX_BLAME);
  assert_int_equal(c.metric[1], KNIT_METRIC_SAMPLES);
  assert_int_equal(knit_metric_columns_parse(&f->profile, "all", &c, err, sizeof err), 0);
  assert_int_equal(c.count, KNIT_METRIC_COUNT);
  assert_int_equal(knit_metric_columns_parse(&f->profile, "CPUTIME,BOGUS", &c, err, sizeof err),
                   -1);
  assert_string_equal(err, "unknown metric 'BOGUS' (this measurement has: CPUTIME, "
                           "OMP_IDLE, OMP_MUTEX_WAIT, OMP_MUTEX_BLAME)");
  assert_int_equal(knit_metric_columns_parse(&f->profile, "CPUTIME,", &c, err, sizeof err), -1);
  assert_string_equal(err, "--metrics: an empty name in 'CPUTIME,'");
  unload(f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blame_columns), cmocka_unit_test(test_plain_profile_unchanged),
      cmocka_unit_test(test_units),         cmocka_unit_test(test_header_lines),
      cmocka_unit_test(test_threads_table), cmocka_unit_test(test_sort_by_metric),
      cmocka_unit_test(test_folded_metric), cmocka_unit_test(test_sort_keys),
      cmocka_unit_test(test_metric_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
