/* The printable form of text from a measurement (measure/read_printable.h):
 * what a terminal would obey is escaped, readable text is left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/measure/read_printable.h"

static void expect_form(const char *text, const char *want)
{
  char *got = knit_printable_dup(text);
  assert_non_null(got);
  if (strcmp(got, want) != 0)
    fail_msg("printable form of \"%s\": \"%s\", want \"%s\"", text, got, want);
  assert_int_equal(knit_printable_length(text), strlen(want));
  assert_int_equal(knit_is_printable(text), strcmp(text, want) == 0);
  free(got);
}

static void test_plain_text_unchanged(void **state)
{
  (void)state;
  expect_form("", "");
  expect_form("/usr/lib/libgomp.so.1", "/usr/lib/libgomp.so.1");
  expect_form("operator new(unsigned long) ~x", "operator new(unsigned long) ~x");
  /* UTF-8: 2, 3 and 4 bytes. */
  expect_form("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
              "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

static void test_controls_escaped(void **state)
{
  (void)state;
  expect_form("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
  expect_form("\x1b]0;title\a", "\\x1b]0;title\\x07");
  expect_form("a\tb\nc\rd", "a\\x09b\\x0ac\\x0dd");
  expect_form("del\x7f", "del\\x7f");
  expect_form("back\\slash", "back\\\\slash");
  /* C1 controls, as UTF-8 (U+009B is CSI) and as lone bytes. */
  expect_form("\xc2\x9b"
              "2J",
              "\\xc2\\x9b2J");
  expect_form("\x9b"
              "2J",
              "\\x9b2J");
}

static void test_malformed_utf8_escaped(void **state)
{
  (void)state;
  expect_form("\xc3", "\\xc3");                            /* cut off at the end */
  expect_form("\xc3(", "\\xc3(");                          /* no continuation */
  expect_form("\xc0\xaf", "\\xc0\\xaf");                   /* overlong '/' */
  expect_form("\xe0\x80\xaf", "\\xe0\\x80\\xaf");          /* overlong, 3 bytes */
  expect_form("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
  expect_form("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
  expect_form("\xff", "\\xff");
}

/* Cut short at a whole escape or character, never inside one. */
static void test_cut_short(void **state)
{
  (void)state;
  char buf[8];
  assert_string_equal(knit_printable("ab\x1b"
                                     "cd",
                                     buf, 6),
                      "ab");
  assert_string_equal(knit_printable("ab\x1b"
                                     "cd",
                                     buf, 7),
                      "ab\\x1b");
  assert_string_equal(knit_printable("a\xe2\x82\xac", buf, 4), "a");
  assert_string_equal(knit_printable("abc", buf, 1), "");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_text_unchanged),
      cmocka_unit_test(test_controls_escaped),
      cmocka_unit_test(test_malformed_utf8_escaped),
      cmocka_unit_test(test_cut_short),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
