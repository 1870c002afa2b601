/* The measurement file writer, and (on the host) the reader: round trips,
 * sections that straddle the writer's buffer, and corrupt input of every
 * kind giving a clean error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler/measure/format.h"
#include "profiler/measure/write_file.h"
#include "profiler/measure/write_text.h"
#ifdef KNIT_TEST_READER
#include "profiler/measure/read_byte_order.h"
#include "profiler/measure/read_file.h"
#endif

/* A fresh directory per test, removed with its files afterwards. */
static char test_dir[256];

static int make_dir(void **state)
{
  (void)state;
  snprintf(test_dir, sizeof test_dir, "/tmp/knit-test-io-XXXXXX");
  return mkdtemp(test_dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static char *path_in(const char *name)
{
  static char path[400];
  snprintf(path, sizeof path, "%s/%s", test_dir, name);
  return path;
}

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)size + 1);
  assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  *len = (size_t)size;
  return data;
}


static knit_file_header sample_header(uint32_t index, uint32_t tid, const char *event)
{
  knit_file_header h;
  memset(&h, 0, sizeof h);
  h.tid = tid;
  h.thread_index = index;
  h.thread_flags = KNIT_THREAD_MAIN;
  h.elf_machine = 62;
  h.period = 1000000;
  strncpy(h.event, event, sizeof h.event);
  return h;
}

#define NODE_COUNT 5u

/* Writes a small thread file: two modules (ids 7 and 3, so ids are not
 * indexes), a root, a placeholder, calls and a sample, metrics and stats. */
static void write_sample_file(const char *name, uint32_t index, uint32_t tid, const char *event,
                              uint64_t leaf_samples)
{
  knit_writer w;
  knit_file_header h = sample_header(index, tid, event);
  assert_int_equal(knit_writer_open(&w, test_dir, name, &h), 0);

  static const struct {
    uint32_t id;
    uint64_t base;
    const char *path;
  } modules[] = {
      {7, 0x400000, "/usr/bin/app"},
      {3, 0x7f0000000000, "/lib/x86_64-linux-gnu/libc.so.6"},
  };
  knit_writer_begin_section(&w, KNIT_SECTION_MODULES);
  knit_writer_put_u32(&w, 2);
  for (int i = 0; i < 2; i++) {
    knit_writer_put_u32(&w, modules[i].id);
    knit_writer_put_u32(&w, (uint32_t)strlen(modules[i].path));
    knit_writer_put_u64(&w, modules[i].base);
    knit_writer_put(&w, modules[i].path, strlen(modules[i].path));
  }
  knit_writer_end_section(&w);

  const knit_node_record nodes[NODE_COUNT] = {
      {.id = 0,
       .parent = 0,
       .module = KNIT_MODULE_PLACEHOLDER,
       .kind = KNIT_NODE_PLACEHOLDER,
       .offset = KNIT_PH_ROOT},
      {.id = 1, .parent = 0, .module = 3, .kind = KNIT_NODE_CALL, .offset = 0x2a1ca},
      {.id = 2, .parent = 1, .module = 7, .kind = KNIT_NODE_CALL, .offset = 0x1234},
      {.id = 3, .parent = 2, .module = 7, .kind = KNIT_NODE_SAMPLE, .offset = 0x1100},
      {.id = 4,
       .parent = 0,
       .module = KNIT_MODULE_PLACEHOLDER,
       .kind = KNIT_NODE_PLACEHOLDER,
       .offset = KNIT_PH_OMP_IDLE},
  };
  knit_writer_begin_section(&w, KNIT_SECTION_NODES);
  knit_writer_put_u32(&w, NODE_COUNT);
  knit_writer_put(&w, nodes, sizeof nodes);
  knit_writer_end_section(&w);

  const knit_metric_record metrics[] = {
      {.node = 3, .metric = KNIT_METRIC_SAMPLES, .value = leaf_samples},
      {.node = 4, .metric = KNIT_METRIC_SAMPLES, .value = 2},
  };
  knit_writer_begin_section(&w, KNIT_SECTION_METRICS);
  knit_writer_put_u32(&w, 2);
  knit_writer_put(&w, metrics, sizeof metrics);
  knit_writer_end_section(&w);

  knit_writer_begin_section(&w, KNIT_SECTION_STATS);
  knit_writer_put_u32(&w, 2);
  knit_stat_record stats[] = {{KNIT_STAT_SAMPLES, 0, leaf_samples + 2}, {KNIT_STAT_PARTIAL, 0, 1}};
  knit_writer_put(&w, stats, sizeof stats);
  knit_writer_end_section(&w);
  assert_int_equal(knit_writer_close(&w), 0);
}

/* --- the writer, checked byte by byte (runs in cross builds too) ----------- */

static void test_writer_layout(void **state)
{
  (void)state;
  write_sample_file("thread-0-100.knit", 0, 100, "PROBE", 5);
  size_t len;
  uint8_t *data = slurp(path_in("thread-0-100.knit"), &len);
  /* The temporary file is gone once the file is renamed into place. */
  assert_int_not_equal(access(path_in(".thread-0-100.knit.tmp"), F_OK), 0);

  knit_file_header h;
  assert_true(len > sizeof h);
  memcpy(&h, data, sizeof h);
  assert_memory_equal(h.magic, KNIT_FILE_MAGIC, 8);
  assert_int_equal(h.version, KNIT_FILE_VERSION);
  assert_int_equal(h.byte_order, KNIT_BYTE_ORDER_MARK);
  assert_int_equal(h.tid, 100);
  assert_string_equal(h.event, "PROBE");

  /* The sections follow each other with their patched lengths, END last. */
  const uint32_t expected_tags[] = {KNIT_SECTION_MODULES, KNIT_SECTION_NODES, KNIT_SECTION_METRICS,
                                    KNIT_SECTION_STATS, KNIT_SECTION_END};
  const uint64_t expected_lengths[] = {
      4 + 16 + strlen("/usr/bin/app") + 16 + strlen("/lib/x86_64-linux-gnu/libc.so.6"),
      4 + NODE_COUNT * sizeof(knit_node_record), 4 + 2 * sizeof(knit_metric_record),
      4 + 2 * sizeof(knit_stat_record), 0};
  size_t at = sizeof h;
  for (int i = 0; i < 5; i++) {
    knit_section_header sh;
    assert_true(at + sizeof sh <= len);
    memcpy(&sh, data + at, sizeof sh);
    assert_int_equal(sh.tag, expected_tags[i]);
    assert_int_equal(sh.length, expected_lengths[i]);
    at += sizeof sh + sh.length;
  }
  assert_int_equal(at, len);
  free(data);
}

/* A section whose length field straddles the writer's buffer boundary, and
 * sections far larger than the buffer, get their lengths patched right. */
static void test_writer_large_sections(void **state)
{
  (void)state;
  knit_writer w;
  knit_file_header h = sample_header(1, 2, "CPUTIME");
  assert_int_equal(knit_writer_open(&w, test_dir, "big.knit", &h), 0);
  size_t buf = sizeof w.buf;
  /* A filler section (an unknown tag) ending 12 bytes before the buffer
   * ends, so the next header's length field (at +8) crosses the boundary. */
  size_t filler = buf - 12 - sizeof(knit_file_header) - sizeof(knit_section_header);
  uint8_t *zeros = calloc(1, 3 * buf);
  knit_writer_begin_section(&w, 99);
  knit_writer_put(&w, zeros, filler);
  knit_writer_end_section(&w);
  assert_int_equal(knit_writer_offset(&w), buf - 12);
  knit_writer_begin_section(&w, 98);
  knit_writer_put(&w, zeros, 3 * buf);
  knit_writer_end_section(&w);
  /* A section begun and ended entirely after several flushes. */
  knit_writer_begin_section(&w, 97);
  knit_writer_put(&w, zeros, buf + 5);
  knit_writer_end_section(&w);
  assert_int_equal(knit_writer_close(&w), 0);
  free(zeros);

  size_t len;
  uint8_t *data = slurp(path_in("big.knit"), &len);
  const uint64_t lengths[] = {filler, 3 * buf, buf + 5, 0};
  size_t at = sizeof(knit_file_header);
  for (int i = 0; i < 4; i++) {
    knit_section_header sh;
    memcpy(&sh, data + at, sizeof sh);
    assert_int_equal(sh.length, lengths[i]);
    at += sizeof sh + sh.length;
  }
  assert_int_equal(at, len);
  free(data);
}

static void test_writer_errors(void **state)
{
  (void)state;
  knit_writer w;
  knit_file_header h = sample_header(0, 1, "PROBE");
  /* Only one directory level is created. */
  char deep[400];
  snprintf(deep, sizeof deep, "%s/no/such/dir", test_dir);
  assert_int_equal(knit_writer_open(&w, deep, "x.knit", &h), -ENOENT);
  assert_int_equal(knit_writer_close(&w), -ENOENT);

  char long_name[600];
  memset(long_name, 'a', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  assert_int_equal(knit_writer_open(&w, test_dir, long_name, &h), -ENAMETOOLONG);

  /* The writer creates the last directory level itself. */
  char fresh[400];
  snprintf(fresh, sizeof fresh, "%s/fresh", test_dir);
  assert_int_equal(knit_writer_open(&w, fresh, "x.knit", &h), 0);
  /* A failed write (fd closed under the writer) is sticky, and close
   * removes the temporary file instead of renaming it. */
  close(w.fd);
  w.fd = open("/dev/null", O_RDONLY);
  knit_writer_begin_section(&w, KNIT_SECTION_NODES);
  uint8_t big[20000] = {0};
  knit_writer_put(&w, big, sizeof big);
  assert_int_not_equal(w.error, 0);
  assert_int_equal(knit_writer_close(&w), -EBADF);
  char tmp[450], final[450];
  snprintf(tmp, sizeof tmp, "%s/.x.knit.tmp", fresh);
  snprintf(final, sizeof final, "%s/x.knit", fresh);
  assert_int_not_equal(access(tmp, F_OK), 0);
  assert_int_not_equal(access(final, F_OK), 0);
}

static void test_text_format(void **state)
{
  (void)state;
  char buf[128];
  knit_text t;
  knit_text_init(&t, buf, sizeof buf);
  knit_text_str(&t, "SUMMARY samples=");
  knit_text_u64(&t, 18446744073709551615ull);
  knit_text_str(&t, " d=");
  knit_text_i64(&t, INT64_MIN);
  knit_text_char(&t, ' ');
  knit_text_hex(&t, 0xdeadbeef);
  knit_text_char(&t, ' ');
  knit_text_u64(&t, 0);
  assert_string_equal(buf, "SUMMARY samples=18446744073709551615 d=-9223372036854775808 "
                           "0xdeadbeef 0");
  assert_false(t.overflow);

  char small[8];
  knit_text_init(&t, small, sizeof small);
  knit_text_str(&t, "overflowing");
  assert_true(t.overflow);
  assert_string_equal(small, "overflo");
}

#ifdef KNIT_TEST_READER
/* --- the reader ------------------------------------------------------------ */

static void spill(const char *path, const uint8_t *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void test_round_trip(void **state)
{
  (void)state;
  write_sample_file("thread-0-100.knit", 0, 100, "PROBE", 5);
  knit_thread_file f;
  char err[256];
  assert_int_equal(knit_thread_file_read(path_in("thread-0-100.knit"), &f, err, sizeof err), 0);
  assert_string_equal(f.name, "thread-0-100.knit");
  assert_string_equal(f.event, "PROBE");
  assert_int_equal(f.header.tid, 100);
  assert_int_equal(f.header.period, 1000000);
  assert_int_equal(f.module_count, 2);
  assert_string_equal(f.modules[0].path, "/usr/bin/app");
  assert_int_equal(f.modules[0].id, 7);
  assert_int_equal(f.modules[1].base, 0x7f0000000000);
  assert_int_equal(f.node_count, NODE_COUNT);
  /* Module ids became indexes into modules. */
  assert_int_equal(f.nodes[1].module, 1);
  assert_int_equal(f.nodes[2].module, 0);
  assert_int_equal(f.nodes[3].parent, 2);
  assert_int_equal(f.nodes[3].kind, KNIT_NODE_SAMPLE);
  assert_int_equal(f.nodes[3].offset, 0x1100);
  assert_int_equal(f.nodes[4].module, KNIT_MODULE_PLACEHOLDER);
  assert_int_equal(f.metric_count, 2);
  assert_int_equal(f.metrics[0].node, 3);
  assert_int_equal(f.metrics[0].value, 5);
  assert_int_equal(f.stats[KNIT_STAT_SAMPLES], 7);
  assert_int_equal(f.stats[KNIT_STAT_PARTIAL], 1);
  knit_thread_file_free(&f);
}

/* The STEPS section (unwind step classes per module): written after the
 * other sections, read back with module ids resolved to indexes (and the
 * unknown-code id kept), and a record naming a module MODULES does not list
 * is an error. */
static void write_steps_file(const char *name, uint32_t steps_module)
{
  knit_writer w;
  knit_file_header h = sample_header(0, 100, "PROBE");
  assert_int_equal(knit_writer_open(&w, test_dir, name, &h), 0);
  knit_writer_begin_section(&w, KNIT_SECTION_MODULES);
  knit_writer_put_u32(&w, 1);
  knit_writer_put_u32(&w, 9);
  knit_writer_put_u32(&w, 3);
  knit_writer_put_u64(&w, 0x1000);
  knit_writer_put(&w, "/a1", 3);
  knit_writer_end_section(&w);
  knit_writer_begin_section(&w, KNIT_SECTION_STEPS);
  knit_writer_put_u32(&w, 2);
  knit_steps_record r[2] = {{steps_module, 0, 10, 2, 1}, {KNIT_MODULE_UNKNOWN, 0, 0, 0, 4}};
  knit_writer_put(&w, r, sizeof r);
  knit_writer_end_section(&w);
  assert_int_equal(knit_writer_close(&w), 0);
}

static void test_steps_round_trip(void **state)
{
  (void)state;
  write_steps_file("thread-0-100.knit", 9);
  knit_thread_file f;
  char err[256];
  assert_int_equal(knit_thread_file_read(path_in("thread-0-100.knit"), &f, err, sizeof err), 0);
  assert_int_equal(f.has_steps, 1);
  assert_int_equal(f.step_count, 2);
  assert_int_equal(f.steps[0].module, 0);
  assert_int_equal(f.steps[0].confirmed, 10);
  assert_int_equal(f.steps[0].probable, 2);
  assert_int_equal(f.steps[0].wrong, 1);
  assert_int_equal(f.steps[1].module, KNIT_MODULE_UNKNOWN);
  assert_int_equal(f.steps[1].wrong, 4);
  knit_thread_file_free(&f);

  write_steps_file("thread-1-101.knit", 8);
  assert_int_equal(knit_thread_file_read(path_in("thread-1-101.knit"), &f, err, sizeof err), -1);
  assert_non_null(strstr(err, "STEPS record 0 refers to module id 8"));
}

/* Parses data and expects failure with a reason containing want. */
static void expect_error(const uint8_t *data, size_t len, const char *want)
{
  knit_thread_file f;
  char err[256] = "";
  int rc = knit_thread_file_parse(data, len, &f, err, sizeof err);
  if (rc == 0 || strstr(err, want) == NULL)
    fail_msg("expected an error with \"%s\", got rc %d \"%s\"", want, rc, err);
  assert_null(f.nodes);
  assert_null(f.modules);
}

static void test_every_truncation_fails_cleanly(void **state)
{
  (void)state;
  write_sample_file("t.knit", 0, 1, "PROBE", 5);
  size_t len;
  uint8_t *data = slurp(path_in("t.knit"), &len);
  for (size_t cut = 0; cut < len; cut++) {
    /* A fresh copy of exactly cut bytes, so a read past it is caught by
     * sanitizers and valgrind, not hidden by the rest of the buffer. */
    uint8_t *copy = malloc(cut ? cut : 1);
    memcpy(copy, data, cut);
    expect_error(copy, cut, "truncated");
    free(copy);
  }
  free(data);
}

/* A file as a process of the other byte order writes it (ppc64's, read on
 * an x86-64 host) reads as the same file in this order: every field of
 * every section, the other order noted; and every truncation of it still
 * fails cleanly, so the swap that precedes parsing never reads past the
 * bytes it has. */
static void test_other_byte_order(void **state)
{
  (void)state;
  write_sample_file("t.knit", 0, 100, "PROBE", 5);
  write_steps_file("s.knit", 9);
  const char *names[] = {"t.knit", "s.knit"};
  for (size_t n = 0; n < 2; n++) {
    size_t len;
    uint8_t *data = slurp(path_in(names[n]), &len);
    knit_thread_file here, other;
    char err[256];
    assert_int_equal(knit_thread_file_parse(data, len, &here, err, sizeof err), 0);
    assert_int_equal(here.other_byte_order, 0);
    knit_thread_file_swap(data, len, false);
    uint32_t mark;
    memcpy(&mark, data + offsetof(knit_file_header, byte_order), 4);
    assert_int_equal(mark, __builtin_bswap32(KNIT_BYTE_ORDER_MARK));
    if (knit_thread_file_parse(data, len, &other, err, sizeof err) != 0)
      fail_msg("%s in the other byte order: %s", names[n], err);
    assert_int_equal(other.other_byte_order, 1);
    assert_memory_equal(&other.header, &here.header, sizeof here.header);
    assert_int_equal(other.module_count, here.module_count);
    for (size_t i = 0; i < here.module_count; i++) {
      assert_int_equal(other.modules[i].id, here.modules[i].id);
      assert_int_equal(other.modules[i].base, here.modules[i].base);
      assert_string_equal(other.modules[i].path, here.modules[i].path);
    }
    assert_int_equal(other.node_count, here.node_count);
    assert_memory_equal(other.nodes, here.nodes, here.node_count * sizeof *here.nodes);
    assert_int_equal(other.metric_count, here.metric_count);
    assert_memory_equal(other.metrics, here.metrics, here.metric_count * sizeof *here.metrics);
    assert_memory_equal(other.stats, here.stats, sizeof here.stats);
    assert_int_equal(other.step_count, here.step_count);
    assert_memory_equal(other.steps, here.steps, here.step_count * sizeof *here.steps);
    knit_thread_file_free(&here);
    knit_thread_file_free(&other);
    for (size_t cut = 0; cut < len; cut++) {
      uint8_t *copy = malloc(cut ? cut : 1);
      memcpy(copy, data, cut);
      expect_error(copy, cut, cut < sizeof(knit_file_header) ? "" : "truncated");
      free(copy);
    }
    free(data);
  }
}

/* Offset of the first section with this tag, or 0. */
static size_t find_section(const uint8_t *data, size_t len, uint32_t tag)
{
  size_t at = sizeof(knit_file_header);
  while (at + sizeof(knit_section_header) <= len) {
    knit_section_header sh;
    memcpy(&sh, data + at, sizeof sh);
    if (sh.tag == tag)
      return at;
    at += sizeof sh + sh.length;
  }
  return 0;
}

static void test_corrupt_files(void **state)
{
  (void)state;
  write_sample_file("t.knit", 0, 1, "PROBE", 5);
  size_t len;
  uint8_t *good = slurp(path_in("t.knit"), &len);
  uint8_t *data = malloc(len);

  memcpy(data, good, len);
  memcpy(data, "ELF\x7f....", 8);
  expect_error(data, len, "bad magic");
  expect_error((const uint8_t *)"#!/bin/sh\necho hello\n", 21, "bad magic");

  memcpy(data, good, len);
  uint32_t version = 7;
  memcpy(data + offsetof(knit_file_header, version), &version, 4);
  expect_error(data, len, "format version 7");

  /* The other byte order's mark on a file of this order: read as the other
   * order, its version is then no version this reader knows. */
  memcpy(data, good, len);
  uint32_t swapped = __builtin_bswap32(KNIT_BYTE_ORDER_MARK);
  memcpy(data + offsetof(knit_file_header, byte_order), &swapped, 4);
  expect_error(data, len, "format version 16777216");

  memcpy(data, good, len);
  uint32_t odd_mark = 0x01020305u;
  memcpy(data + offsetof(knit_file_header, byte_order), &odd_mark, 4);
  expect_error(data, len, "bad byte-order mark 0x01020305");

  /* A huge node count is refused before anything that size is allocated. */
  size_t nodes = find_section(good, len, KNIT_SECTION_NODES);
  assert_int_not_equal(nodes, 0);
  memcpy(data, good, len);
  uint32_t huge = 0xFFFFFFFFu;
  memcpy(data + nodes + sizeof(knit_section_header), &huge, 4);
  expect_error(data, len, "NODES count 4294967295 needs");

  /* A section length beyond the file. */
  memcpy(data, good, len);
  uint64_t too_long = 1ull << 60;
  memcpy(data + nodes + offsetof(knit_section_header, length), &too_long, 8);
  expect_error(data, len, "NODES section");

  /* Node records that break the tree's promises. */
  size_t first = nodes + sizeof(knit_section_header) + 4;
  size_t rec3 = first + 3 * sizeof(knit_node_record);
  memcpy(data, good, len);
  uint32_t bad_parent = 4;
  memcpy(data + rec3 + offsetof(knit_node_record, parent), &bad_parent, 4);
  expect_error(data, len, "not smaller than its id");

  memcpy(data, good, len);
  uint32_t bad_module = 5;
  memcpy(data + rec3 + offsetof(knit_node_record, module), &bad_module, 4);
  expect_error(data, len, "module id 5");

  memcpy(data, good, len);
  data[rec3 + offsetof(knit_node_record, kind)] = 9;
  expect_error(data, len, "unknown kind 9");

  /* A metric on a node that does not exist. */
  size_t metrics = find_section(good, len, KNIT_SECTION_METRICS);
  memcpy(data, good, len);
  uint32_t bad_node = 77;
  memcpy(data + metrics + sizeof(knit_section_header) + 4, &bad_node, 4);
  expect_error(data, len, "node 77");

  /* A module path running past its section. */
  size_t modules = find_section(good, len, KNIT_SECTION_MODULES);
  memcpy(data, good, len);
  uint32_t long_path = 100000;
  memcpy(data + modules + sizeof(knit_section_header) + 4 + 4, &long_path, 4);
  expect_error(data, len, "runs past its section");

  free(data);
  free(good);
}

static void test_measurement_directory(void **state)
{
  (void)state;
  write_sample_file("thread-1-101.knit", 1, 101, "PROBE", 3);
  write_sample_file("thread-0-100.knit", 0, 100, "PROBE", 5);
  spill(path_in("thread-2-102.knit"), (const uint8_t *)"garbage", 7);
  spill(path_in("notes.txt"), (const uint8_t *)"not a thread file", 17);
  const char *log = "start: CPUTIME\nSUMMARY samples=1 threads=1\nmore\n"
                    "SUMMARY samples=10 partial=2 threads=3 dir=/tmp/x\n";
  spill(path_in("knit.log"), (const uint8_t *)log, strlen(log));

  knit_measurement m;
  char err[256];
  assert_int_equal(knit_measurement_read(test_dir, &m, err, sizeof err), 0);
  assert_int_equal(m.thread_count, 2);
  assert_int_equal(m.threads[0].header.tid, 100);
  assert_int_equal(m.threads[1].header.tid, 101);
  assert_int_equal(m.failed_count, 1);
  assert_non_null(strstr(m.failures[0], "thread-2-102.knit: "));
  assert_non_null(strstr(m.failures[0], "truncated"));
  assert_string_equal(m.event, "PROBE");
  assert_string_equal(m.summary, "SUMMARY samples=10 partial=2 threads=3 dir=/tmp/x");
  uint64_t v = 0;
  assert_int_equal(knit_summary_u64(m.summary, "partial", &v), 0);
  assert_int_equal(v, 2);
  assert_int_equal(knit_summary_u64(m.summary, "threads", &v), 0);
  assert_int_equal(v, 3);
  assert_int_equal(knit_summary_u64(m.summary, "missing", &v), -1);
  assert_int_equal(knit_summary_u64(m.summary, "dir", &v), -1);
  knit_measurement_free(&m);
}

static void test_measurement_errors(void **state)
{
  (void)state;
  knit_measurement m;
  char err[512];
  assert_int_equal(knit_measurement_read("/nonexistent/knit-dir", &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/knit-dir"));
  assert_non_null(strstr(err, "No such file"));
  assert_int_equal(knit_measurement_read(test_dir, &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "no thread-*.knit files"));
}
#endif /* KNIT_TEST_READER */

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_writer_layout, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_writer_large_sections, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_writer_errors, make_dir, remove_dir),
      cmocka_unit_test(test_text_format),
#ifdef KNIT_TEST_READER
      cmocka_unit_test_setup_teardown(test_round_trip, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_steps_round_trip, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_every_truncation_fails_cleanly, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_corrupt_files, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_other_byte_order, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_measurement_directory, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_measurement_errors, make_dir, remove_dir),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
