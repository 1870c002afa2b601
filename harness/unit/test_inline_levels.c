/* Inlined calls as levels of the report (calltree.h, view_tree.h,
 * folded.h), on a profile built in memory whose nodes carry the inlined
 * calls the symbolizer would give them: each inlined function a node of
 * its own below its caller, marked, merged by function whatever the
 * address; its caller's line the call site; lines mode and --no-inline;
 * folded recursion, whose inlined calls are those of its innermost level;
 * the folded form with `_[i]` frames, and without them for goldens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/folded.h"
#include "profiler/report/view_tree.h"

#define EXE "/usr/bin/app"
#define SRC "/src/app.c"

/* main calls run, run calls work, work calls helper, inlined, from lines
 * 21 and 22; helper calls deep, inlined too, from line 31. */
static const knit_inline_level helper_from_21[] = {{"helper", NULL, SRC, 21, 0}};
static const knit_inline_level helper_from_22[] = {{"helper", NULL, SRC, 22, 0}};
static const knit_inline_level deep_in_helper[] = {{"helper", NULL, SRC, 21, 0},
                                                   {"deep", NULL, SRC, 31, 0}};
static const knit_inline_level helper_in_rec[] = {{"helper", NULL, SRC, 51, 0}};

/* What the symbolizer would say about each offset: the symbol's function,
 * the address's line and the calls inlined there. */
static const struct {
  uint64_t offset;
  const char *function;
  unsigned line;
  const knit_inline_level *inlined;
  uint32_t inlined_count;
} names[] = {
    {0x100, "main", 10, NULL, 0},
    {0x200, "run", 20, NULL, 0},
    {0x300, "work", 30, helper_from_21, 1}, /* in helper */
    {0x304, "work", 40, deep_in_helper, 2}, /* in deep, in helper */
    {0x308, "work", 30, helper_from_22, 1}, /* in helper, called elsewhere */
    {0x400, "work", 25, NULL, 0},           /* in work itself */
    {0x500, "rec", 50, NULL, 0},            /* rec calls itself */
    {0x504, "rec", 60, helper_in_rec, 1},   /* in helper, in rec */
};

static knit_read_module modules[] = {{.id = 0, .path = EXE}};
static knit_read_node nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},   /* 1 main */
    {1, 0, KNIT_NODE_CALL, 0x200},   /* 2 run */
    {2, 0, KNIT_NODE_SAMPLE, 0x300}, /* 3 */
    {2, 0, KNIT_NODE_SAMPLE, 0x304}, /* 4 */
    {2, 0, KNIT_NODE_SAMPLE, 0x308}, /* 5 */
    {2, 0, KNIT_NODE_SAMPLE, 0x400}, /* 6 */
};
static knit_read_metric metrics[] = {{3, KNIT_METRIC_SAMPLES, 3},
                                     {4, KNIT_METRIC_SAMPLES, 2},
                                     {5, KNIT_METRIC_SAMPLES, 4},
                                     {6, KNIT_METRIC_SAMPLES, 1}};

/* Recursion: main -> rec -> rec -> rec, sampled in helper, inlined in the
 * innermost rec, and in the outermost rec's own code. */
static knit_read_node recursion_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},   /* 1 main */
    {1, 0, KNIT_NODE_CALL, 0x500},   /* 2 rec */
    {2, 0, KNIT_NODE_CALL, 0x500},   /* 3 rec */
    {3, 0, KNIT_NODE_SAMPLE, 0x504}, /* 4 rec, in helper */
    {1, 0, KNIT_NODE_SAMPLE, 0x400}, /* 5 work's own code, under main */
};
static knit_read_metric recursion_metrics[] = {{4, KNIT_METRIC_SAMPLES, 3},
                                               {5, KNIT_METRIC_SAMPLES, 1}};

typedef struct fixture {
  knit_profile profile;
  knit_thread_file thread;
  char *text;
  size_t len;
} fixture;

static fixture *make_tree(knit_read_node *tree_nodes, size_t node_count,
                          knit_read_metric *tree_metrics, size_t metric_count)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->thread = (knit_thread_file){.name = "thread-0-1.knit",
                                 .module_count = 1,
                                 .modules = modules,
                                 .node_count = node_count,
                                 .nodes = tree_nodes,
                                 .metric_count = metric_count,
                                 .metrics = tree_metrics};
  f->thread.header.thread_flags = KNIT_THREAD_MAIN;
  f->thread.stats[KNIT_STAT_SAMPLES] = metric_count;
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
    n->function = "ROOT";
    for (size_t k = 0; i > 0 && k < sizeof names / sizeof names[0]; k++) {
      if (names[k].offset == n->offset) {
        n->function = names[k].function;
        n->file = SRC;
        n->line = names[k].line;
        n->inlined = names[k].inlined;
        n->inlined_count = names[k].inlined_count;
      }
    }
  }
  assert_int_equal(knit_report_tree_link(t), 0);
  return f;
}

static fixture *make_fixture(void)
{
  return make_tree(nodes, sizeof nodes / sizeof nodes[0], metrics,
                   sizeof metrics / sizeof metrics[0]);
}

static void free_fixture(fixture *f)
{
  knit_report_tree_free(&f->profile.tree);
  free(f);
}

static char *render(fixture *f, const knit_view_options *o)
{
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  knit_view_top_down(&f->profile, o, out);
  fclose(out);
  return f->text;
}

static void test_levels(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_view_options o = {.min_percent = 0};
  char *text = render(f, &o);
  /* helper's samples at three addresses, called from two lines, are one
   * node (7 of its own: 3 + 4); work keeps 1, at no inlined call; work's
   * line is its heaviest call site, helper's call at 21 (5 against 4). */
  assert_string_equal(text, "incl   incl%  excl  function                source\n"
                            "  10  100.0%     0  main                    app.c:10\n"
                            "  10  100.0%     0    run                   app.c:20\n"
                            "  10  100.0%     1      work                app.c:21 +2\n"
                            "   9   90.0%     7        helper [inlined]  app.c:30 +1\n"
                            "   2   20.0%     2          deep [inlined]  app.c:40\n");
  free(text);
  free_fixture(f);
}

static void test_no_inline(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_view_options o = {.tree = {.no_inline = 1}, .min_percent = 0};
  char *text = render(f, &o);
  /* As before inlined calls were shown: all of it is work's, on the
   * innermost lines. */
  assert_string_equal(text, "incl   incl%  excl  function  source\n"
                            "  10  100.0%     0  main      app.c:10\n"
                            "  10  100.0%     0    run     app.c:20\n"
                            "  10  100.0%    10      work  app.c:30 +2\n");
  free(text);
  free_fixture(f);
}

static void test_lines(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_view_options o = {.tree = {.lines = 1, .sort = KNIT_SORT_NAME}, .min_percent = 0};
  char *text = render(f, &o);
  /* Each sampled instruction is a node of work at the line of its
   * inlined call, with the inlined levels below it. */
  assert_string_equal(text, "incl   incl%  excl  function                source\n"
                            "  10  100.0%     0  main                    app.c:10\n"
                            "  10  100.0%     0    run                   app.c:20\n"
                            "   4   40.0%     0      work                app.c:22\n"
                            "   4   40.0%     4        helper [inlined]  app.c:30\n"
                            "   3   30.0%     0      work                app.c:21\n"
                            "   3   30.0%     3        helper [inlined]  app.c:30\n"
                            "   2   20.0%     0      work                app.c:21\n"
                            "   2   20.0%     0        helper [inlined]  app.c:31\n"
                            "   2   20.0%     2          deep [inlined]  app.c:40\n"
                            "   1   10.0%     1      work                app.c:25\n");
  free(text);
  free_fixture(f);
}

static void test_fold(void **state)
{
  (void)state;
  fixture *f = make_tree(recursion_nodes, sizeof recursion_nodes / sizeof recursion_nodes[0],
                         recursion_metrics, sizeof recursion_metrics / sizeof recursion_metrics[0]);
  knit_view_options o = {.tree = {.fold_recursion = 1}, .min_percent = 0};
  char *text = render(f, &o);
  /* The recursion is one node, and the inlined helper of its innermost
   * level, where the path went on, is below it, called from line 51. */
  assert_string_equal(text, "incl   incl%  excl  function              source\n"
                            "   4  100.0%     0  main                  app.c:10\n"
                            "   3   75.0%     0    rec [x3]            app.c:51\n"
                            "   3   75.0%     3      helper [inlined]  app.c:60\n"
                            "   1   25.0%     1    work                app.c:25\n");
  free(text);
  free_fixture(f);
}

static void expect_folded(const knit_folded *f, const char *const *want, size_t count)
{
  char all[1024] = "";
  for (size_t i = 0; i < f->count; i++) {
    size_t len = strlen(all);
    snprintf(all + len, sizeof all - len, "%s %llu\n", f->lines[i].path,
             (unsigned long long)f->lines[i].count);
  }
  char expected[1024] = "";
  for (size_t i = 0; i < count; i++) {
    size_t len = strlen(expected);
    snprintf(expected + len, sizeof expected - len, "%s\n", want[i]);
  }
  assert_string_equal(all, expected);
}

static void test_folded(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  knit_folded folded;
  assert_int_equal(knit_folded_of_metric_levels(&f->profile.tree, KNIT_METRIC_SAMPLES, 1, &folded),
                   0);
  expect_folded(&folded,
                (const char *const[]){"main;run;work 1", "main;run;work;helper_[i] 7",
                                      "main;run;work;helper_[i];deep_[i] 2"},
                3);
  knit_folded_free(&folded);
  /* What goldens are compared with: the symbols' frames. */
  assert_int_equal(knit_folded_of_metric(&f->profile.tree, KNIT_METRIC_SAMPLES, &folded), 0);
  expect_folded(&folded, (const char *const[]){"main;run;work 10"}, 1);
  knit_folded_free(&folded);
  assert_int_equal(knit_folded_from_tree(&f->profile.tree, &folded), 0);
  expect_folded(&folded, (const char *const[]){"main;run;work 10"}, 1);
  knit_folded_free(&folded);
  free_fixture(f);
}

static void test_folded_rules(void **state)
{
  (void)state;
  /* An inlined main does not start the path; an inlined outlined body is
   * omp.outlined like any (clang inlines a task's body into its entry);
   * spaces and ';' are '_' as in any frame. */
  const knit_folded_frame frames[] = {
      {.function = "_start", .module = EXE},
      {.function = "main", .module = EXE, .inlined = 1},
      {.function = "main", .module = EXE},
      {.function = ".omp_task_entry.", .module = EXE},
      {.function = ".omp_outlined.", .module = EXE, .inlined = 1},
      {.function = "a b;c", .module = EXE, .inlined = 1},
  };
  char *path = knit_folded_normalize(frames, sizeof frames / sizeof frames[0]);
  assert_string_equal(path, "main;omp.outlined_[i];a_b_c_[i]");
  free(path);
  /* clang -O2's debug body inlined into its wrapper is that body's frame. */
  const knit_folded_frame clang[] = {
      {.function = "main", .module = EXE},
      {.function = ".omp_outlined.", .module = EXE},
      {.function = ".omp_outlined._debug__", .module = EXE, .inlined = 1},
      {.function = "quicksort", .module = EXE},
      {.function = "partition", .module = EXE, .inlined = 1},
  };
  path = knit_folded_normalize(clang, sizeof clang / sizeof clang[0]);
  assert_string_equal(path, "main;omp.outlined;quicksort;partition_[i]");
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_levels),       cmocka_unit_test(test_no_inline),
      cmocka_unit_test(test_lines),        cmocka_unit_test(test_folded),
      cmocka_unit_test(test_folded_rules), cmocka_unit_test(test_fold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
