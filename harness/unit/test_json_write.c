/* The JSON writer (report/json_write.h): whatever bytes a name holds, the
 * output is valid JSON that reads back as the name, with what cannot be
 * read as UTF-8 replaced by U+FFFD; and the string table
 * (report/string_table.h) that numbers the names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/json_write.h"
#include "profiler/report/string_table.h"

static void expect_json(const char *text, const char *want)
{
  char *got = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&got, &len);
  assert_non_null(out);
  knit_json_string(out, text);
  assert_int_equal(fclose(out), 0);
  if (strcmp(got, want) != 0)
    fail_msg("JSON form of \"%s\": %s, want %s", text ? text : "(null)", got, want);
  free(got);
}

static void expect_number(double v, const char *want)
{
  char *got = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&got, &len);
  assert_non_null(out);
  knit_json_number(out, v);
  assert_int_equal(fclose(out), 0);
  assert_string_equal(got, want);
  free(got);
}

static void test_plain_and_quoted(void **state)
{
  (void)state;
  expect_json("main", "\"main\"");
  expect_json("", "\"\"");
  expect_json(NULL, "null");
  expect_json("say \"hi\" \\ now", "\"say \\\"hi\\\" \\\\ now\"");
  expect_json("operator()(int) const", "\"operator()(int) const\"");
}

static void test_controls_escaped(void **state)
{
  (void)state;
  expect_json("a\tb\nc", "\"a\\tb\\nc\"");
  expect_json("\x1b[31mred\x7f", "\"\\u001b[31mred\\u007f\"");
  expect_json("\r\x01", "\"\\u000d\\u0001\"");
}

static void test_html_characters_escaped(void **state)
{
  (void)state;
  /* A name that would end the page's script element stays inside it. */
  expect_json("</script><omp-idle>&", "\"\\u003c/script\\u003e\\u003comp-idle\\u003e\\u0026\"");
}

static void test_utf8_kept(void **state)
{
  (void)state;
  expect_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
              "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  expect_json("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */
  assert_int_equal(knit_utf8_sequence((const unsigned char *)"\xe2\x82\xac", 3), 3);
}

static void test_malformed_utf8_replaced(void **state)
{
  (void)state;
  expect_json("\xff", "\"\\ufffd\"");
  expect_json("a\xc3", "\"a\\ufffd\"");                                /* cut off at the end */
  expect_json("\xc3(", "\"\\ufffd(\"");                                /* no continuation */
  expect_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
  expect_json("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong, 3 bytes */
  expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* a surrogate */
  expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
  expect_json("\xe2\x82", "\"\\ufffd\\ufffd\"");                       /* 3-byte form cut short */
  assert_int_equal(knit_utf8_sequence((const unsigned char *)"\xe2\x82\xac", 2), 0);
}

static void test_numbers(void **state)
{
  (void)state;
  expect_number(0, "0");
  expect_number(143, "143");
  expect_number(12.5, "12.5");
  expect_number(0.001, "0.001");
  expect_number(18446744073709551615.0, "1.84467440737e+19");
  expect_number(0.0 / 0.0, "0");
  expect_number(1.0 / 0.0, "0");
}

static void test_string_table(void **state)
{
  (void)state;
  knit_string_table t;
  knit_string_table_init(&t);
  assert_int_equal(knit_string_table_find(&t, "main"), KNIT_STRING_NONE);
  char copy[] = "main";
  assert_int_equal(knit_string_table_add(&t, "main"), 0);
  assert_int_equal(knit_string_table_add(&t, "work"), 1);
  /* Equal text is one string, wherever it is stored. */
  assert_int_equal(knit_string_table_add(&t, copy), 0);
  /* Past the first growth of the slots, every number still found. */
  static char names[3000][12];
  for (int i = 0; i < 3000; i++) {
    snprintf(names[i], sizeof names[i], "f%d", i);
    assert_int_equal(knit_string_table_add(&t, names[i]), (uint32_t)i + 2);
  }
  for (int i = 0; i < 3000; i++)
    assert_int_equal(knit_string_table_find(&t, names[i]), (uint32_t)i + 2);
  assert_int_equal(t.count, 3002);
  assert_string_equal(t.strings[1], "work");
  knit_string_table_free(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_and_quoted),
      cmocka_unit_test(test_controls_escaped),
      cmocka_unit_test(test_html_characters_escaped),
      cmocka_unit_test(test_utf8_kept),
      cmocka_unit_test(test_malformed_utf8_replaced),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_string_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
