/* The blame measurement of the report and check tests; see
 * blame_measurement.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness/unit/blame_measurement.h"
#include "profiler/measure/write_file.h"

#define MODULE_ID   9u
#define MODULE_PATH "/nonexistent/locks"
#define SOURCE      "/src/locks.c"

#define CALL(id, parent, offset)                                                                   \
  {                                                                                                \
    id, parent, MODULE_ID, KNIT_NODE_CALL, {0}, offset                                             \
  }
#define SAMPLE(id, parent, offset)                                                                 \
  {                                                                                                \
    id, parent, MODULE_ID, KNIT_NODE_SAMPLE, {0}, offset                                           \
  }
#define PLACEHOLDER(id, parent, ph)                                                                \
  {                                                                                                \
    id, parent, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, {0}, ph                            \
  }
#define ROOT PLACEHOLDER(0, 0, KNIT_PH_ROOT)

/* Both threads' paths into the region: main -> run_locks -> the body. */
#define REGION_PATH CALL(1, 0, 0x100), CALL(2, 1, 0x200), CALL(3, 2, 0x300)

static const knit_node_record main_nodes[] = {
    ROOT,
    REGION_PATH,
    SAMPLE(4, 3, 0x400), /* hold_long */
    SAMPLE(5, 3, 0x500), /* hold_short */
    PLACEHOLDER(6, 3, KNIT_PH_OMP_LOCK_WAIT),
    SAMPLE(7, 3, 0x600), /* compute */
};
static const knit_metric_record main_metrics[] = {
    {4, KNIT_METRIC_SAMPLES, 6}, {4, KNIT_METRIC_OMP_MUTEX_BLAME, 3000},
    {5, KNIT_METRIC_SAMPLES, 2}, {5, KNIT_METRIC_OMP_MUTEX_BLAME, 1000},
    {6, KNIT_METRIC_SAMPLES, 4}, {6, KNIT_METRIC_OMP_MUTEX_WAIT, 4000},
    {7, KNIT_METRIC_SAMPLES, 8}, {7, KNIT_METRIC_OMP_IDLE, 1500},
};
static const knit_stat_record main_stats[] = {{KNIT_STAT_SAMPLES, 0, 20},
                                              {KNIT_STAT_BLAME_UNCLAIMED, 0, 500}};

static const knit_node_record worker_nodes[] = {
    ROOT,
    REGION_PATH,
    SAMPLE(4, 3, 0x400), /* hold_long */
    PLACEHOLDER(5, 3, KNIT_PH_OMP_LOCK_WAIT),
    PLACEHOLDER(6, 0, KNIT_PH_OMP_IDLE),
};
static const knit_metric_record worker_metrics[] = {
    {4, KNIT_METRIC_SAMPLES, 2},
    {4, KNIT_METRIC_OMP_IDLE, 500},
    {4, KNIT_METRIC_OMP_MUTEX_BLAME, 1000},
    {5, KNIT_METRIC_SAMPLES, 3},
    {5, KNIT_METRIC_OMP_MUTEX_WAIT, 3000},
    {6, KNIT_METRIC_SAMPLES, 1},
};
static const knit_stat_record worker_stats[] = {{KNIT_STAT_SAMPLES, 0, 6},
                                                {KNIT_STAT_BLOCKED, 0, 3},
                                                {KNIT_STAT_TRUNCATED, 0, 2},
                                                {KNIT_STAT_BLAME_LOST, 0, 1500}};

typedef struct thread_spec {
  const char *name;
  uint32_t index, tid, flags;
  const knit_node_record *nodes;
  size_t node_count;
  const knit_metric_record *metrics;
  size_t metric_count;
  const knit_stat_record *stats;
  size_t stat_count;
} thread_spec;

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const thread_spec threads[] = {
    {"thread-0-100.knit", 0, 100, KNIT_THREAD_MAIN | KNIT_THREAD_OPENMP, main_nodes,
     LEN(main_nodes), main_metrics, LEN(main_metrics), main_stats, LEN(main_stats)},
    {"thread-1-101.knit", 1, 101, KNIT_THREAD_OPENMP, worker_nodes, LEN(worker_nodes),
     worker_metrics, LEN(worker_metrics), worker_stats, LEN(worker_stats)},
};

/* Whether a record of a METRICS or STATS section is one of blame's. */
static int is_blame_record(uint32_t section, const void *record)
{
  if (section == KNIT_SECTION_METRICS)
    return ((const knit_metric_record *)record)->metric != KNIT_METRIC_SAMPLES;
  uint32_t key = ((const knit_stat_record *)record)->key;
  return key == KNIT_STAT_BLAME_LOST || key == KNIT_STAT_BLAME_UNCLAIMED;
}

/* A section of count records of size bytes; without blame, the blame
 * records are left out: records are sparse, as libknit writes them, so
 * blame that is not there is absent, not zero. */
static void put_records(knit_writer *w, uint32_t section, const void *records, size_t count,
                        size_t size, int with_blame)
{
  const uint8_t *bytes = records;
  uint32_t kept = 0;
  for (size_t i = 0; i < count; i++)
    kept += with_blame || !is_blame_record(section, bytes + i * size);
  knit_writer_begin_section(w, section);
  knit_writer_put_u32(w, kept);
  for (size_t i = 0; i < count; i++)
    if (with_blame || !is_blame_record(section, bytes + i * size))
      knit_writer_put(w, bytes + i * size, size);
  knit_writer_end_section(w);
}

static void write_thread(const char *dir, const thread_spec *t, const char *event, uint64_t period,
                         int with_blame)
{
  knit_file_header h;
  memset(&h, 0, sizeof h);
  h.tid = t->tid;
  h.thread_index = t->index;
  h.thread_flags = t->flags;
  h.elf_machine = 62;
  h.period = period;
  memcpy(h.event, event, strnlen(event, sizeof h.event)); /* needs no final NUL */
  knit_writer w;
  assert_int_equal(knit_writer_open(&w, dir, t->name, &h), 0);

  knit_writer_begin_section(&w, KNIT_SECTION_MODULES);
  knit_writer_put_u32(&w, 1);
  knit_writer_put_u32(&w, MODULE_ID);
  knit_writer_put_u32(&w, (uint32_t)strlen(MODULE_PATH));
  knit_writer_put_u64(&w, 0x400000);
  knit_writer_put(&w, MODULE_PATH, strlen(MODULE_PATH));
  knit_writer_end_section(&w);

  knit_writer_begin_section(&w, KNIT_SECTION_NODES);
  knit_writer_put_u32(&w, (uint32_t)t->node_count);
  knit_writer_put(&w, t->nodes, t->node_count * sizeof *t->nodes);
  knit_writer_end_section(&w);

  put_records(&w, KNIT_SECTION_METRICS, t->metrics, t->metric_count, sizeof *t->metrics,
              with_blame);
  put_records(&w, KNIT_SECTION_STATS, t->stats, t->stat_count, sizeof *t->stats, with_blame);
  assert_int_equal(knit_writer_close(&w), 0);
}

void blame_measurement_write(const char *dir, const char *event, uint64_t period, int with_blame)
{
  for (size_t i = 0; i < LEN(threads); i++)
    write_thread(dir, &threads[i], event, period, with_blame);
}

/* What the symbolizer would say about each offset of the module. */
static const struct {
  uint64_t offset;
  const char *function;
  unsigned line;
} names[] = {
    {0x100, "main", 10},      {0x200, "run_locks", 20},  {0x300, "run_locks._omp_fn.0", 30},
    {0x400, "hold_long", 40}, {0x500, "hold_short", 50}, {0x600, "compute", 60},
};

void blame_measurement_load(const char *dir, knit_profile *p)
{
  assert_int_equal(knit_profile_load(p, dir, "test", stderr), 0);
  knit_report_tree *t = &p->tree;
  for (size_t i = 0; i < t->node_count; i++) {
    knit_report_node *n = &t->nodes[i];
    if (knit_report_node_module(t, n) == NULL)
      continue; /* placeholders keep the symbolizer's names */
    for (size_t k = 0; k < LEN(names); k++) {
      if (names[k].offset == n->offset) {
        n->function = names[k].function;
        n->file = SOURCE;
        n->line = names[k].line;
      }
    }
  }
  /* Children are ordered by name among equals: order them again. */
  assert_int_equal(knit_report_tree_link(t), 0);
}

void blame_measurement_make_dir(char *buf, size_t len)
{
  snprintf(buf, len, "/tmp/knit-test-blame-XXXXXX");
  assert_non_null(mkdtemp(buf));
}

void blame_measurement_remove_dir(const char *dir)
{
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}
