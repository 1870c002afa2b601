/* The report's other views of a small profile built in memory: the
 * bottom-up (callers) tree, the flat rows by function, line and module,
 * the focus and ignore filters, and the choice of threads; exact values,
 * recursion included.
 *
 * The profile, PROBE, one thread (function-level paths, probes):
 *   P1 main;a;leaf                      2  (leaf at line 30)
 *   P2 main;a;rec;rec;leaf              3  (rec's calls at 40 and 41)
 *   P3 main;a;rec;leaf                  1  (leaf at line 31)
 *   P4 main;b;rec;rec;rec;rec           4  (calls 40, 41, 41; sampled at 42)
 *   P5 main;a;lib_fn;inl_helper         5  (in libx, no line; inl_helper
 *                                          inlined into lib_fn at line 60)
 * and 1.5 probes of OMP_IDLE on P2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/bottom_up.h"
#include "profiler/report/flat.h"
#include "profiler/report/path_filter.h"
#include "profiler/report/thread_select.h"
#include "profiler/report/view_bottom_up.h"
#include "profiler/report/view_flat.h"

#define EXE "/usr/bin/app"
#define LIB "/usr/lib/libx.so"
#define SRC "/src/app.c"

static const struct {
  const char *module;
  uint64_t offset;
  const char *function;
  unsigned line; /* 0: none known */
} names[] = {
    {EXE, 0x100, "main", 10}, {EXE, 0x200, "a", 20},    {EXE, 0x500, "b", 50},
    {EXE, 0x400, "rec", 40},  {EXE, 0x404, "rec", 41},  {EXE, 0x408, "rec", 42},
    {EXE, 0x300, "leaf", 30}, {EXE, 0x304, "leaf", 31}, {LIB, 0x10, "lib_fn", 0},
};

static const knit_inline_level helper_level[] = {
    {.function = "inl_helper", .call_file = SRC, .call_line = 60}};

static knit_read_module modules[] = {{.id = 0, .path = EXE}, {.id = 1, .path = LIB}};
static const knit_read_node nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},    /* 1 main */
    {1, 0, KNIT_NODE_CALL, 0x200},    /* 2 a */
    {2, 0, KNIT_NODE_SAMPLE, 0x300},  /* 3 leaf: P1 */
    {2, 0, KNIT_NODE_CALL, 0x400},    /* 4 rec */
    {4, 0, KNIT_NODE_CALL, 0x404},    /* 5 rec */
    {5, 0, KNIT_NODE_SAMPLE, 0x300},  /* 6 leaf: P2 */
    {4, 0, KNIT_NODE_SAMPLE, 0x304},  /* 7 leaf: P3 */
    {1, 0, KNIT_NODE_CALL, 0x500},    /* 8 b */
    {8, 0, KNIT_NODE_CALL, 0x400},    /* 9 rec */
    {9, 0, KNIT_NODE_CALL, 0x404},    /* 10 rec */
    {10, 0, KNIT_NODE_CALL, 0x404},   /* 11 rec */
    {11, 0, KNIT_NODE_SAMPLE, 0x408}, /* 12 rec: P4 */
    {2, 1, KNIT_NODE_SAMPLE, 0x10},   /* 13 lib_fn: P5 */
};
static const knit_read_metric metrics[] = {
    {3, KNIT_METRIC_SAMPLES, 2},  {6, KNIT_METRIC_SAMPLES, 3},
    {7, KNIT_METRIC_SAMPLES, 1},  {12, KNIT_METRIC_SAMPLES, 4},
    {13, KNIT_METRIC_SAMPLES, 5}, {6, KNIT_METRIC_OMP_IDLE, 1500}, /* milli-periods */
};
#define METRIC_COUNT (sizeof metrics / sizeof metrics[0])

typedef struct fixture {
  knit_profile profile;
  knit_thread_file thread;
  knit_read_node nodes[sizeof nodes / sizeof nodes[0]];
  knit_read_metric metrics[METRIC_COUNT]; /* the filters change them */
  char *text;
  size_t len;
} fixture;

static fixture *make_fixture(void)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  memcpy(f->nodes, nodes, sizeof nodes);
  memcpy(f->metrics, metrics, sizeof metrics);
  f->thread = (knit_thread_file){.name = "thread-0-1.knit",
                                 .module_count = 2,
                                 .modules = modules,
                                 .node_count = sizeof nodes / sizeof nodes[0],
                                 .nodes = f->nodes,
                                 .metric_count = METRIC_COUNT,
                                 .metrics = f->metrics};
  f->thread.header.thread_flags = KNIT_THREAD_MAIN | KNIT_THREAD_OPENMP;
  knit_measurement *m = &f->profile.measurement;
  m->dir = "/m";
  m->thread_count = 1;
  m->threads = &f->thread;
  snprintf(m->event, sizeof m->event, "PROBE");
  knit_report_tree *t = &f->profile.tree;
  assert_int_equal(knit_report_tree_init(t), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &f->thread), 0);
  for (size_t i = 0; i < t->node_count; i++) {
    knit_report_node *n = &t->nodes[i];
    const char *module = knit_report_node_module(t, n);
    n->function = "ROOT";
    for (size_t k = 0; module != NULL && k < sizeof names / sizeof names[0]; k++) {
      if (strcmp(names[k].module, module) == 0 && names[k].offset == n->offset) {
        n->function = names[k].function;
        n->file = names[k].line ? SRC : NULL;
        n->line = names[k].line;
      }
    }
    if (strcmp(n->function, "lib_fn") == 0) {
      n->inlined = helper_level;
      n->inlined_count = 1;
    }
  }
  assert_int_equal(knit_report_tree_link(t), 0);
  return f;
}

static void free_fixture(fixture *f)
{
  knit_report_tree_free(&f->profile.tree);
  free(f->text);
  free(f);
}

/* The child of node parent named name (inlined as given), or fails. */
static uint32_t child(const knit_calltree *ct, uint32_t parent, const char *name)
{
  const knit_calltree_node *p = &ct->nodes[parent];
  for (uint32_t c = 0; c < p->child_count; c++) {
    uint32_t n = ct->children[p->first_child + c];
    if (strcmp(ct->nodes[n].function, name) == 0)
      return n;
  }
  fail_msg("no child %s under %s", name, p->function);
  return 0;
}

/* The node at the end of a path of names from the root. */
static const knit_calltree_node *at(const knit_calltree *ct, const char *const *path)
{
  uint32_t n = 0;
  for (; *path != NULL; path++)
    n = child(ct, n, *path);
  return &ct->nodes[n];
}

#define PATH(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect_values(const knit_calltree_node *n, uint64_t incl, uint64_t excl)
{
  if (n->inclusive[KNIT_METRIC_SAMPLES] != incl || n->exclusive[KNIT_METRIC_SAMPLES] != excl)
    fail_msg("%s: incl %llu excl %llu, expected %llu %llu", n->function,
             (unsigned long long)n->inclusive[KNIT_METRIC_SAMPLES],
             (unsigned long long)n->exclusive[KNIT_METRIC_SAMPLES], (unsigned long long)incl,
             (unsigned long long)excl);
}

static void build_bottom_up(fixture *f, knit_calltree *td, knit_calltree *bu)
{
  knit_calltree_options o = {.sort = KNIT_SORT_EXCLUSIVE};
  assert_int_equal(knit_calltree_build(td, &f->profile.tree, &o), 0);
  assert_int_equal(knit_bottom_up_build(bu, td, KNIT_SORT_EXCLUSIVE, KNIT_METRIC_SAMPLES), 0);
}

static void test_bottom_up_roots(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_calltree td, bu;
  build_bottom_up(f, &td, &bu);
  assert_true(bu.bottom_up);
  assert_int_equal(bu.nodes[0].inclusive[KNIT_METRIC_SAMPLES], 15);
  /* Every function once, in order of exclusive value, then inclusive. */
  const char *order[] = {"leaf", "inl_helper", "rec", "main", "a", "lib_fn", "b"};
  const uint64_t incl[] = {6, 5, 8, 15, 11, 5, 4}, excl[] = {6, 5, 4, 0, 0, 0, 0};
  assert_int_equal(bu.nodes[0].child_count, 7);
  for (uint32_t i = 0; i < 7; i++) {
    const knit_calltree_node *n = &bu.nodes[bu.children[bu.nodes[0].first_child + i]];
    assert_string_equal(n->function, order[i]);
    expect_values(n, incl[i], excl[i]);
  }
  assert_int_equal(at(&bu, PATH("inl_helper"))->inlined, 1);
  knit_calltree_free(&bu);
  knit_calltree_free(&td);
  free_fixture(f);
}

static void test_bottom_up_callers(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_calltree td, bu;
  build_bottom_up(f, &td, &bu);
  /* leaf's samples came through rec (P2, P3) and straight from a (P1). */
  expect_values(at(&bu, PATH("leaf", "rec")), 4, 4);
  expect_values(at(&bu, PATH("leaf", "a")), 2, 2);
  expect_values(at(&bu, PATH("leaf", "rec", "rec")), 3, 3);
  expect_values(at(&bu, PATH("leaf", "rec", "a")), 1, 1);
  expect_values(at(&bu, PATH("leaf", "rec", "rec", "a", "main")), 3, 3);
  assert_int_equal(at(&bu, PATH("leaf", "rec", "rec", "a", "main"))->child_count, 0);
  /* A caller's line is its call: rec calls leaf at 41 (P2) and 40 (P3). */
  assert_int_equal(at(&bu, PATH("leaf", "rec"))->line, 41);
  assert_int_equal(at(&bu, PATH("leaf"))->line, 30);
  knit_calltree_free(&bu);
  knit_calltree_free(&td);
  free_fixture(f);
}

/* P2 passes through rec twice and P4 four times: each row counts a path
 * once, the root counts rec's inclusive value once per path, and only the
 * innermost frame's callers carry the exclusive value. */
static void test_bottom_up_recursion(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_calltree td, bu;
  build_bottom_up(f, &td, &bu);
  expect_values(at(&bu, PATH("rec")), 8, 4);
  expect_values(at(&bu, PATH("rec", "rec")), 7, 4);
  expect_values(at(&bu, PATH("rec", "a")), 4, 0);
  expect_values(at(&bu, PATH("rec", "b")), 4, 0);
  expect_values(at(&bu, PATH("rec", "rec", "rec")), 4, 4);
  expect_values(at(&bu, PATH("rec", "rec", "a")), 3, 0);
  expect_values(at(&bu, PATH("rec", "rec", "rec", "rec", "b", "main")), 4, 4);
  expect_values(at(&bu, PATH("rec", "rec", "rec", "b", "main")), 4, 0);
  /* Sorted by exclusive value, then inclusive, then name. */
  const knit_calltree_node *r = at(&bu, PATH("rec"));
  const char *order[] = {"rec", "a", "b"};
  for (uint32_t i = 0; i < 3; i++)
    assert_string_equal(bu.nodes[bu.children[r->first_child + i]].function, order[i]);
  /* OMP_IDLE came with P2 only: under leaf and rec alike. */
  assert_int_equal(at(&bu, PATH("leaf", "rec", "rec"))->inclusive[KNIT_METRIC_OMP_IDLE], 1500);
  assert_int_equal(at(&bu, PATH("rec", "rec", "a"))->inclusive[KNIT_METRIC_OMP_IDLE], 1500);
  assert_int_equal(at(&bu, PATH("rec"))->exclusive[KNIT_METRIC_OMP_IDLE], 0);
  knit_calltree_free(&bu);
  knit_calltree_free(&td);
  free_fixture(f);
}

static char *render_bottom_up(fixture *f, const knit_view_options *o)
{
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  knit_view_bottom_up(&f->profile, o, out);
  fclose(out);
  return f->text;
}

static void expect_contains(const char *text, const char *what)
{
  if (strstr(text, what) == NULL)
    fail_msg("expected \"%s\" in:\n%s", what, text);
}

static void test_bottom_up_text(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_view_options o = {.tree = {.sort = KNIT_SORT_EXCLUSIVE}, .min_percent = 20};
  knit_metric_columns_add(&o.columns, KNIT_METRIC_SAMPLES);
  char *text = render_bottom_up(f, &o);
  /* Shares of exclusive values; --min cuts by them: 20% of 15 is 3. */
  assert_string_equal(text, "incl  excl   excl%  function              source\n"
                            "   6     6   40.0%  leaf                  app.c:30\n"
                            "   4     4   26.7%    rec                 app.c:41\n"
                            "   3     3   20.0%      rec               app.c:40\n"
                            "   3     3   20.0%        a               app.c:20\n"
                            "   3     3   20.0%          main          app.c:10\n"
                            "   5     5   33.3%  inl_helper [inlined]\n"
                            "   5     5   33.3%    lib_fn              app.c:60\n"
                            "   5     5   33.3%      a                 app.c:20\n"
                            "   5     5   33.3%        main            app.c:10\n"
                            "   8     4   26.7%  rec                   app.c:42\n"
                            "   7     4   26.7%    rec                 app.c:41\n"
                            "   4     4   26.7%      rec               app.c:41\n"
                            "   4     4   26.7%        rec             app.c:40\n"
                            "   4     4   26.7%          b             app.c:50\n"
                            "   4     4   26.7%            main        app.c:10\n"
                            "(11 nodes below 20% of the total hidden with their callers; "
                            "--min=0 shows all)\n");
  free_fixture(f);
}

static knit_flat flat_of(fixture *f, knit_flat_key key)
{
  knit_calltree_options o = {0};
  knit_flat flat;
  assert_int_equal(knit_flat_build(&flat, &f->profile.tree, &o, key), 0);
  knit_flat_sort(&flat, KNIT_SORT_EXCLUSIVE, KNIT_METRIC_SAMPLES);
  return flat;
}

static void expect_row(const knit_flat_row *r, const char *name, unsigned line, uint64_t excl,
                       uint64_t incl)
{
  int same_name = name == NULL ? r->name == NULL : r->name != NULL && !strcmp(r->name, name);
  if (!same_name || r->line != line || r->exclusive[KNIT_METRIC_SAMPLES] != excl ||
      r->inclusive[KNIT_METRIC_SAMPLES] != incl)
    fail_msg("row %s:%u excl %llu incl %llu, expected %s:%u %llu %llu", r->name ? r->name : "-",
             r->line, (unsigned long long)r->exclusive[KNIT_METRIC_SAMPLES],
             (unsigned long long)r->inclusive[KNIT_METRIC_SAMPLES], name ? name : "-", line,
             (unsigned long long)excl, (unsigned long long)incl);
}

static void test_flat_by_function(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_flat flat = flat_of(f, KNIT_FLAT_FUNCTION);
  assert_int_equal(flat.total[KNIT_METRIC_SAMPLES], 15);
  assert_int_equal(flat.count, 7);
  expect_row(&flat.rows[0], "leaf", 0, 6, 6);
  expect_row(&flat.rows[1], "inl_helper", 0, 5, 5);
  assert_int_equal(flat.rows[1].inlined, 1);
  /* rec: four frames of P4, two of P2, one of P3, each path once. */
  expect_row(&flat.rows[2], "rec", 0, 4, 8);
  expect_row(&flat.rows[3], "main", 0, 0, 15);
  expect_row(&flat.rows[4], "a", 0, 0, 11);
  expect_row(&flat.rows[5], "lib_fn", 0, 0, 5);
  expect_row(&flat.rows[6], "b", 0, 0, 4);
  knit_flat_sort(&flat, KNIT_SORT_INCLUSIVE, KNIT_METRIC_SAMPLES);
  expect_row(&flat.rows[0], "main", 0, 0, 15);
  expect_row(&flat.rows[1], "a", 0, 0, 11);
  expect_row(&flat.rows[2], "rec", 0, 4, 8);
  knit_flat_sort(&flat, KNIT_SORT_NAME, KNIT_METRIC_SAMPLES);
  expect_row(&flat.rows[0], "a", 0, 0, 11);
  knit_flat_sort(&flat, KNIT_SORT_EXCLUSIVE, KNIT_METRIC_OMP_IDLE);
  assert_string_equal(flat.rows[0].name, "leaf");
  assert_int_equal(flat.rows[0].exclusive[KNIT_METRIC_OMP_IDLE], 1500);
  knit_flat_free(&flat);
  free_fixture(f);
}

static void test_flat_by_line(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_flat flat = flat_of(f, KNIT_FLAT_LINE);
  assert_int_equal(flat.count, 10);
  /* Sampled lines by exclusive value; the line of no known line is its
   * function's; the inlined call's line (60) counts inclusive; line 41 is
   * on P4 twice and counts it once. */
  expect_row(&flat.rows[0], SRC, 30, 5, 5);
  expect_row(&flat.rows[1], NULL, 0, 5, 5);
  assert_string_equal(flat.rows[1].function, "lib_fn");
  expect_row(&flat.rows[2], SRC, 42, 4, 4);
  expect_row(&flat.rows[3], SRC, 31, 1, 1);
  expect_row(&flat.rows[4], SRC, 10, 0, 15);
  expect_row(&flat.rows[5], SRC, 20, 0, 11);
  expect_row(&flat.rows[6], SRC, 40, 0, 8);
  expect_row(&flat.rows[7], SRC, 41, 0, 7);
  expect_row(&flat.rows[8], SRC, 60, 0, 5);
  expect_row(&flat.rows[9], SRC, 50, 0, 4);
  knit_flat_free(&flat);
  free_fixture(f);
}

static void test_flat_by_module(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_flat flat = flat_of(f, KNIT_FLAT_MODULE);
  assert_int_equal(flat.count, 2);
  expect_row(&flat.rows[0], EXE, 0, 10, 15);
  expect_row(&flat.rows[1], LIB, 0, 5, 5);
  knit_flat_free(&flat);
  free_fixture(f);
}

static void test_flat_text(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_view_options o = {.tree = {.sort = KNIT_SORT_EXCLUSIVE}, .min_percent = 10};
  knit_metric_columns_add(&o.columns, KNIT_METRIC_SAMPLES);
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  knit_view_flat(&f->profile, &o, KNIT_FLAT_MODULE, out);
  knit_view_flat(&f->profile, &o, KNIT_FLAT_FUNCTION, out);
  fclose(out);
  assert_string_equal(f->text, "excl   excl%  incl   incl%  module\n"
                               "  10   66.7%    15  100.0%  app\n"
                               "   5   33.3%     5   33.3%  libx.so\n"
                               "excl   excl%  incl   incl%  function\n"
                               "   6   40.0%     6   40.0%  leaf\n"
                               "   5   33.3%     5   33.3%  inl_helper [inlined]\n"
                               "   4   26.7%     8   53.3%  rec\n"
                               "(4 rows below 10% of the total are hidden; --min=0 shows all)\n");
  free_fixture(f);
}

/* Filters a fresh fixture; returns it with the filter applied. */
static fixture *filtered(const char *focus, const char *ignore)
{
  fixture *f = make_fixture();
  knit_path_filter filter;
  char err[200];
  assert_int_equal(knit_path_filter_compile(&filter, focus, ignore, err, sizeof err), 0);
  assert_int_equal(knit_path_filter_apply(&filter, &f->profile), 0);
  assert_int_equal(filter.before[KNIT_METRIC_SAMPLES], 15);
  knit_path_filter_free(&filter);
  return f;
}

static uint64_t total(const fixture *f)
{
  return f->profile.tree.nodes[0].inclusive[KNIT_METRIC_SAMPLES];
}

/* What the thread's own metrics add up to after the filter. */
static uint64_t thread_total(const fixture *f)
{
  uint64_t sum = 0;
  for (size_t i = 0; i < f->thread.metric_count; i++)
    if (f->thread.metrics[i].metric == KNIT_METRIC_SAMPLES)
      sum += f->thread.metrics[i].value;
  return sum;
}

static void test_focus(void **state)
{
  (void)state;
  /* Unanchored: "rec" keeps P2, P3 and P4, each once however deep. */
  fixture *f = filtered("rec", NULL);
  assert_int_equal(total(f), 8);
  assert_int_equal(thread_total(f), 8);
  assert_int_equal(f->profile.tree.nodes[0].inclusive[KNIT_METRIC_OMP_IDLE], 1500);
  free_fixture(f);
  /* "a" is in main's name: every path. */
  f = filtered("a", NULL);
  assert_int_equal(total(f), 15);
  free_fixture(f);
  f = filtered("^b$", NULL);
  assert_int_equal(total(f), 4);
  free_fixture(f);
  /* An inlined level is a frame. */
  f = filtered("^inl_", NULL);
  assert_int_equal(total(f), 5);
  free_fixture(f);
  f = filtered("^nothing$", NULL);
  assert_int_equal(total(f), 0);
  assert_int_equal(thread_total(f), 0);
  free_fixture(f);
}

static void test_ignore(void **state)
{
  (void)state;
  fixture *f = filtered(NULL, "^leaf$");
  assert_int_equal(total(f), 9); /* P4 and P5 */
  assert_int_equal(thread_total(f), 9);
  assert_int_equal(f->profile.tree.nodes[0].inclusive[KNIT_METRIC_OMP_IDLE], 0);
  free_fixture(f);
  f = filtered(NULL, "inl_helper");
  assert_int_equal(total(f), 10);
  free_fixture(f);
  /* Both: through rec, but not through b: P2 and P3. */
  f = filtered("^rec$", "^b$");
  assert_int_equal(total(f), 4);
  /* The views follow: flat rec is 4 inclusive, 0 exclusive. */
  knit_flat flat = flat_of(f, KNIT_FLAT_FUNCTION);
  expect_row(&flat.rows[0], "leaf", 0, 4, 4);
  expect_row(&flat.rows[1], "a", 0, 0, 4);
  expect_row(&flat.rows[2], "main", 0, 0, 4);
  expect_row(&flat.rows[3], "rec", 0, 0, 4);
  knit_flat_free(&flat);
  free_fixture(f);
}

static void test_filter_errors(void **state)
{
  (void)state;
  knit_path_filter filter;
  char err[200];
  assert_int_equal(knit_path_filter_compile(&filter, "(", NULL, err, sizeof err), -1);
  expect_contains(err, "--focus=(: not a regular expression");
  assert_int_equal(knit_path_filter_compile(&filter, "ok", "[z-a]", err, sizeof err), -1);
  expect_contains(err, "--ignore=[z-a]: not a regular expression");
  assert_int_equal(knit_path_filter_compile(&filter, NULL, NULL, err, sizeof err), 0);
  assert_false(knit_path_filter_active(&filter));
  knit_path_filter_free(&filter);
}

static void test_thread_list_form(void **state)
{
  (void)state;
  char err[300];
  assert_int_equal(knit_thread_list_check("0,2-5", err, sizeof err), 0);
  assert_int_equal(knit_thread_list_check("7", err, sizeof err), 0);
  const char *bad[] = {"", "a", "1-", "-1", "1,,2", "1,", "5-3", "1 ", "99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (knit_thread_list_check(bad[i], err, sizeof err) != -1)
      fail_msg("'%s' passed", bad[i]);
  assert_int_equal(knit_thread_list_check("5-3", err, sizeof err), -1);
  expect_contains(err, "runs backwards");
}

static void test_thread_select(void **state)
{
  (void)state;
  knit_measurement m = {.thread_count = 4};
  m.threads = calloc(4, sizeof *m.threads);
  assert_non_null(m.threads);
  const uint32_t indexes[] = {0, 2, 3, 5};
  for (int i = 0; i < 4; i++)
    m.threads[i].header.thread_index = indexes[i];
  char err[300];
  assert_int_equal(knit_thread_select(&m, "1", err, sizeof err), -1);
  assert_string_equal(err, "--thread: unknown thread 1 (this measurement has: 0, 2-3, 5)");
  assert_int_equal(knit_thread_select(&m, "2-4", err, sizeof err), -1);
  assert_string_equal(err, "--thread: unknown thread 4 (this measurement has: 0, 2-3, 5)");
  assert_int_equal(m.thread_count, 4);
  assert_int_equal(knit_thread_select(&m, "5,2-3", err, sizeof err), 0);
  assert_int_equal(m.thread_count, 3);
  assert_int_equal(m.threads[0].header.thread_index, 2);
  assert_int_equal(m.threads[1].header.thread_index, 3);
  assert_int_equal(m.threads[2].header.thread_index, 5);
  free(m.threads);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bottom_up_roots),
      cmocka_unit_test(test_bottom_up_callers),
      cmocka_unit_test(test_bottom_up_recursion),
      cmocka_unit_test(test_bottom_up_text),
      cmocka_unit_test(test_flat_by_function),
      cmocka_unit_test(test_flat_by_line),
      cmocka_unit_test(test_flat_by_module),
      cmocka_unit_test(test_flat_text),
      cmocka_unit_test(test_focus),
      cmocka_unit_test(test_ignore),
      cmocka_unit_test(test_filter_errors),
      cmocka_unit_test(test_thread_list_form),
      cmocka_unit_test(test_thread_select),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
