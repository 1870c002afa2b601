/* The pprof export (report/pprof.h, pprof_tables.h, pprof_output.h):
 * values in the profile's units, the string and id tables, the gzip form
 * zlib reads back, and the message of a tree built in memory, read back
 * field by field: samples innermost first, a location shared by two
 * paths, inlined calls as lines innermost first, a placeholder with no
 * mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "profiler/report/pprof.h"
#include "profiler/report/pprof_output.h"
#include "profiler/report/pprof_tables.h"
#include "profiler/report/symbolize.h"

static knit_measurement measurement_of(const char *event, uint64_t period)
{
  knit_measurement m;
  memset(&m, 0, sizeof m);
  snprintf(m.event, sizeof m.event, "%s", event);
  m.period = period;
  return m;
}

static void test_timer_values_in_nanoseconds(void **state)
{
  (void)state;
  knit_measurement m = measurement_of("CPUTIME", 1000000);
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_SAMPLES), "cpu");
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_OMP_IDLE), "OMP_IDLE");
  assert_string_equal(knit_pprof_unit(&m), "nanoseconds");
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, 3), 3000000);
  /* Blame in milli-periods: 1.5 periods, then 1 milli-period = 1 us. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_MUTEX_WAIT, 1500), 1500000);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1), 1000);
  /* Past int64: the largest value, not a wrapped one. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, UINT64_MAX / 2), INT64_MAX);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, UINT64_MAX), INT64_MAX);

  knit_measurement wall = measurement_of("REALTIME", 250);
  assert_string_equal(knit_pprof_type_name(&wall, KNIT_METRIC_SAMPLES), "wall");
  assert_int_equal(knit_pprof_value(&wall, KNIT_METRIC_SAMPLES, 4), 1000);
  /* 1.002 periods of 250 ns: 250 + 0.5, the half cut off. */
  assert_int_equal(knit_pprof_value(&wall, KNIT_METRIC_OMP_IDLE, 1002), 250);
}

static void test_probe_values_in_counts(void **state)
{
  (void)state;
  knit_measurement m = measurement_of("PROBE", 0);
  assert_string_equal(knit_pprof_type_name(&m, KNIT_METRIC_SAMPLES), "probes");
  assert_string_equal(knit_pprof_unit(&m), "count");
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_SAMPLES, 7), 7);
  /* Blame rounded to whole periods. */
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1499), 1);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 1500), 2);
  assert_int_equal(knit_pprof_value(&m, KNIT_METRIC_OMP_IDLE, 499), 0);
}

static void test_strings_deduplicated(void **state)
{
  (void)state;
  knit_pprof_strings t;
  assert_int_equal(knit_pprof_strings_init(&t), 0);
  assert_int_equal(t.count, 1);
  assert_string_equal(t.strings[0], "");
  assert_int_equal(knit_pprof_string(&t, ""), 0);
  assert_int_equal(knit_pprof_string(&t, NULL), 0);
  assert_int_equal(knit_pprof_string(&t, "main"), 1);
  assert_int_equal(knit_pprof_string(&t, "cpu"), 2);
  assert_int_equal(knit_pprof_string(&t, "main"), 1);
  /* Many more: the table grows and still finds the first ones. */
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "f%d", i);
    assert_int_equal(knit_pprof_string(&t, name), 3 + i);
  }
  for (int i = 0; i < 5000; i += 7) {
    snprintf(name, sizeof name, "f%d", i);
    assert_int_equal(knit_pprof_string(&t, name), 3 + i);
  }
  assert_int_equal(knit_pprof_string(&t, "cpu"), 2);
  assert_int_equal(t.count, 5003);
  knit_pprof_strings_free(&t);
}

static void test_ids_by_key(void **state)
{
  (void)state;
  knit_pprof_ids t = {0};
  int added;
  const uint64_t a[3] = {1, 0, 0x401000}, b[3] = {1, 1, 0x401000}, c[3] = {2, 0, 0x401000};
  assert_int_equal(knit_pprof_id(&t, a, &added), 1);
  assert_true(added);
  assert_int_equal(knit_pprof_id(&t, b, &added), 2);
  assert_true(added);
  assert_int_equal(knit_pprof_id(&t, a, &added), 1);
  assert_false(added);
  assert_int_equal(knit_pprof_id(&t, c, &added), 3);
  for (uint64_t i = 0; i < 3000; i++) {
    const uint64_t k[3] = {7, i, i * 3};
    assert_int_equal(knit_pprof_id(&t, k, &added), 4 + i);
  }
  assert_int_equal(knit_pprof_id(&t, b, &added), 2);
  assert_false(added);
  assert_memory_equal(t.keys[2], c, sizeof c);
  knit_pprof_ids_free(&t);
}

/* The gzip form: a gzip header (1f 8b), and zlib inflates it back. */
static void test_gzip_round_trip(void **state)
{
  (void)state;
  uint8_t data[5000];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i * 7 % 251);
  knit_pb gz = {0};
  assert_int_equal(knit_pprof_gzip(data, sizeof data, &gz), 0);
  assert_true(gz.len > 18);
  assert_int_equal(gz.data[0], 0x1f);
  assert_int_equal(gz.data[1], 0x8b);
  uint8_t back[6000];
  z_stream z;
  memset(&z, 0, sizeof z);
  assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = gz.data;
  z.avail_in = (uInt)gz.len;
  z.next_out = back;
  z.avail_out = sizeof back;
  assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
  assert_int_equal(sizeof back - z.avail_out, sizeof data);
  assert_memory_equal(back, data, sizeof data);
  inflateEnd(&z);
  knit_pb_free(&gz);

  /* Nothing at all still makes a whole gzip file. */
  assert_int_equal(knit_pprof_gzip(NULL, 0, &gz), 0);
  assert_int_equal(gz.data[0], 0x1f);
  knit_pb_free(&gz);
}

/* One field of a message as the wire format has it. */
typedef struct field {
  uint32_t number;
  int wire;
  uint64_t value;      /* a varint's */
  const uint8_t *data; /* a length-delimited field's bytes */
  size_t len;
} field;

static uint64_t read_varint(const uint8_t **p, const uint8_t *end)
{
  uint64_t v = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    uint8_t byte = *(*p)++;
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return v;
  }
  fail_msg("a varint runs past its message");
  return 0;
}

/* The next field at *p, or 0 at the end of the message. */
static int next_field(const uint8_t **p, const uint8_t *end, field *f)
{
  if (*p >= end)
    return 0;
  uint64_t key = read_varint(p, end);
  f->number = (uint32_t)(key >> 3);
  f->wire = (int)(key & 7);
  if (f->wire == 0) {
    f->value = read_varint(p, end);
  } else {
    assert_int_equal(f->wire, 2);
    f->len = read_varint(p, end);
    assert_true(f->len <= (size_t)(end - *p));
    f->data = *p;
    *p += f->len;
  }
  return 1;
}

/* The values of a packed repeated field, into out[0..max); their count. */
static size_t packed(const field *f, uint64_t *out, size_t max)
{
  const uint8_t *p = f->data, *end = f->data + f->len;
  size_t n = 0;
  while (p < end) {
    assert_true(n < max);
    out[n++] = read_varint(&p, end);
  }
  return n;
}

/* A varint field of the message at data, or 0 when absent. */
static uint64_t varint_of(const uint8_t *data, size_t len, uint32_t number)
{
  const uint8_t *p = data;
  field f;
  uint64_t v = 0;
  while (next_field(&p, data + len, &f))
    if (f.number == number && f.wire == 0)
      v = f.value;
  return v;
}

#define EXE "/nonexistent/app"
#define SRC "/src/app.c"

/* work's pc 0x304 is in deep, inlined into middle from line 31, inlined
 * into work from line 21; deep's own line is 40. */
static const knit_inline_level middle_then_deep[] = {{"middle", NULL, SRC, 21, 0},
                                                     {"deep", "_Z4deepv", SRC, 31, 0}};

static void test_encode_tree(void **state)
{
  (void)state;
  knit_read_module modules[] = {{.id = 0, .path = EXE}};
  knit_read_node nodes[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, 0x100},                                         /* 1 main */
      {1, 0, KNIT_NODE_SAMPLE, 0x304},                                       /* 2 work */
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_IDLE}, /* 3 */
      {1, 0, KNIT_NODE_CALL, 0x200},                                         /* 4 run */
      {4, 0, KNIT_NODE_SAMPLE, 0x304},                                       /* 5 work */
  };
  knit_read_metric metrics[] = {{2, KNIT_METRIC_SAMPLES, 2},
                                {2, KNIT_METRIC_OMP_IDLE, 1500},
                                {3, KNIT_METRIC_SAMPLES, 5},
                                {5, KNIT_METRIC_SAMPLES, 1}};
  knit_thread_file thread = {.module_count = 1,
                             .modules = modules,
                             .node_count = 6,
                             .nodes = nodes,
                             .metric_count = 4,
                             .metrics = metrics};
  knit_profile p;
  memset(&p, 0, sizeof p);
  p.measurement = measurement_of("CPUTIME", 1000000);
  p.symbolizer = knit_symbolizer_new();
  assert_non_null(p.symbolizer);
  assert_int_equal(knit_report_tree_init(&p.tree), 0);
  assert_int_equal(knit_report_tree_add_thread(&p.tree, &thread), 0);
  assert_int_equal(p.tree.node_count, 6);
  for (size_t i = 0; i < p.tree.node_count; i++) {
    knit_report_node *n = &p.tree.nodes[i];
    if (n->kind == KNIT_NODE_PLACEHOLDER) {
      n->function = knit_placeholder_name(n->offset);
    } else if (n->offset == 0x100) {
      n->function = "main", n->file = SRC, n->line = 10;
    } else if (n->offset == 0x200) {
      n->function = "run", n->file = SRC, n->line = 12;
    } else {
      n->function = "work", n->file = SRC, n->line = 40;
      n->inlined = middle_then_deep, n->inlined_count = 2;
    }
  }
  assert_int_equal(knit_report_tree_link(&p.tree), 0);

  knit_pb out = {0};
  assert_int_equal(knit_pprof_encode(&p, 1, &out), 0);

  /* The top level: strings first, so that the rest can be named. */
  const char *strings[64];
  size_t string_count = 0;
  const uint8_t *at = out.data, *end = out.data + out.len;
  field f;
  char text[64][64];
  while (next_field(&at, end, &f))
    if (f.number == 6) {
      assert_true(string_count < 64 && f.len < 64);
      memcpy(text[string_count], f.data, f.len);
      text[string_count][f.len] = '\0';
      strings[string_count] = text[string_count];
      string_count++;
    }
  assert_true(string_count > 0);
  assert_string_equal(strings[0], "");
  for (size_t i = 0; i < string_count; i++)
    for (size_t j = i + 1; j < string_count; j++)
      if (strcmp(strings[i], strings[j]) == 0)
        fail_msg("\"%s\" is in the string table twice", strings[i]);

  const char *types[4];
  size_t type_count = 0, sample_count = 0, mapping_count = 0;
  uint64_t paths[3][8], values[3][8];
  size_t path_len[3], value_len[3];
  /* Each location's mapping, address and lines (function id, line). */
  uint64_t loc_mapping[16] = {0}, loc_address[16] = {0}, lines[16][4][2];
  size_t line_count[16] = {0};
  const char *function_name[16] = {0}, *function_system[16] = {0}, *function_file[16] = {0};
  at = out.data;
  while (next_field(&at, end, &f)) {
    if (f.number == 1) {
      types[type_count++] = strings[varint_of(f.data, f.len, 1)];
      assert_string_equal(strings[varint_of(f.data, f.len, 2)], "nanoseconds");
    } else if (f.number == 2) {
      assert_true(sample_count < 3);
      const uint8_t *q = f.data;
      field g;
      while (next_field(&q, f.data + f.len, &g)) {
        if (g.number == 1)
          path_len[sample_count] = packed(&g, paths[sample_count], 8);
        else if (g.number == 2)
          value_len[sample_count] = packed(&g, values[sample_count], 8);
      }
      sample_count++;
    } else if (f.number == 3) {
      mapping_count++;
      assert_int_equal(varint_of(f.data, f.len, 1), 1);
      assert_string_equal(strings[varint_of(f.data, f.len, 5)], EXE);
      assert_int_equal(varint_of(f.data, f.len, 6), 0); /* no file, no build id */
      assert_int_equal(varint_of(f.data, f.len, 3), 0x305);
      assert_int_equal(varint_of(f.data, f.len, 10), 1);
    } else if (f.number == 4) {
      uint64_t id = varint_of(f.data, f.len, 1);
      assert_true(id > 0 && id < 16);
      loc_mapping[id] = varint_of(f.data, f.len, 2);
      loc_address[id] = varint_of(f.data, f.len, 3);
      const uint8_t *q = f.data;
      field g;
      while (next_field(&q, f.data + f.len, &g))
        if (g.number == 4) {
          assert_true(line_count[id] < 4);
          lines[id][line_count[id]][0] = varint_of(g.data, g.len, 1);
          lines[id][line_count[id]][1] = varint_of(g.data, g.len, 2);
          line_count[id]++;
        }
    } else if (f.number == 5) {
      uint64_t id = varint_of(f.data, f.len, 1);
      assert_true(id > 0 && id < 16);
      function_name[id] = strings[varint_of(f.data, f.len, 2)];
      function_system[id] = strings[varint_of(f.data, f.len, 3)];
      function_file[id] = strings[varint_of(f.data, f.len, 4)];
    }
  }
  assert_int_equal(type_count, 4);
  assert_string_equal(types[0], "cpu");
  assert_string_equal(types[1], "OMP_IDLE");
  assert_string_equal(types[3], "OMP_MUTEX_BLAME");
  assert_int_equal(mapping_count, 1);
  assert_int_equal(sample_count, 3);
  assert_string_equal(strings[varint_of(out.data, out.len, 14)], "cpu"); /* default type */
  assert_int_equal(varint_of(out.data, out.len, 12), 1000000);           /* period */

  /* Samples in node order: work under main, the idle placeholder, work
   * under run; every value of each, the blame's 1.5 periods as 1.5 ms. */
  assert_int_equal(path_len[0], 2);
  assert_int_equal(value_len[0], 4);
  assert_int_equal(values[0][0], 2000000);
  assert_int_equal(values[0][1], 1500000);
  assert_int_equal(values[0][2], 0);
  assert_int_equal(path_len[1], 1);
  assert_int_equal(values[1][0], 5000000);
  assert_int_equal(path_len[2], 3);
  assert_int_equal(values[2][0], 1000000);
  /* The same pc in both paths is one location; main is the outermost. */
  uint64_t work = paths[0][0], idle = paths[1][0], main_loc = paths[0][1];
  assert_int_equal(paths[2][0], work);
  assert_int_equal(paths[2][2], main_loc);
  assert_int_not_equal(paths[2][1], main_loc);

  /* work's location: deep, middle, work, innermost first, each on its
   * line: deep's own, middle's call of deep, work's call of middle. */
  assert_int_equal(loc_mapping[work], 1);
  assert_int_equal(loc_address[work], 0x304);
  assert_int_equal(line_count[work], 3);
  assert_string_equal(function_name[lines[work][0][0]], "deep");
  assert_string_equal(function_system[lines[work][0][0]], "_Z4deepv");
  assert_int_equal(lines[work][0][1], 40);
  assert_string_equal(function_name[lines[work][1][0]], "middle");
  assert_string_equal(function_system[lines[work][1][0]], "middle");
  assert_int_equal(lines[work][1][1], 31);
  assert_string_equal(function_name[lines[work][2][0]], "work");
  assert_int_equal(lines[work][2][1], 21);
  assert_string_equal(function_file[lines[work][2][0]], SRC);
  assert_int_equal(line_count[main_loc], 1);
  assert_string_equal(function_name[lines[main_loc][0][0]], "main");
  assert_int_equal(lines[main_loc][0][1], 10);

  /* The placeholder: a function of its own, no mapping, no address. */
  assert_int_equal(loc_mapping[idle], 0);
  assert_int_equal(loc_address[idle], 0);
  assert_int_equal(line_count[idle], 1);
  assert_string_equal(function_name[lines[idle][0][0]], "<omp-idle>");
  assert_string_equal(function_file[lines[idle][0][0]], "");

  knit_pb_free(&out);
  knit_report_tree_free(&p.tree);
  knit_symbolizer_free(p.symbolizer);
}

/* A device's metrics become sample types of their own units, after the
 * host's four: the device's nanoseconds and bytes, as stored. */
static void test_encode_device_metrics(void **state)
{
  (void)state;
  knit_read_module modules[] = {{.id = 0, .path = EXE}};
  knit_read_node nodes[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, 0x100},                                           /* 1 main */
      {1, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_TARGET}, /* 2 */
  };
  knit_read_metric metrics[] = {{1, KNIT_METRIC_SAMPLES, 3},
                                {2, KNIT_METRIC_DEVICE_KERNEL, 123456},
                                {2, KNIT_METRIC_DEVICE_H2D_BYTES, 65536}};
  knit_thread_file thread = {.module_count = 1,
                             .modules = modules,
                             .node_count = 3,
                             .nodes = nodes,
                             .metric_count = 3,
                             .metrics = metrics};
  knit_profile p;
  memset(&p, 0, sizeof p);
  p.measurement = measurement_of("CPUTIME", 1000000);
  p.symbolizer = knit_symbolizer_new();
  assert_non_null(p.symbolizer);
  assert_int_equal(knit_report_tree_init(&p.tree), 0);
  assert_int_equal(knit_report_tree_add_thread(&p.tree, &thread), 0);
  for (size_t i = 0; i < p.tree.node_count; i++)
    p.tree.nodes[i].function =
        p.tree.nodes[i].kind == KNIT_NODE_PLACEHOLDER ? "target at app.c:12" : "main";
  assert_int_equal(knit_report_tree_link(&p.tree), 0);
  knit_pb out = {0};
  assert_int_equal(knit_pprof_encode(&p, 1, &out), 0);

  const char *strings[64];
  char text[64][64];
  size_t string_count = 0;
  const uint8_t *at = out.data, *end = out.data + out.len;
  field f;
  while (next_field(&at, end, &f))
    if (f.number == 6) {
      assert_true(string_count < 64 && f.len < 64);
      memcpy(text[string_count], f.data, f.len);
      text[string_count][f.len] = '\0';
      strings[string_count] = text[string_count];
      string_count++;
    }
  const char *types[KNIT_METRIC_COUNT], *units[KNIT_METRIC_COUNT];
  uint64_t values[2][KNIT_METRIC_COUNT];
  size_t type_count = 0, sample_count = 0, value_len[2] = {0};
  at = out.data;
  while (next_field(&at, end, &f)) {
    if (f.number == 1) {
      assert_true(type_count < KNIT_METRIC_COUNT);
      types[type_count] = strings[varint_of(f.data, f.len, 1)];
      units[type_count++] = strings[varint_of(f.data, f.len, 2)];
    } else if (f.number == 2) {
      assert_true(sample_count < 2);
      const uint8_t *q = f.data;
      field g;
      while (next_field(&q, f.data + f.len, &g))
        if (g.number == 2)
          value_len[sample_count] = packed(&g, values[sample_count], KNIT_METRIC_COUNT);
      sample_count++;
    }
  }
  assert_int_equal(type_count, KNIT_METRIC_COUNT);
  assert_string_equal(types[0], "cpu");
  assert_string_equal(units[0], "nanoseconds");
  assert_string_equal(units[KNIT_METRIC_OMP_IDLE], "nanoseconds");
  assert_string_equal(types[KNIT_METRIC_DEVICE_KERNEL], "DEVICE_KERNEL");
  assert_string_equal(units[KNIT_METRIC_DEVICE_KERNEL], "nanoseconds");
  assert_string_equal(types[KNIT_METRIC_DEVICE_H2D_BYTES], "DEVICE_H2D_BYTES");
  assert_string_equal(units[KNIT_METRIC_DEVICE_H2D_BYTES], "bytes");
  assert_string_equal(units[KNIT_METRIC_DEVICE_ALLOC_BYTES], "bytes");
  assert_string_equal(units[KNIT_METRIC_DEVICE_D2H_TIME], "nanoseconds");
  /* main's samples, then the construct's device metrics, every value. */
  assert_int_equal(sample_count, 2);
  assert_int_equal(value_len[0], KNIT_METRIC_COUNT);
  assert_int_equal(values[0][0], 3000000);
  assert_int_equal(values[0][KNIT_METRIC_DEVICE_KERNEL], 0);
  assert_int_equal(value_len[1], KNIT_METRIC_COUNT);
  assert_int_equal(values[1][0], 0);
  assert_int_equal(values[1][KNIT_METRIC_DEVICE_KERNEL], 123456);
  assert_int_equal(values[1][KNIT_METRIC_DEVICE_H2D_BYTES], 65536);
  assert_int_equal(values[1][KNIT_METRIC_DEVICE_H2D_TIME], 0);

  knit_pb_free(&out);
  knit_report_tree_free(&p.tree);
  knit_symbolizer_free(p.symbolizer);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timer_values_in_nanoseconds),
      cmocka_unit_test(test_probe_values_in_counts),
      cmocka_unit_test(test_strings_deduplicated),
      cmocka_unit_test(test_ids_by_key),
      cmocka_unit_test(test_gzip_round_trip),
      cmocka_unit_test(test_encode_tree),
      cmocka_unit_test(test_encode_device_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
