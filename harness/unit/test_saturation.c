/* Counts near 2^64 in a measurement: every sum the report makes of them
 * (per node, per path, over threads, per module, in the folded form and in
 * goldens) stops at UINT64_MAX and the report says so, instead of wrapping
 * around to a small number that looks true. The measurements are thread
 * files built byte by byte, so that values no writer would produce can be
 * put in them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "profiler/measure/count.h"
#include "profiler/measure/format.h"
#include "profiler/report/folded.h"
#include "profiler/report/golden.h"
#include "profiler/report/profile.h"
#include "profiler/report/view_tree.h"

#define NEAR_MAX (UINT64_MAX - 5)

/* A thread file's bytes, grown as sections are added. */
typedef struct bytes {
  uint8_t data[4096];
  size_t len;
} bytes;

static void put(bytes *b, const void *what, size_t len)
{
  assert_true(b->len + len <= sizeof b->data);
  memcpy(b->data + b->len, what, len);
  b->len += len;
}

static void put_section(bytes *b, uint32_t tag, uint32_t count, const void *records,
                        size_t record_size)
{
  knit_section_header sh = {.tag = tag, .length = 4 + (uint64_t)count * record_size};
  put(b, &sh, sizeof sh);
  put(b, &count, 4);
  put(b, records, count * record_size);
}

/* A PROBE thread whose root has two children: an unknown-module sample
 * (named "0x1234") and <omp-idle>, with the given values; and the samples
 * statistic listed twice, samples_a and samples_b, as a damaged file may. */
static void write_thread(const char *dir, uint32_t index, uint64_t value_1234, uint64_t value_idle,
                         uint64_t samples_a, uint64_t samples_b)
{
  bytes b = {.len = 0};
  knit_file_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KNIT_FILE_MAGIC, 8);
  h.version = KNIT_FILE_VERSION;
  h.byte_order = KNIT_BYTE_ORDER_MARK;
  h.tid = 100 + index;
  h.thread_index = index;
  h.elf_machine = 62;
  strcpy(h.event, "PROBE");
  put(&b, &h, sizeof h);
  knit_node_record nodes[3] = {
      {.id = 0,
       .parent = 0,
       .module = KNIT_MODULE_PLACEHOLDER,
       .kind = KNIT_NODE_PLACEHOLDER,
       .offset = KNIT_PH_ROOT},
      {.id = 1,
       .parent = 0,
       .module = KNIT_MODULE_UNKNOWN,
       .kind = KNIT_NODE_SAMPLE,
       .offset = 0x1234},
      {.id = 2,
       .parent = 0,
       .module = KNIT_MODULE_PLACEHOLDER,
       .kind = KNIT_NODE_PLACEHOLDER,
       .offset = KNIT_PH_OMP_IDLE},
  };
  put_section(&b, KNIT_SECTION_NODES, 3, nodes, sizeof nodes[0]);
  knit_metric_record metrics[2] = {{.node = 1, .metric = KNIT_METRIC_SAMPLES, .value = value_1234},
                                   {.node = 2, .metric = KNIT_METRIC_SAMPLES, .value = value_idle}};
  put_section(&b, KNIT_SECTION_METRICS, 2, metrics, sizeof metrics[0]);
  knit_stat_record stats[2] = {{.key = KNIT_STAT_SAMPLES, .value = samples_a},
                               {.key = KNIT_STAT_SAMPLES, .value = samples_b}};
  put_section(&b, KNIT_SECTION_STATS, 2, stats, sizeof stats[0]);
  knit_section_header end = {.tag = KNIT_SECTION_END};
  put(&b, &end, sizeof end);

  char path[300];
  snprintf(path, sizeof path, "%s/thread-%u-%u.knit", dir, index, 100 + index);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
  assert_int_equal(fclose(f), 0);
}

static char dir[64];

static int make_dir(void **state)
{
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/knit-test-saturation-XXXXXX");
  return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* What a load prints on its diagnostics stream, and the header. */
static char *load(knit_profile *p, char **header)
{
  char *diag = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&diag, &len);
  assert_non_null(out);
  assert_int_equal(knit_profile_load(p, dir, "test", out), 0);
  fclose(out);
  out = open_memstream(header, &len);
  assert_non_null(out);
  knit_view_header(p, out);
  fclose(out);
  return diag;
}

static void test_add(void **state)
{
  (void)state;
  int saturated = 0;
  assert_true(knit_count_add(1, 2, &saturated) == 3);
  assert_true(knit_count_add(UINT64_MAX - 1, 1, &saturated) == UINT64_MAX);
  assert_int_equal(saturated, 0);
  assert_true(knit_count_add(UINT64_MAX, 1, &saturated) == UINT64_MAX);
  assert_int_equal(saturated, 1);
  saturated = 0;
  assert_true(knit_count_add(NEAR_MAX, NEAR_MAX, &saturated) == UINT64_MAX);
  assert_int_equal(saturated, 1);
}

/* Small numbers: nothing saturates and nothing is said. */
static void test_small_counts_say_nothing(void **state)
{
  (void)state;
  write_thread(dir, 0, 3, 4, 5, 2);
  knit_profile p;
  char *header = NULL;
  char *diag = load(&p, &header);
  assert_int_equal(p.saturated, 0);
  assert_null(strstr(diag, "saturated"));
  assert_null(strstr(header, "saturated"));
  assert_non_null(strstr(header, "PROBE: 7 probes"));
  assert_true(knit_profile_samples(&p) == 7);
  free(diag);
  free(header);
  knit_profile_free(&p);
}

/* The same node on two threads, two nodes of one thread whose sum is the
 * root's, and a statistic listed twice: each sum stops at UINT64_MAX. */
static void test_sums_saturate(void **state)
{
  (void)state;
  write_thread(dir, 0, NEAR_MAX, NEAR_MAX, NEAR_MAX, 10);
  write_thread(dir, 1, NEAR_MAX, 1, 1, 1);
  knit_profile p;
  char *header = NULL;
  char *diag = load(&p, &header);
  assert_int_equal(p.saturated, 1);
  assert_int_equal(p.tree.saturated, 1);
  assert_int_equal(p.measurement.threads[0].saturated, 1);
  assert_true(knit_profile_samples(&p) == UINT64_MAX);
  assert_true(knit_profile_stat(&p, KNIT_STAT_SAMPLES) == UINT64_MAX);
  if (strstr(diag, "test: warning: counts of this measurement add up past 2^64-1") == NULL)
    fail_msg("no warning in: %s", diag);
  if (strstr(header, "\nsaturated: ") == NULL ||
      strstr(header, "PROBE: 18446744073709551615 probes") == NULL)
    fail_msg("the header does not say it: %s", header);

  knit_folded folded;
  assert_int_equal(knit_folded_from_tree(&p.tree, &folded), 0);
  assert_int_equal(folded.count, 2);
  assert_true(folded.total == UINT64_MAX);
  assert_int_equal(folded.saturated, 1);
  const knit_folded_line *line = knit_folded_find(&folded, "0x1234");
  assert_non_null(line);
  assert_true(line->count == UINT64_MAX);
  knit_folded_free(&folded);

  knit_view_options o = {.min_percent = 0};
  char *tree = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&tree, &len);
  knit_view_top_down(&p, &o, out);
  fclose(out);
  if (strstr(tree, "18446744073709551615") == NULL)
    fail_msg("the tree does not show the saturated count: %s", tree);
  free(tree);

  free(diag);
  free(header);
  knit_profile_free(&p);
}

/* A golden whose counts add up past 2^64-1 would make every share wrong:
 * it is refused, not read with a total that wrapped. */
static void test_golden_total(void **state)
{
  (void)state;
  knit_golden g;
  char err[200];
  assert_int_equal(knit_golden_parse("main;a 18446744073709551610\nmain;b 18446744073709551610\n",
                                     &g, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "past 2^64-1"));
  assert_int_equal(
      knit_golden_parse("main;a 18446744073709551610\nmain;b 5\n", &g, err, sizeof err), 0);
  assert_true(g.paths.total == UINT64_MAX);
  knit_golden_free(&g);
}

/* An empty golden: no lines to sort or search (UBSan rejects qsort and
 * bsearch on the NULL array an empty set has). */
static void test_empty_folded(void **state)
{
  (void)state;
  knit_golden g;
  char err[200];
  assert_int_equal(knit_golden_parse("# nothing but a comment\n", &g, err, sizeof err), 0);
  assert_int_equal(g.paths.count, 0);
  assert_null(knit_folded_find(&g.paths, "main"));
  knit_golden_free(&g);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add),
      cmocka_unit_test_setup_teardown(test_small_counts_say_nothing, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_sums_saturate, make_dir, remove_dir),
      cmocka_unit_test(test_golden_total),
      cmocka_unit_test(test_empty_folded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
