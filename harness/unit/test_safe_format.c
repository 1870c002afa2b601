/* The signal-safe vsnprintf: every conversion Capstone uses, compared with
 * the C library's output. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/safe_format.h"

#define SAME(...)                                                                                  \
  do {                                                                                             \
    char want[256], got[256];                                                                      \
    int wn = snprintf(want, sizeof want, __VA_ARGS__);                                             \
    int gn = knit_safe_snprintf(got, sizeof got, __VA_ARGS__);                                     \
    assert_string_equal(got, want);                                                                \
    assert_int_equal(gn, wn);                                                                      \
  } while (0)

static void test_integers(void **state)
{
  (void)state;
  SAME("%d %i %u", 0, -17, 42u);
  SAME("%d", -2147483647 - 1);
  SAME("%ld %lu", -9000000000L, 18000000000UL);
  SAME("%lld %llu", -1LL, 18446744073709551615ULL);
  SAME("%" PRId64 " %" PRIu64 " %" PRIx64, (int64_t)-5, (uint64_t)5, (uint64_t)0xdeadbeefcafe);
  SAME("%hd %hhu", (short)-3, (unsigned char)250);
  SAME("%zu %zx", (size_t)77, (size_t)255);
}

static void test_hex_octal_flags(void **state)
{
  (void)state;
  SAME("%x %X %#x %#X %#x", 255u, 255u, 255u, 255u, 0u);
  SAME("0x%" PRIx64, (uint64_t)0x1000);
  SAME("%o %#o", 8u, 8u);
  SAME("%08x|%-8x|%8x", 0xabcu, 0xabcu, 0xabcu);
  SAME("%05d|%-5d|%5d", -42, -42, -42);
  SAME("%#010x", 0x1234u);
}

static void test_strings_chars(void **state)
{
  (void)state;
  SAME("%s|%10s|%-10s|%.3s", "mov", "rax", "rbx", "abcdef");
  SAME("%c%c%c", 'a', 'b', 'c');
  SAME("100%% [%s + 0x%x]", "rsp", 8u);
  SAME("%*d|%-*d", 6, 12, 6, 12);
}

static void test_truncation(void **state)
{
  (void)state;
  char buf[8];
  int n = knit_safe_snprintf(buf, sizeof buf, "%s", "0123456789");
  assert_int_equal(n, 10);
  assert_string_equal(buf, "0123456");
  n = knit_safe_snprintf(NULL, 0, "%d", 12345);
  assert_int_equal(n, 5);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_hex_octal_flags),
      cmocka_unit_test(test_strings_chars),
      cmocka_unit_test(test_truncation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
