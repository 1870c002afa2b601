/* knit diff's contexts and its scaling loss, on two small profiles built in
 * memory: contexts match by the names along their paths whatever the
 * addresses, a context one side lacks is zero there, and the scaling loss
 * counts the time metric and OMP_IDLE but not the idle threads' own
 * samples, which OMP_IDLE holds already.
 *
 * A, one thread:   main;serial 8, main;work 4 probes.
 * B, four threads' worth: main;serial 8 probes with 24 of OMP_IDLE (three
 *   threads idle meanwhile), main;work 4, main;extra 2 (at other
 *   addresses than A's), and 24 probes of <omp-idle>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/diff.h"
#include "profiler/report/view_diff.h"

#define EXE "/usr/bin/app"

static knit_read_module modules[] = {{.id = 0, .path = EXE}};

static const knit_read_node a_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},   /* main */
    {1, 0, KNIT_NODE_SAMPLE, 0x200}, /* serial */
    {1, 0, KNIT_NODE_SAMPLE, 0x300}, /* work */
};
static knit_read_metric a_metrics[] = {{2, KNIT_METRIC_SAMPLES, 8}, {3, KNIT_METRIC_SAMPLES, 4}};

static const knit_read_node b_nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},   /* main */
    {1, 0, KNIT_NODE_SAMPLE, 0x204}, /* serial, at another pc */
    {1, 0, KNIT_NODE_SAMPLE, 0x300}, /* work */
    {1, 0, KNIT_NODE_SAMPLE, 0x400}, /* extra */
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_IDLE},
};
static knit_read_metric b_metrics[] = {{2, KNIT_METRIC_SAMPLES, 8},
                                       {2, KNIT_METRIC_OMP_IDLE, 24000},
                                       {3, KNIT_METRIC_SAMPLES, 4},
                                       {4, KNIT_METRIC_SAMPLES, 2},
                                       {5, KNIT_METRIC_SAMPLES, 24}};

static const char *name_of(const knit_report_node *n)
{
  if (n->kind == KNIT_NODE_PLACEHOLDER)
    return n->offset == KNIT_PH_OMP_IDLE ? "<omp-idle>" : "ROOT";
  switch (n->offset) {
  case 0x100: return "main";
  case 0x200:
  case 0x204: return "serial";
  case 0x300: return "work";
  default: return "extra";
  }
}

typedef struct side {
  knit_profile profile;
  knit_thread_file thread;
} side;

static void make_side(side *s, const char *dir, const knit_read_node *nodes, size_t node_count,
                      knit_read_metric *metrics, size_t metric_count)
{
  memset(s, 0, sizeof *s);
  s->thread = (knit_thread_file){.module_count = 1,
                                 .modules = modules,
                                 .node_count = node_count,
                                 .nodes = (knit_read_node *)nodes,
                                 .metric_count = metric_count,
                                 .metrics = metrics};
  s->thread.header.thread_flags = KNIT_THREAD_MAIN | KNIT_THREAD_OPENMP;
  knit_measurement *m = &s->profile.measurement;
  m->dir = (char *)dir;
  m->thread_count = 1;
  m->threads = &s->thread;
  snprintf(m->event, sizeof m->event, "PROBE");
  knit_report_tree *t = &s->profile.tree;
  assert_int_equal(knit_report_tree_init(t), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &s->thread), 0);
  for (size_t i = 0; i < t->node_count; i++)
    t->nodes[i].function = name_of(&t->nodes[i]);
  assert_int_equal(knit_report_tree_link(t), 0);
}

/* The context whose path is path, or fails. */
static const knit_diff_context *find(const knit_diff *d, const char *path)
{
  char buf[256];
  for (uint32_t i = 1; i < d->count; i++) {
    knit_diff_path(d, i, buf, sizeof buf);
    if (strcmp(buf, path) == 0)
      return &d->contexts[i];
  }
  fail_msg("no context %s", path);
  return NULL;
}

static void test_contexts(void **state)
{
  (void)state;
  side a, b;
  make_side(&a, "/a", a_nodes, 4, a_metrics, 2);
  make_side(&b, "/b", b_nodes, 6, b_metrics, 5);
  knit_calltree_options o = {0};
  knit_diff d;
  assert_int_equal(knit_diff_build(&d, &a.profile, &b.profile, &o), 0);
  assert_int_equal(d.count, 6); /* the root, main, serial, work, extra, <omp-idle> */
  const knit_diff_context *serial = find(&d, "main;serial");
  assert_true(serial->inclusive[0][KNIT_METRIC_SAMPLES] == 8.0);
  assert_true(serial->inclusive[1][KNIT_METRIC_SAMPLES] == 8.0);
  assert_true(serial->exclusive[1][KNIT_METRIC_OMP_IDLE] == 24.0);
  const knit_diff_context *extra = find(&d, "main;extra");
  assert_true(extra->inclusive[0][KNIT_METRIC_SAMPLES] == 0.0);
  assert_true(extra->inclusive[1][KNIT_METRIC_SAMPLES] == 2.0);
  assert_true(find(&d, "main")->inclusive[1][KNIT_METRIC_SAMPLES] == 14.0);
  const knit_diff_context *idle = find(&d, "<omp-idle>");
  assert_true(idle->idle_exclusive[1] == 24.0);
  assert_true(d.contexts[0].idle_inclusive[1] == 24.0);
  assert_true(d.contexts[0].idle_inclusive[0] == 0.0);
  knit_diff_free(&d);
  knit_report_tree_free(&a.profile.tree);
  knit_report_tree_free(&b.profile.tree);
}

static void test_scaling_text(void **state)
{
  (void)state;
  side a, b;
  make_side(&a, "/a", a_nodes, 4, a_metrics, 2);
  make_side(&b, "/b", b_nodes, 6, b_metrics, 5);
  knit_calltree_options o = {0};
  knit_diff d;
  assert_int_equal(knit_diff_build(&d, &a.profile, &b.profile, &o), 0);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_non_null(out);
  knit_diff_view_options v = {.exclusive = 1, .min_percent = 0};
  knit_view_scaling(&d, &a.profile, &b.profile, 1, 4, &v, out);
  fclose(out);
  /* C_A = 12; C_B = 8 + 24 + 4 + 2 = 38, the idle thread's 24 probes
   * not counted again; serial's loss is its 24 of OMP_IDLE. */
  const char *want = "total C: A 12.0 probes, B 38.0 probes, loss 26.0 probes (68.4% of B)\n\n"
                     "      own    own%       incl   incl%     A incl     B incl  context\n"
                     "    +24.0   63.2%      +24.0   63.2%        8.0       32.0  main;serial\n"
                     "     +2.0    5.3%       +2.0    5.3%        0.0        2.0  main;extra\n"
                     "     +0.0    0.0%      +26.0   68.4%       12.0       38.0  main\n"
                     "     +0.0    0.0%       +0.0    0.0%        4.0        4.0  main;work\n"
                     "     +0.0    0.0%       +0.0    0.0%        0.0        0.0  <omp-idle>\n";
  const char *at = strstr(text, "total C:");
  assert_non_null(at);
  assert_string_equal(at, want);
  free(text);
  knit_diff_free(&d);
  knit_report_tree_free(&a.profile.tree);
  knit_report_tree_free(&b.profile.tree);
}

static void test_comparable(void **state)
{
  (void)state;
  side a, b;
  make_side(&a, "/a", a_nodes, 4, a_metrics, 2);
  make_side(&b, "/b", b_nodes, 6, b_metrics, 5);
  char note[400], err[400];
  assert_int_equal(knit_diff_comparable(&a.profile, &b.profile, note, sizeof note, err, sizeof err),
                   0);
  assert_string_equal(note, "");
  snprintf(b.profile.measurement.event, sizeof b.profile.measurement.event, "CPUTIME");
  b.profile.measurement.period = 1000000;
  assert_int_equal(knit_diff_comparable(&a.profile, &b.profile, note, sizeof note, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "A is PROBE, B is CPUTIME every 1 ms"));
  snprintf(a.profile.measurement.event, sizeof a.profile.measurement.event, "REALTIME");
  a.profile.measurement.period = 500000;
  assert_int_equal(knit_diff_comparable(&a.profile, &b.profile, note, sizeof note, err, sizeof err),
                   0);
  assert_string_equal(note, "A is REALTIME every 500 us, B is CPUTIME every 1 ms: compared in ms");
  knit_report_tree_free(&a.profile.tree);
  knit_report_tree_free(&b.profile.tree);
}

/* Thread counts for --scaling: OpenMP threads as the runtime announced
 * them; without OMPT (GNU libgomp), every thread but a runtime helper. */
static void test_thread_count(void **state)
{
  (void)state;
  knit_thread_file files[4];
  memset(files, 0, sizeof files);
  knit_profile p;
  memset(&p, 0, sizeof p);
  p.measurement.threads = files;
  p.measurement.thread_count = 4;
  files[0].header.thread_flags = KNIT_THREAD_MAIN | KNIT_THREAD_OPENMP;
  files[1].header.thread_flags = KNIT_THREAD_OPENMP;
  files[2].header.thread_flags = KNIT_THREAD_RUNTIME;
  files[3].header.thread_flags = 0;
  assert_int_equal(knit_diff_openmp_threads(&p), 2);
  files[0].header.thread_flags = KNIT_THREAD_MAIN;
  files[1].header.thread_flags = 0;
  assert_int_equal(knit_diff_openmp_threads(&p), 3);
  p.measurement.thread_count = 1;
  files[0].header.thread_flags = KNIT_THREAD_RUNTIME;
  assert_int_equal(knit_diff_openmp_threads(&p), 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contexts),
      cmocka_unit_test(test_scaling_text),
      cmocka_unit_test(test_comparable),
      cmocka_unit_test(test_thread_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
