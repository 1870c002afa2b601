/* Golden comparison: parsing golden files (the metric-share and paths
 * directives included), exact and share comparisons, the diff they print,
 * and rewriting a golden. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

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
  if (strstr(err, want) == NULL)
    fail_msg("expected \"%s\" in \"%s\"", want, err);
}

/* A finished folded form from "path count" pairs. */
static knit_folded measured(const char *const *paths, const uint64_t *counts, size_t n)
{
  knit_folded f = {0};
  for (size_t i = 0; i < n; i++)
    assert_int_equal(knit_folded_add(&f, paths[i], counts[i]), 0);
  knit_folded_finish(&f);
  return f;
}

/* Runs the comparison and returns the diff text (caller frees). */
static char *diff_of(const knit_golden *g, const knit_folded *m, knit_check_mode mode,
                     size_t *differences)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  *differences = knit_golden_compare(g, m, mode, out);
  fclose(out);
  return text;
}

/* An empty file named after the template path (its XXXXXX replaced). */
static void make_temp_file(char *path)
{
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
}

/* The first len - 1 bytes of the file at path, as a string. */
static void read_text(const char *path, char *text, size_t len)
{
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, len - 1, f);
  text[n] = '\0';
  fclose(f);
}

static void test_parse(void **state)
{
  (void)state;
  knit_golden g = parse_ok("# golden of the reduce workload\n"
                           "#tolerance: 0.1\n"
                           "# min-share: 0.03\n"
                           "\n"
                           "main;omp.outlined;work 30\r\n"
                           "  main;setup 10   \n"
                           "main;a b;c 2\n");
  assert_int_equal(g.paths.count, 3);
  assert_int_equal(g.paths.total, 42);
  /* Sorted; the last space separates the count, earlier ones stay. */
  assert_string_equal(g.paths.lines[0].path, "main;a b;c");
  assert_string_equal(g.paths.lines[1].path, "main;omp.outlined;work");
  assert_string_equal(g.paths.lines[2].path, "main;setup");
  assert_true(g.tolerance > 0.0999 && g.tolerance < 0.1001);
  assert_true(g.min_share > 0.0299 && g.min_share < 0.0301);
  assert_int_equal(g.mode, KNIT_CHECK_BY_EVENT);
  assert_int_equal(g.comment_count, 3);
  assert_string_equal(g.comments[1], "#tolerance: 0.1");
  knit_golden_free(&g);

  g = parse_ok("");
  assert_int_equal(g.paths.count, 0);
  assert_true(g.tolerance > 0.0499 && g.tolerance < 0.0501);
  assert_true(g.min_share > 0.0199 && g.min_share < 0.0201);
  knit_golden_free(&g);

  g = parse_ok("# mode: exact\nmain 1\n");
  assert_int_equal(g.mode, KNIT_CHECK_EXACT);
  knit_golden_free(&g);
}

static void test_parse_errors(void **state)
{
  (void)state;
  expect_parse_error("main;a 1\nmain;b\n", "line 2: expected");
  expect_parse_error("main;a 1\nmain;b x2\n", "line 2: the count \"x2\"");
  expect_parse_error("main;a -1\n", "line 1: the count");
  expect_parse_error("main;a 1\n\nmain;a 2\n", "line 3: the path main;a is listed twice");
  expect_parse_error("# tolerance: lots\n", "line 1: tolerance");
  expect_parse_error("# min-share: 2\n", "line 1: min-share");
  expect_parse_error("# mode: fuzzy\n", "line 1: mode");
}

static void test_exact(void **state)
{
  (void)state;
  knit_golden g = parse_ok("main;a 3\nmain;b 2\nmain;c 1\n");
  const char *same_paths[] = {"main;c", "main;a", "main;b"};
  const uint64_t same_counts[] = {1, 3, 2};
  knit_folded m = measured(same_paths, same_counts, 3);
  size_t n;
  char *diff = diff_of(&g, &m, KNIT_CHECK_EXACT, &n);
  assert_int_equal(n, 0);
  assert_string_equal(diff, "");
  free(diff);
  knit_folded_free(&m);

  const char *paths[] = {"main;a", "main;b", "main;d"};
  const uint64_t counts[] = {3, 4, 1};
  m = measured(paths, counts, 3);
  diff = diff_of(&g, &m, KNIT_CHECK_EXACT, &n);
  assert_int_equal(n, 3);
  assert_string_equal(diff, "~ main;b  count: golden 2, measured 4\n"
                            "- main;c  missing: golden 1\n"
                            "+ main;d  unexpected: measured 1\n");
  free(diff);
  knit_folded_free(&m);
  knit_golden_free(&g);
}

static void test_shares(void **state)
{
  (void)state;
  /* Golden shares: a 60%, b 30%, rare 1%, c 9%. */
  knit_golden g = parse_ok("main;a 60\nmain;b 30\nmain;rare 1\nmain;c 9\n");
  size_t n;

  /* Within 5% everywhere, the rare path missing (allowed: below min-share),
   * and a little noise (1 of 201 samples, under 2%). */
  const char *ok_paths[] = {"main;a", "main;b", "main;c", "main;noise"};
  const uint64_t ok_counts[] = {125, 55, 20, 1};
  knit_folded m = measured(ok_paths, ok_counts, 4);
  char *diff = diff_of(&g, &m, KNIT_CHECK_SHARES, &n);
  if (n != 0)
    fail_msg("unexpected differences:\n%s", diff);
  free(diff);
  /* The same numbers compared exactly are all different. */
  diff = diff_of(&g, &m, KNIT_CHECK_EXACT, &n);
  assert_int_equal(n, 5);
  free(diff);
  knit_folded_free(&m);

  /* a drops to 50% and b rises to 50%, c is missing (a 9% path must be
   * there), the rare path is missing (allowed),
   * and unexpected paths make up 10% of all samples. */
  const char *bad_paths[] = {"main;a", "main;b", "main;x", "main;y"};
  const uint64_t bad_counts[] = {50, 50, 6, 5};
  m = measured(bad_paths, bad_counts, 4);
  diff = diff_of(&g, &m, KNIT_CHECK_SHARES, &n);
  assert_int_equal(n, 6);
  assert_string_equal(
      diff, "~ main;a                     share: golden 60.0%, measured 50.0% (tolerance 5.0%)\n"
            "~ main;b                     share: golden 30.0%, measured 50.0% (tolerance 5.0%)\n"
            "- main;c                     missing: golden share 9.0%\n"
            "+ main;x                     unexpected: measured 6\n"
            "+ main;y                     unexpected: measured 5\n"
            "+ (paths not in the golden)  together 9.9% of all samples (min-share 2.0%)\n");
  free(diff);
  knit_folded_free(&m);

  /* A measurement without samples never matches. */
  knit_folded empty = {0};
  assert_int_equal(knit_golden_compare(&g, &empty, KNIT_CHECK_SHARES, NULL), 1);
  knit_golden_free(&g);
}

static void test_tolerance_directive(void **state)
{
  (void)state;
  const char *paths[] = {"main;a", "main;b"};
  const uint64_t counts[] = {58, 42};
  knit_folded m = measured(paths, counts, 2);
  knit_golden strict = parse_ok("# tolerance: 0.05\nmain;a 50\nmain;b 50\n");
  knit_golden loose = parse_ok("# tolerance: 0.1\nmain;a 50\nmain;b 50\n");
  assert_int_equal(knit_golden_compare(&strict, &m, KNIT_CHECK_SHARES, NULL), 2);
  assert_int_equal(knit_golden_compare(&loose, &m, KNIT_CHECK_SHARES, NULL), 0);
  knit_golden_free(&strict);
  knit_golden_free(&loose);
  knit_folded_free(&m);
}

static void test_update_keeps_comments(void **state)
{
  (void)state;
  char path[] = "/tmp/knit-test-golden-XXXXXX";
  make_temp_file(path);
  knit_golden old = parse_ok("# the reduce workload\n# tolerance: 0.1\nmain;old 5\n");
  const char *paths[] = {"main;new", "main;a"};
  const uint64_t counts[] = {4, 6};
  knit_folded m = measured(paths, counts, 2);
  char err[256];
  assert_int_equal(knit_golden_write(path, &old, &m, err, sizeof err), 0);

  char text[256];
  read_text(path, text, sizeof text);
  assert_string_equal(text, "# the reduce workload\n# tolerance: 0.1\nmain;a 6\nmain;new 4\n");

  /* What was written reads back and matches exactly. */
  knit_golden back;
  assert_int_equal(knit_golden_read(path, &back, err, sizeof err), 0);
  assert_int_equal(knit_golden_compare(&back, &m, KNIT_CHECK_EXACT, NULL), 0);
  assert_true(back.tolerance > 0.0999 && back.tolerance < 0.1001);
  knit_golden_free(&back);
  knit_golden_free(&old);
  knit_folded_free(&m);
  unlink(path);

  assert_int_equal(knit_golden_read("/nonexistent/golden", &back, err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/golden"));
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

static void test_parse_share_errors(void **state)
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

static void test_update_keeps_directives_only(void **state)
{
  (void)state;
  char path[] = "/tmp/knit-test-share-XXXXXX";
  make_temp_file(path);
  static const char TEXT[] = "# blame of the locks workload\n"
                             "# paths: ignore\n"
                             "# metric-share: OMP_MUTEX_BLAME main;hold >= 0.9\n";
  knit_golden old = parse_ok(TEXT);
  knit_folded m = {0};
  assert_int_equal(knit_folded_add(&m, "main;hold", 5), 0);
  knit_folded_finish(&m);
  char err[256];
  assert_int_equal(knit_golden_write(path, &old, &m, err, sizeof err), 0);
  char text[256];
  read_text(path, text, sizeof text);
  /* Writing the paths would make the golden unreadable. */
  assert_string_equal(text, TEXT);
  knit_golden back;
  assert_int_equal(knit_golden_read(path, &back, err, sizeof err), 0);
  assert_int_equal(back.share_count, 1);
  knit_golden_free(&back);
  knit_golden_free(&old);
  knit_folded_free(&m);
  unlink(path);
}

/* A golden that names functions by their symbols as compiled (MAIN__, a
 * mangled C++ name) matches a measurement that shows them readable: knit
 * check renames the golden's frames, paths and metric-share prefixes,
 * after the measurement's own symbols. */
static void test_golden_symbol_names(void **state)
{
  (void)state;
  knit_read_module mods[] = {{.id = 0, .path = "/bin/heat"}};
  knit_read_node nodes[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, 0x100},   /* main */
      {1, 0, KNIT_NODE_CALL, 0x200},   /* MAIN__ */
      {2, 0, KNIT_NODE_CALL, 0x300},   /* _ZN7physics4stepEi */
      {3, 0, KNIT_NODE_SAMPLE, 0x400}, /* physics::step's loop body */
  };
  knit_thread_file f = {.module_count = 1, .modules = mods, .node_count = 5, .nodes = nodes};
  knit_report_tree t;
  assert_int_equal(knit_report_tree_init(&t), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &f), 0);
  t.nodes[0].function = "ROOT";
  t.nodes[1].function = "main";
  t.nodes[2].function = "heat";
  t.nodes[2].raw_function = "MAIN__";
  t.nodes[3].function = "physics::step(int)";
  t.nodes[3].raw_function = "_ZN7physics4stepEi";
  t.nodes[4].function = "physics::step(int) [omp_fn.0]";
  t.nodes[4].raw_function = "_ZN7physics4stepEi._omp_fn.0";

  knit_golden g = parse_ok("# metric-share: PROBE main;MAIN__;_ZN7physics4stepEi >= 0.5\n"
                           "main;MAIN__;_ZN7physics4stepEi;omp.outlined 3\n"
                           "main;MAIN__ 1\n"
                           "main;heat 2\n"
                           "main;MAIN___not;heat 4\n");
  assert_int_equal(knit_golden_use_names(&g, &t), 0);
  /* Sorted again, and the two spellings of one path merged. */
  assert_int_equal(g.paths.count, 3);
  assert_string_equal(g.paths.lines[0].path, "main;MAIN___not;heat");
  assert_string_equal(g.paths.lines[1].path, "main;heat");
  assert_int_equal(g.paths.lines[1].count, 3);
  assert_string_equal(g.paths.lines[2].path, "main;heat;physics::step(int);omp.outlined");
  assert_int_equal(g.paths.total, 10);
  assert_string_equal(g.shares[0].prefix, "main;heat;physics::step(int)");
  knit_golden_free(&g);
  knit_report_tree_free(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_exact),
      cmocka_unit_test(test_shares),
      cmocka_unit_test(test_tolerance_directive),
      cmocka_unit_test(test_update_keeps_comments),
      cmocka_unit_test(test_parse_directives),
      cmocka_unit_test(test_parse_share_errors),
      cmocka_unit_test(test_update_keeps_directives_only),
      cmocka_unit_test(test_golden_symbol_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
