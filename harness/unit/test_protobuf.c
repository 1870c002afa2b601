/* The protocol buffers writer (report/protobuf.h) against bytes worked out
 * by hand from the wire format's rules: varints of 7 bits a byte, low
 * group first; keys as (field << 3) | wire type; lengths before bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/protobuf.h"

static void expect_bytes(knit_pb *b, const uint8_t *want, size_t n)
{
  assert_false(b->failed);
  if (b->len != n || memcmp(b->data, want, n) != 0) {
    char got[256] = "", exp[256] = "";
    for (size_t i = 0; i < b->len && i < 40; i++)
      snprintf(got + strlen(got), sizeof got - strlen(got), " %02x", b->data[i]);
    for (size_t i = 0; i < n && i < 40; i++)
      snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %02x", want[i]);
    fail_msg("got %zu bytes:%s; want %zu:%s", b->len, got, n, exp);
  }
  knit_pb_free(b);
}

#define EXPECT(b, ...)                                                                             \
  do {                                                                                             \
    const uint8_t want_[] = {__VA_ARGS__};                                                         \
    expect_bytes((b), want_, sizeof want_);                                                        \
  } while (0)

static void expect_varint(uint64_t v, const uint8_t *want, size_t n)
{
  knit_pb b = {0};
  knit_pb_varint(&b, v);
  assert_int_equal(knit_pb_varint_size(v), n);
  expect_bytes(&b, want, n);
}

static void test_varint_edges(void **state)
{
  (void)state;
  expect_varint(0, (const uint8_t[]){0x00}, 1);
  expect_varint(1, (const uint8_t[]){0x01}, 1);
  expect_varint(127, (const uint8_t[]){0x7f}, 1);
  expect_varint(128, (const uint8_t[]){0x80, 0x01}, 2);
  expect_varint(300, (const uint8_t[]){0xac, 0x02}, 2);
  expect_varint(16383, (const uint8_t[]){0xff, 0x7f}, 2);
  expect_varint(16384, (const uint8_t[]){0x80, 0x80, 0x01}, 3);
  expect_varint(UINT32_MAX, (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0x0f}, 5);
  expect_varint(1ull << 63,
                (const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10);
  expect_varint(UINT64_MAX,
                (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10);
}

static void test_keys_and_scalars(void **state)
{
  (void)state;
  knit_pb b = {0};
  knit_pb_uint(&b, 1, 150); /* the format's own first example */
  EXPECT(&b, 0x08, 0x96, 0x01);
  knit_pb_uint(&b, 15, 0); /* the last one-byte key; zero is written */
  EXPECT(&b, 0x78, 0x00);
  knit_pb_uint(&b, 16, 1); /* the first two-byte key */
  EXPECT(&b, 0x80, 0x01, 0x01);
  knit_pb_int(&b, 2, -1); /* int64: two's complement, ten bytes */
  EXPECT(&b, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
  knit_pb_int(&b, 2, INT64_MAX);
  EXPECT(&b, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
  knit_pb_key(&b, 536870911, KNIT_PB_DELIMITED); /* the largest field number */
  EXPECT(&b, 0xfa, 0xff, 0xff, 0xff, 0x0f);
}

static void test_strings(void **state)
{
  (void)state;
  knit_pb b = {0};
  knit_pb_string(&b, 2, "testing");
  EXPECT(&b, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');
  knit_pb_string(&b, 6, ""); /* a string table's first entry */
  EXPECT(&b, 0x32, 0x00);
  const uint8_t bytes[] = {0x00, 0xff};
  knit_pb_bytes(&b, 1, bytes, 2);
  EXPECT(&b, 0x0a, 0x02, 0x00, 0xff);
}

static void test_packed(void **state)
{
  (void)state;
  knit_pb b = {0};
  const uint64_t values[] = {3, 270, 86942};
  knit_pb_packed(&b, 4, values, 3);
  EXPECT(&b, 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);
  /* An empty repeated field is no field at all. */
  knit_pb_uint(&b, 1, 7);
  knit_pb_packed(&b, 4, values, 0);
  EXPECT(&b, 0x08, 0x07);
}

static void test_nested(void **state)
{
  (void)state;
  knit_pb b = {0};
  size_t mark = knit_pb_begin(&b, 3);
  knit_pb_uint(&b, 1, 150);
  knit_pb_end(&b, mark);
  EXPECT(&b, 0x1a, 0x03, 0x08, 0x96, 0x01);

  /* An empty message, then one after it: the first's length stays 0. */
  mark = knit_pb_begin(&b, 1);
  knit_pb_end(&b, mark);
  mark = knit_pb_begin(&b, 2);
  knit_pb_uint(&b, 1, 1);
  knit_pb_end(&b, mark);
  EXPECT(&b, 0x0a, 0x00, 0x12, 0x02, 0x08, 0x01);
}

/* Two levels whose bodies pass 127 bytes: each length takes two bytes, so
 * each body moves by two, the inner one twice. */
static void test_nested_long_bodies(void **state)
{
  (void)state;
  knit_pb b = {0};
  char text[201];
  memset(text, 'x', 200);
  text[200] = '\0';
  size_t outer = knit_pb_begin(&b, 1);
  size_t inner = knit_pb_begin(&b, 2);
  knit_pb_string(&b, 3, text);
  knit_pb_end(&b, inner);
  knit_pb_uint(&b, 4, 5);
  knit_pb_end(&b, outer);
  /* string: 1 + 2 + 200 = 203 bytes; inner: 1 + 2 + 203 = 206; outer:
   * 206 + 2 (field 4) = 208, 0xd0 0x01. */
  uint8_t want[3 + 3 + 3 + 200 + 2];
  size_t n = 0;
  want[n++] = 0x0a, want[n++] = 0xd0, want[n++] = 0x01;
  want[n++] = 0x12, want[n++] = 0xcb, want[n++] = 0x01;
  want[n++] = 0x1a, want[n++] = 0xc8, want[n++] = 0x01;
  memset(want + n, 'x', 200);
  n += 200;
  want[n++] = 0x20, want[n++] = 0x05;
  assert_int_equal(n, sizeof want);
  expect_bytes(&b, want, n);
}

/* A buffer that grows many times over keeps every byte in place. */
static void test_growth(void **state)
{
  (void)state;
  knit_pb b = {0};
  for (uint64_t i = 0; i < 10000; i++)
    knit_pb_varint(&b, i * 131);
  assert_false(b.failed);
  size_t at = 0;
  for (uint64_t i = 0; i < 10000; i++) {
    uint64_t v = 0;
    int shift = 0;
    uint8_t byte;
    do {
      byte = b.data[at++];
      v |= (uint64_t)(byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    assert_int_equal(v, i * 131);
  }
  assert_int_equal(at, b.len);
  knit_pb_free(&b);
  assert_null(b.data);
  assert_int_equal(b.len, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varint_edges), cmocka_unit_test(test_keys_and_scalars),
      cmocka_unit_test(test_strings),      cmocka_unit_test(test_packed),
      cmocka_unit_test(test_nested),       cmocka_unit_test(test_nested_long_bodies),
      cmocka_unit_test(test_growth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
