/* The views' row index (report/row_table.h): rows found by key before and
 * after the table grows, rows whose hashes collide told apart by the
 * caller's key, and the sums the rows share (report/rows.h), which
 * stop at UINT64_MAX rather than wrap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/rows.h"
#include "profiler/report/row_table.h"

#define ROW_COUNT 1000

/* A caller's rows: numbered names, kept outside the table. */
typedef struct rows {
  char names[ROW_COUNT][16];
  size_t count;
  int collide;       /* 1: every key hashes alike, so all share one probe chain */
  unsigned rehashed; /* calls of the row hash, made only as the table grows */
} rows;

static uint64_t name_hash(const rows *r, const char *name)
{
  return r->collide ? 42 : knit_row_hash_mix(knit_row_hash_text(KNIT_ROW_HASH_SEED, name));
}

static uint64_t hash_of_row(const void *context, uint32_t id)
{
  rows *r = (rows *)context;
  r->rehashed++;
  return name_hash(r, r->names[id]);
}

static int row_matches(const void *context, uint32_t id, const void *key)
{
  const rows *r = context;
  assert_true(id < r->count);
  return strcmp(r->names[id], key) == 0;
}

static const knit_row_keys name_keys = {hash_of_row, row_matches};

/* Finds name's row, adding it when missing, as the views do. */
static uint32_t find_or_add(knit_row_table *t, rows *r, const char *name)
{
  uint64_t hash = name_hash(r, name);
  uint32_t id = knit_row_table_find(t, &name_keys, r, hash, name);
  if (id != KNIT_ROW_NONE)
    return id;
  id = (uint32_t)r->count;
  snprintf(r->names[id], sizeof r->names[id], "%s", name);
  r->count++;
  assert_int_equal(knit_row_table_add(t, &name_keys, r, hash, id), 0);
  return id;
}

static void check_every_row(const knit_row_table *t, const rows *r)
{
  for (size_t i = 0; i < r->count; i++)
    assert_int_equal(knit_row_table_find(t, &name_keys, r, name_hash(r, r->names[i]), r->names[i]),
                     i);
}

static void empty_table_finds_nothing(void **state)
{
  (void)state;
  static rows r;
  knit_row_table t = {0};
  assert_int_equal(knit_row_table_find(&t, &name_keys, &r, 7, "f"), KNIT_ROW_NONE);
  assert_int_equal(t.slot_count, 0);
  knit_row_table_free(&t);
}

static void rows_found_after_growth(void **state)
{
  (void)state;
  static rows r;
  memset(&r, 0, sizeof r);
  knit_row_table t = {0};
  char name[16];
  size_t first_slots = 0;
  for (unsigned i = 0; i < ROW_COUNT; i++) {
    snprintf(name, sizeof name, "f%u", i);
    assert_int_equal(find_or_add(&t, &r, name), i);
    if (i == 0)
      first_slots = t.slot_count;
    /* Never more than half full. */
    assert_true(2 * t.count <= t.slot_count);
  }
  assert_int_equal(first_slots, 256);
  assert_int_equal(t.count, ROW_COUNT);
  assert_int_equal(t.slot_count, 2048);
  /* Rows are placed again only when the table doubles: at 128, 256 and
   * 512 rows. */
  assert_int_equal(r.rehashed, 128 + 256 + 512);
  check_every_row(&t, &r);
  /* Finding a row again adds nothing. */
  assert_int_equal(find_or_add(&t, &r, "f500"), 500);
  assert_int_equal(r.count, ROW_COUNT);
  assert_int_equal(knit_row_table_find(&t, &name_keys, &r, name_hash(&r, "g1"), "g1"),
                   KNIT_ROW_NONE);
  knit_row_table_free(&t);
  assert_null(t.slots);
  assert_int_equal(t.count, 0);
}

static void colliding_rows_told_apart(void **state)
{
  (void)state;
  static rows r;
  memset(&r, 0, sizeof r);
  r.collide = 1;
  knit_row_table t = {0};
  char name[16];
  /* 300 rows in one chain: the table grows twice meanwhile. */
  for (unsigned i = 0; i < 300; i++) {
    snprintf(name, sizeof name, "c%u", i);
    assert_int_equal(find_or_add(&t, &r, name), i);
  }
  assert_int_equal(t.slot_count, 1024);
  check_every_row(&t, &r);
  assert_int_equal(knit_row_table_find(&t, &name_keys, &r, 42, "c300"), KNIT_ROW_NONE);
  knit_row_table_free(&t);
}

static void text_hash_folds_every_byte(void **state)
{
  (void)state;
  uint64_t h = KNIT_ROW_HASH_SEED;
  assert_int_equal(knit_row_hash_text(h, NULL), h);
  assert_int_equal(knit_row_hash_text(h, ""), h);
  assert_int_not_equal(knit_row_hash_text(h, "ab"), knit_row_hash_text(h, "ba"));
  assert_int_equal(knit_row_hash_text(knit_row_hash_text(h, "a"), "b"),
                   knit_row_hash_text(h, "ab"));
  /* The mix spreads a change of the high bits into the low ones the
   * table's slots are chosen by. */
  assert_int_not_equal(knit_row_hash_mix(1ull << 40) & 255, knit_row_hash_mix(1ull << 41) & 255);
}

static void sums_saturate(void **state)
{
  (void)state;
  uint64_t sums[KNIT_METRIC_COUNT] = {1, UINT64_MAX - 1, 0, 5};
  uint64_t values[KNIT_METRIC_COUNT] = {2, 3, 0, 0};
  int saturated = 0;
  knit_rows_sum(sums, values, &saturated);
  assert_int_equal(sums[0], 3);
  assert_true(sums[1] == UINT64_MAX);
  assert_int_equal(sums[3], 5);
  assert_int_equal(saturated, 1);
  uint64_t none[KNIT_METRIC_COUNT] = {0};
  assert_int_equal(knit_rows_any(none), 0);
  none[KNIT_METRIC_COUNT - 1] = 1;
  assert_int_equal(knit_rows_any(none), 1);
  char a[] = "libm.so";
  assert_true(knit_rows_same_text(a, "libm.so"));
  assert_true(knit_rows_same_text(NULL, NULL));
  assert_false(knit_rows_same_text(a, NULL));
  assert_false(knit_rows_same_text(a, "libc.so"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_table_finds_nothing),
      cmocka_unit_test(rows_found_after_growth),
      cmocka_unit_test(colliding_rows_told_apart),
      cmocka_unit_test(text_hash_folds_every_byte),
      cmocka_unit_test(sums_saturate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
