/* The tree view of `knit report`: function-level merging, the hiding of the
 * frames before the application, units, sorting and the header, checked on
 * the printed text of a small profile built in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/names.h"
#include "profiler/report/view_tree.h"

#define EXE  "/usr/bin/app"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define SRC  "/src/app.c"

/* What the symbolizer would say about each (module, offset) of the profile. */
static const struct {
  const char *module;
  uint64_t offset;
  const char *function;
  unsigned line; /* 0: no line known */
} names[] = {
    {EXE, 0x10, "_start", 0},
    {LIBC, 0x20, "__libc_start_main", 0},
    {EXE, 0x100, "main", 10},
    {EXE, 0x110, "main", 11},
    {EXE, 0x200, "compute", 20},
    {EXE, 0x204, "compute", 21},
    {EXE, 0x300, "work", 30},
    {EXE, 0x304, "work", 31},
    {LIBC, 0x40, "clone3", 0},
    {LIBC, 0x50, "start_thread", 0},
    {EXE, 0x400, "background", 40},
    /* The recursion fixture's (make_recursion). */
    {EXE, 0x500, "_Z6energyv._omp_fn.0", 50},
    {EXE, 0x600, "_Z6reduceIdEdmm._omp_fn.2", 60},
    {EXE, 0x700, "_Z6reduceIdEdmm._omp_fn.0", 70},
    {EXE, 0x800, "leaf_work", 80},
    {EXE, 0x900, "fib", 90},
    {EXE, 0xa00, "fib._omp_fn.0", 100},
};

/* Recursion: main -> energy's region body -> a task body that inlined
 * reduce, three levels (two task constructs, in turn); and main -> fib ->
 * task -> fib -> task -> fib. */
static knit_read_module recursion_modules[] = {{.id = 0, .path = EXE}};
static knit_read_node recursion_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},    /* 1 main */
    {1, 0, KNIT_NODE_CALL, 0x500},    /* 2 energy._omp_fn.0 */
    {2, 0, KNIT_NODE_CALL, 0x600},    /* 3 reduce._omp_fn.2 */
    {3, 0, KNIT_NODE_CALL, 0x700},    /* 4 reduce._omp_fn.0 */
    {4, 0, KNIT_NODE_CALL, 0x600},    /* 5 reduce._omp_fn.2 */
    {5, 0, KNIT_NODE_SAMPLE, 0x800},  /* 6 leaf_work */
    {3, 0, KNIT_NODE_SAMPLE, 0x800},  /* 7 leaf_work, one level down */
    {1, 0, KNIT_NODE_CALL, 0x900},    /* 8 fib */
    {8, 0, KNIT_NODE_CALL, 0xa00},    /* 9 fib._omp_fn.0 */
    {9, 0, KNIT_NODE_CALL, 0x900},    /* 10 fib */
    {10, 0, KNIT_NODE_CALL, 0xa00},   /* 11 fib._omp_fn.0 */
    {11, 0, KNIT_NODE_CALL, 0x900},   /* 12 fib */
    {12, 0, KNIT_NODE_SAMPLE, 0x300}, /* 13 work */
    {8, 0, KNIT_NODE_SAMPLE, 0x300},  /* 14 work, in the outermost fib */
};
static knit_read_metric recursion_metrics[] = {{6, KNIT_METRIC_SAMPLES, 5},
                                               {7, KNIT_METRIC_SAMPLES, 2},
                                               {13, KNIT_METRIC_SAMPLES, 3},
                                               {14, KNIT_METRIC_SAMPLES, 1}};

/* The main thread: main calls compute from two lines (10 and 11), compute
 * calls work from two lines (20 and 21), and work is sampled at two pcs
 * (lines 30 and 31), all below the C library's start-up. */
static knit_read_module main_modules[] = {{.id = 0, .path = EXE}, {.id = 1, .path = LIBC}};
static knit_read_node main_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x10},    /* 1 _start */
    {1, 1, KNIT_NODE_CALL, 0x20},    /* 2 __libc_start_main */
    {2, 0, KNIT_NODE_CALL, 0x100},   /* 3 main:10 */
    {3, 0, KNIT_NODE_CALL, 0x200},   /* 4 compute:20 */
    {4, 0, KNIT_NODE_SAMPLE, 0x300}, /* 5 work:30 */
    {4, 0, KNIT_NODE_SAMPLE, 0x304}, /* 6 work:31 */
    {2, 0, KNIT_NODE_CALL, 0x110},   /* 7 main:11 */
    {7, 0, KNIT_NODE_CALL, 0x204},   /* 8 compute:21 */
    {8, 0, KNIT_NODE_SAMPLE, 0x300}, /* 9 work:30 */
};
static knit_read_metric main_metrics[] = {
    {5, KNIT_METRIC_SAMPLES, 3}, {6, KNIT_METRIC_SAMPLES, 2}, {9, KNIT_METRIC_SAMPLES, 6}};

/* A worker thread rooted in the C library, without main on its path. */
static knit_read_module worker_modules[] = {{.id = 0, .path = LIBC}, {.id = 1, .path = EXE}};
static knit_read_node worker_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x40},    /* clone3 */
    {1, 0, KNIT_NODE_CALL, 0x50},    /* start_thread */
    {2, 1, KNIT_NODE_CALL, 0x400},   /* background:40 */
    {3, 1, KNIT_NODE_SAMPLE, 0x300}, /* work:30 */
};
static knit_read_metric worker_metrics[] = {{4, KNIT_METRIC_SAMPLES, 4}};

typedef struct fixture {
  knit_profile profile;
  knit_thread_file threads[2];
  /* The memory stream's buffer lives here, not on the stack, so gcc does
   * not take pointers into the text for pointers to a dead local. */
  char *text;
  size_t len;
} fixture;

static void name_nodes(knit_report_tree *t)
{
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
  }
}

/* A profile of 15 periods (11 on the main thread) taken by 8 handler
 * invocations, with the given event and period. */
static fixture *make_fixture(const char *event, uint64_t period)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->threads[0] = (knit_thread_file){.name = "thread-0-1.knit",
                                     .module_count = 2,
                                     .modules = main_modules,
                                     .node_count = 10,
                                     .nodes = main_nodes,
                                     .metric_count = 3,
                                     .metrics = main_metrics};
  f->threads[0].header.thread_flags = KNIT_THREAD_MAIN;
  f->threads[0].stats[KNIT_STAT_SAMPLES] = 6;
  f->threads[1] = (knit_thread_file){.name = "thread-1-2.knit",
                                     .module_count = 2,
                                     .modules = worker_modules,
                                     .node_count = 5,
                                     .nodes = worker_nodes,
                                     .metric_count = 1,
                                     .metrics = worker_metrics};
  f->threads[1].header.thread_index = 1;
  f->threads[1].stats[KNIT_STAT_SAMPLES] = 2;

  knit_measurement *m = &f->profile.measurement;
  m->dir = "/m";
  m->thread_count = 2;
  m->threads = f->threads;
  snprintf(m->event, sizeof m->event, "%s", event);
  m->period = period;

  knit_report_tree *t = &f->profile.tree;
  assert_int_equal(knit_report_tree_init(t), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &f->threads[0]), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &f->threads[1]), 0);
  name_nodes(t);
  assert_int_equal(knit_report_tree_link(t), 0);
  return f;
}

/* A PROBE profile of the recursion fixture, one thread. */
static fixture *make_recursion(void)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->threads[0] = (knit_thread_file){.name = "thread-0-1.knit",
                                     .module_count = 1,
                                     .modules = recursion_modules,
                                     .node_count = 15,
                                     .nodes = recursion_nodes,
                                     .metric_count = 4,
                                     .metrics = recursion_metrics};
  f->threads[0].header.thread_flags = KNIT_THREAD_MAIN;
  f->threads[0].stats[KNIT_STAT_SAMPLES] = 11;
  knit_measurement *m = &f->profile.measurement;
  m->dir = "/m";
  m->thread_count = 1;
  m->threads = f->threads;
  snprintf(m->event, sizeof m->event, "PROBE");
  knit_report_tree *t = &f->profile.tree;
  assert_int_equal(knit_report_tree_init(t), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &f->threads[0]), 0);
  name_nodes(t);
  assert_int_equal(knit_report_tree_link(t), 0);
  return f;
}

static void free_fixture(fixture *f)
{
  /* The measurement points at static data: only the tree is the fixture's. */
  knit_report_tree_free(&f->profile.tree);
  free(f);
}

/* The tree as printed with the given options (caller frees). */
static char *render(fixture *f, const knit_view_options *o)
{
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  knit_view_top_down(&f->profile, o, out);
  fclose(out);
  return f->text;
}

static char *render_header(fixture *f)
{
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  knit_view_header(&f->profile, out);
  fclose(out);
  return f->text;
}

static size_t occurrences(const char *text, const char *what)
{
  size_t n = 0, at = 0;
  const char *hit;
  while ((hit = strstr(text + at, what)) != NULL) {
    n++;
    at = (size_t)(hit - text) + 1;
  }
  return n;
}

static void expect_contains(const char *text, const char *what)
{
  if (strstr(text, what) == NULL)
    fail_msg("expected \"%s\" in:\n%s", what, text);
}

/* --fold with the names the report shows (report/names.h): an outlined
 * body's readable name, "function [omp_fn.N]", folds as its symbol does. */
static void test_fold_readable_names(void **state)
{
  (void)state;
  fixture *f = make_recursion();
  knit_report_tree *t = &f->profile.tree;
  knit_name_context c = {.language = KNIT_LANGUAGE_OTHER};
  char *readable[32] = {NULL};
  assert_true(t->node_count <= 32);
  for (size_t i = 0; i < t->node_count; i++) {
    if ((readable[i] = knit_readable_name(t->nodes[i].function, &c)) != NULL) {
      t->nodes[i].raw_function = t->nodes[i].function;
      t->nodes[i].function = readable[i];
    }
  }
  assert_int_equal(knit_report_tree_link(t), 0);
  knit_view_options o = {.min_percent = 0};
  o.tree.fold_recursion = 1;
  char *text = render(f, &o);
  expect_contains(text, "   7   63.6%     0    energy() [omp_fn.0] ");
  expect_contains(text,
                  "   7   63.6%     0      double reduce<double>(unsigned long, unsigned long) "
                  "[omp_fn.2] [x3] ");
  expect_contains(text, "   4   36.4%     0    fib [x3] ");
  assert_null(strstr(text, "fib [omp_fn.0]"));
  free(f->text);
  free_fixture(f);
  for (size_t i = 0; i < 32; i++)
    free(readable[i]);
}

/* --fold: each recursion is one node with its depth, through tasks and
 * through task bodies that inlined the function; a region's body is not
 * folded into the function that opened it; nothing counted twice. */
static void test_fold_recursion(void **state)
{
  (void)state;
  fixture *f = make_recursion();
  knit_view_options o = {.min_percent = 0};
  o.tree.fold_recursion = 1;
  char *text = render(f, &o);
  expect_contains(text, "  11  100.0%     0  main ");
  expect_contains(text, "   7   63.6%     0    _Z6energyv._omp_fn.0 ");
  expect_contains(text, "   7   63.6%     0      _Z6reduceIdEdmm._omp_fn.2 [x3] ");
  expect_contains(text, "   7   63.6%     7        leaf_work ");
  /* The task bodies between the levels go with the levels: work in the
   * outermost fib and in the innermost are one node under the fold. */
  expect_contains(text, "   4   36.4%     0    fib [x3] ");
  expect_contains(text, "   4   36.4%     4      work ");
  assert_null(strstr(text, "fib._omp_fn.0"));
  assert_int_equal(occurrences(text, "fib "), 1);
  assert_int_equal(occurrences(text, "reduceIdEdmm"), 1);
  free(f->text);
  f->text = NULL;
  /* Unfolded, every level is a row. */
  o.tree.fold_recursion = 0;
  text = render(f, &o);
  assert_int_equal(occurrences(text, "fib "), 3);
  assert_null(strstr(text, "[x"));
  free(f->text);
  free_fixture(f);
}

static void test_functions_merge(void **state)
{
  (void)state;
  fixture *f = make_fixture("CPUTIME", 500000);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, &o);
  /* main's two call sites are one node showing the heavier line (11: 6
   * periods against 5) and "+1"; compute likewise. work's samples at lines
   * 30 (3 + 6) and 31 (2) are one exclusive value. The worker thread loses
   * clone3 and start_thread; the main thread everything above main. Values
   * are periods x 0.5 ms. */
  assert_string_equal(text, "incl ms   incl%  excl ms  function    source\n"
                            "    5.5   73.3%      0.0  main        app.c:11 +1\n"
                            "    5.5   73.3%      0.0    compute   app.c:21 +1\n"
                            "    5.5   73.3%      5.5      work    app.c:30 +1\n"
                            "    2.0   26.7%      0.0  background  app.c:40\n"
                            "    2.0   26.7%      2.0    work      app.c:30\n");
  free(text);
  free_fixture(f);
}

static void test_lines_keep_call_sites(void **state)
{
  (void)state;
  fixture *f = make_fixture("CPUTIME", 500000);
  knit_view_options o = {.tree = {.lines = 1}, .min_percent = 0};
  char *text = render(f, &o);
  /* One node per call site and per sampled pc: two mains, two computes,
   * and work three times under the main thread plus once for the worker. */
  assert_int_equal(occurrences(text, " main "), 2);
  assert_int_equal(occurrences(text, " compute "), 2);
  assert_int_equal(occurrences(text, " work "), 4);
  expect_contains(text, "    2.5   33.3%      0.0  main        app.c:10\n");
  expect_contains(text, "    1.5   20.0%      1.5      work    app.c:30\n");
  expect_contains(text, "    1.0   13.3%      1.0      work    app.c:31\n");
  assert_null(strstr(text, " +"));
  assert_null(strstr(text, "_start"));
  free(text);
  free_fixture(f);
}

static void test_all_frames(void **state)
{
  (void)state;
  fixture *f = make_fixture("CPUTIME", 500000);
  knit_view_options o = {.tree = {.all_frames = 1}, .min_percent = 0};
  char *text = render(f, &o);
  expect_contains(text, "    5.5   73.3%      0.0  _start\n");
  expect_contains(text, "    5.5   73.3%      0.0    __libc_start_main\n");
  expect_contains(text, "    5.5   73.3%      0.0      main  ");
  expect_contains(text, "    2.0   26.7%      0.0  clone3\n");
  expect_contains(text, "    2.0   26.7%      0.0    start_thread\n");
  expect_contains(text, "    2.0   26.7%      0.0      background  ");
  free(text);

  o.tree.all_frames = 0;
  text = render(f, &o);
  assert_null(strstr(text, "_start"));
  assert_null(strstr(text, "clone3"));
  free(text);
  free_fixture(f);
}

static void test_probe_counts(void **state)
{
  (void)state;
  fixture *f = make_fixture("PROBE", 0);
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, &o);
  assert_string_equal(text, "incl   incl%  excl  function    source\n"
                            "  11   73.3%     0  main        app.c:11 +1\n"
                            "  11   73.3%     0    compute   app.c:21 +1\n"
                            "  11   73.3%    11      work    app.c:30 +1\n"
                            "   4   26.7%     0  background  app.c:40\n"
                            "   4   26.7%     4    work      app.c:30\n");
  free(text);
  text = render_header(f);
  assert_string_equal(text, "PROBE: 8 probes, 2 threads, 0 partial unwinds\ndir: /m\n");
  free(text);
  free_fixture(f);
}

static void test_timer_header(void **state)
{
  (void)state;
  fixture *f = make_fixture("REALTIME", 250000);
  char *text = render_header(f);
  assert_string_equal(text, "REALTIME every 250 us: 8 samples (15 periods, 3.8 ms), "
                            "2 threads, 0 partial unwinds\ndir: /m\n");
  free(text);
  knit_view_options o = {.min_percent = 0};
  text = render(f, &o);
  expect_contains(text, "    2.8   73.3%      0.0  main  ");
  free(text);
  free_fixture(f);
}

static void test_sort_and_min(void **state)
{
  (void)state;
  fixture *f = make_fixture("PROBE", 0);
  knit_view_options o = {.tree = {.sort = KNIT_SORT_NAME}, .min_percent = 0};
  char *text = render(f, &o);
  char *background = strstr(text, " background ");
  char *main_row = strstr(text, " main ");
  assert_non_null(background);
  assert_non_null(main_row);
  assert_true(background < main_row);
  free(text);

  o.tree.sort = KNIT_SORT_INCLUSIVE;
  o.min_percent = 50;
  text = render(f, &o);
  assert_null(strstr(text, "background"));
  expect_contains(text, "(1 node below 50% of the total hidden with their callees; "
                        "--min=0 shows all)\n");
  free(text);
  free_fixture(f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_recursion),  cmocka_unit_test(test_fold_readable_names),
      cmocka_unit_test(test_functions_merge), cmocka_unit_test(test_lines_keep_call_sites),
      cmocka_unit_test(test_all_frames),      cmocka_unit_test(test_probe_counts),
      cmocka_unit_test(test_timer_header),    cmocka_unit_test(test_sort_and_min),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
