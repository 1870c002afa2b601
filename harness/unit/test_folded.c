/* Folded stacks: the normalization rules that make goldens the same on every
 * runtime and compiler, and the merging of a tree into folded lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/folded.h"
#include "profiler/report/tree.h"

#define EXE  "/usr/bin/app"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LD   "/lib64/ld-linux-x86-64.so.2"
#define GOMP "/usr/lib/x86_64-linux-gnu/libgomp.so.1"

/* Frames are written {name, module}, and {name, module, 1} for an inlined
 * call: the mark left out is 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define FRAMES(...) ((const knit_folded_frame[]){__VA_ARGS__})
#define COUNT(...)  (sizeof((const knit_folded_frame[]){__VA_ARGS__}) / sizeof(knit_folded_frame))
#define EXPECT_PATH(want, ...)                                                                     \
  do {                                                                                             \
    char *got = knit_folded_normalize(FRAMES(__VA_ARGS__), COUNT(__VA_ARGS__));                    \
    assert_string_equal(got, want);                                                                \
    free(got);                                                                                     \
  } while (0)

static void test_frames_before_main_dropped(void **state)
{
  (void)state;
  EXPECT_PATH("main;compute;kernel", {"_start", EXE}, {"__libc_start_call_main", LIBC},
              {"main", EXE}, {"compute", EXE}, {"kernel", EXE});
  /* Only the first main counts: a recursive main keeps its inner frames. */
  EXPECT_PATH("main;main;f", {"_start", EXE}, {"main", EXE}, {"main", EXE}, {"f", EXE});
}

static void test_system_frames_dropped_without_main(void **state)
{
  (void)state;
  EXPECT_PATH("omp.outlined;work", {"__clone3", LIBC}, {"start_thread", LIBC},
              {"main._omp_fn.0", EXE}, {"work", EXE});
  /* Frames of other libraries stay, and so do libc frames further in. */
  EXPECT_PATH("gomp_thread_start;omp.outlined;memcpy", {"clone3", LIBC}, {"start_thread", LIBC},
              {"gomp_thread_start", GOMP}, {"f._omp_fn.3", EXE}, {"memcpy", LIBC});
  /* A path of system frames only keeps its innermost frame. */
  EXPECT_PATH("_dl_start", {"_start", LD}, {"_dl_start", LD});
}

static void test_outlined_names(void **state)
{
  (void)state;
  assert_string_equal(knit_folded_frame_name("main._omp_fn.0"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("compute._omp_fn.12"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name(".omp_outlined."), "omp.outlined");
  assert_string_equal(knit_folded_frame_name(".omp_outlined..7"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name(".omp_outlined._debug__.2"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("main.omp_outlined"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("omp_fn"), "omp_fn");
  assert_string_equal(knit_folded_frame_name("my_omp_outlined_helper"), "my_omp_outlined_helper");
}

/* Bodies named by their construct (report/construct_names.h): knit check's
 * form folds them as it folds their symbols; the named form keeps them. */
static void test_construct_names(void **state)
{
  (void)state;
  assert_string_equal(knit_folded_frame_name("parallel at heat.c:42"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("task_at_qsort.c:27"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("taskloop body at t.c:3"), "omp.outlined");
  assert_true(knit_folded_is_wrapper("teams at t.c:9"));
  assert_false(knit_folded_is_wrapper("parallel at heat.c"));
  assert_false(knit_folded_is_wrapper("myparallel at t.c:9"));
  assert_string_equal(knit_folded_frame_name("parallel at t.c:9x"), "parallel at t.c:9x");
  /* clang's task entry and the body it calls are one body. */
  EXPECT_PATH("main;omp.outlined;work", {"main", EXE}, {"task at q.c:27", EXE},
              {"task body at q.c:27", EXE}, {"work", EXE});

  /* In a tree: a task entry that inlined its body, named by its construct. */
  knit_read_module mods[] = {{.id = 0, .path = EXE}};
  knit_read_node nodes[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, 0x100},   /* main */
      {1, 0, KNIT_NODE_SAMPLE, 0x300}, /* the task's entry */
  };
  knit_read_metric metrics[] = {{2, KNIT_METRIC_SAMPLES, 3}};
  knit_thread_file a = {.module_count = 1,
                        .modules = mods,
                        .node_count = 3,
                        .nodes = nodes,
                        .metric_count = 1,
                        .metrics = metrics};
  knit_report_tree t;
  assert_int_equal(knit_report_tree_init(&t), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &a), 0);
  t.nodes[0].function = "ROOT";
  t.nodes[1].function = "main";
  t.nodes[2].function = "task at q.c:27";
  t.nodes[2].raw_function = ".omp_task_entry..4";
  assert_int_equal(knit_report_tree_link(&t), 0);
  knit_folded f;
  assert_int_equal(knit_folded_from_tree(&t, &f), 0);
  assert_int_equal(f.count, 1);
  assert_string_equal(f.lines[0].path, "main"); /* the entry goes, as its symbol would */
  knit_folded_free(&f);
  assert_int_equal(knit_folded_as_named(&t, KNIT_METRIC_SAMPLES, 0, &f), 0);
  assert_int_equal(f.count, 1);
  assert_string_equal(f.lines[0].path, "main;task_at_q.c:27");
  knit_folded_free(&f);
  knit_report_tree_free(&t);
}

static void test_clang_debug_bodies_collapse(void **state)
{
  (void)state;
  /* clang -O0: the wrapper calls its _debug__ body; one frame remains. */
  EXPECT_PATH("main;omp.outlined;work", {"main", EXE}, {".omp_outlined.", EXE},
              {".omp_outlined._debug__", EXE}, {"work", EXE});
  /* Nested regions stay two levels deep. */
  EXPECT_PATH("main;omp.outlined;omp.outlined;work", {"main", EXE}, {".omp_outlined.", EXE},
              {".omp_outlined._debug__", EXE}, {".omp_outlined..1", EXE},
              {".omp_outlined._debug__.2", EXE}, {"work", EXE});
  /* A debug body that was entered directly (its wrapper was cut) stays. */
  EXPECT_PATH("main;omp.outlined;work", {"main", EXE}, {".omp_outlined._debug__", EXE},
              {"work", EXE});
  /* clang's task entry trampoline disappears, as gcc has none. */
  EXPECT_PATH("main;omp.outlined;omp.outlined;task_work", {"main", EXE}, {"main._omp_fn.0", EXE},
              {".omp_task_entry.", EXE}, {".omp_outlined..3", EXE}, {"task_work", EXE});
}

static void test_placeholders_and_odd_names(void **state)
{
  (void)state;
  EXPECT_PATH("<omp-idle>", {"ROOT", NULL}, {"<omp-idle>", NULL});
  EXPECT_PATH("main;<omp-barrier>", {"main", EXE}, {"<omp-barrier>", NULL});
  EXPECT_PATH("<partial>;work;0x7fff1234", {"<partial>", NULL}, {"work", EXE},
              {"0x7fff1234", NULL});
  EXPECT_PATH("main;my_lib.so+0x10", {"main", EXE}, {"my lib.so+0x10", "/x/my lib.so"});
  EXPECT_PATH("main;a_b", {"main", EXE}, {"a;b", EXE});
}

static void test_lines_sorted_and_merged(void **state)
{
  (void)state;
  knit_folded f = {0};
  assert_int_equal(knit_folded_add(&f, "main;b", 2), 0);
  assert_int_equal(knit_folded_add(&f, "main;a", 1), 0);
  assert_int_equal(knit_folded_add(&f, "main;b", 3), 0);
  knit_folded_finish(&f);
  assert_int_equal(f.count, 2);
  assert_string_equal(f.lines[0].path, "main;a");
  assert_int_equal(f.lines[1].count, 5);
  assert_int_equal(f.total, 6);
  assert_non_null(knit_folded_find(&f, "main;b"));
  assert_null(knit_folded_find(&f, "main;c"));
  knit_folded_free(&f);
}

/* Two threads whose trees differ only in call sites (offsets) and in module
 * order: their paths merge in the tree where they are the same node, and in
 * the folded form where only the names are the same. */
static void test_tree_to_folded(void **state)
{
  (void)state;
  knit_read_module mods_a[] = {{.id = 0, .path = EXE}, {.id = 1, .path = LIBC}};
  knit_read_module mods_b[] = {{.id = 0, .path = LIBC}, {.id = 1, .path = EXE}};
  knit_read_node nodes_a[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 1, KNIT_NODE_CALL, 0x100},   /* __libc_start_call_main */
      {1, 0, KNIT_NODE_CALL, 0x200},   /* main, call site 1 */
      {2, 0, KNIT_NODE_SAMPLE, 0x300}, /* work */
      {1, 0, KNIT_NODE_CALL, 0x210},   /* main, call site 2 */
      {4, 0, KNIT_NODE_SAMPLE, 0x300}, /* work */
  };
  knit_read_node nodes_b[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, 0x100},
      {1, 1, KNIT_NODE_CALL, 0x200},
      {2, 1, KNIT_NODE_SAMPLE, 0x300},
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_IDLE},
  };
  knit_read_metric metrics_a[] = {{3, KNIT_METRIC_SAMPLES, 4}, {5, KNIT_METRIC_SAMPLES, 1}};
  knit_read_metric metrics_b[] = {{3, KNIT_METRIC_SAMPLES, 2}, {4, KNIT_METRIC_SAMPLES, 7}};
  knit_thread_file a = {.module_count = 2,
                        .modules = mods_a,
                        .node_count = 6,
                        .nodes = nodes_a,
                        .metric_count = 2,
                        .metrics = metrics_a};
  knit_thread_file b = {.module_count = 2,
                        .modules = mods_b,
                        .node_count = 5,
                        .nodes = nodes_b,
                        .metric_count = 2,
                        .metrics = metrics_b};

  knit_report_tree t;
  assert_int_equal(knit_report_tree_init(&t), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &a), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &b), 0);
  /* root, libc call, main@0x200, work, main@0x210, work, idle */
  assert_int_equal(t.node_count, 7);
  for (size_t i = 0; i < t.node_count; i++) {
    knit_report_node *n = &t.nodes[i];
    if (n->module == KNIT_MODULE_PLACEHOLDER)
      n->function = n->offset == KNIT_PH_ROOT ? "ROOT" : "<omp-idle>";
    else if (strcmp(knit_report_node_module(&t, n), LIBC) == 0)
      n->function = "__libc_start_call_main";
    else
      n->function = n->kind == KNIT_NODE_CALL ? "main" : "work";
  }
  assert_int_equal(knit_report_tree_link(&t), 0);
  assert_int_equal(t.nodes[0].inclusive[KNIT_METRIC_SAMPLES], 14);
  /* The root's children: the idle placeholder (7) before libc (7) by name. */
  assert_int_equal(t.nodes[0].child_count, 2);
  assert_string_equal(t.nodes[t.children[t.nodes[0].first_child]].function, "<omp-idle>");

  knit_folded f;
  assert_int_equal(knit_folded_from_tree(&t, &f), 0);
  assert_int_equal(f.count, 2);
  assert_string_equal(f.lines[0].path, "<omp-idle>");
  assert_int_equal(f.lines[0].count, 7);
  assert_string_equal(f.lines[1].path, "main;work");
  assert_int_equal(f.lines[1].count, 7);
  assert_int_equal(f.total, 14);
  knit_folded_free(&f);
  knit_report_tree_free(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frames_before_main_dropped),
      cmocka_unit_test(test_system_frames_dropped_without_main),
      cmocka_unit_test(test_outlined_names),
      cmocka_unit_test(test_construct_names),
      cmocka_unit_test(test_clang_debug_bodies_collapse),
      cmocka_unit_test(test_placeholders_and_odd_names),
      cmocka_unit_test(test_lines_sorted_and_merged),
      cmocka_unit_test(test_tree_to_folded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
