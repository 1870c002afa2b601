/* A function that gcc -O2 splits into a hot part and a .cold part (the
 * block that calls a cold function), for test_x86_64_cold.c. Built with
 * -O2 whatever the build type (unwind.cmake). */
#include <stdio.h>

long knit_cold_subject(long x, long y);

__attribute__((cold, noinline)) void knit_cold_report(const char *what, long v)
{
  fprintf(stderr, "%s %ld\n", what, v);
}

__attribute__((noinline)) static long knit_cold_work(long x)
{
  __asm__ volatile("" : "+r"(x));
  return x * 3 + 1;
}

long knit_cold_subject(long x, long y)
{
  long a = knit_cold_work(x), b = knit_cold_work(y);
  if (__builtin_expect(x < 0, 0)) {
    knit_cold_report("negative", a);
    knit_cold_report("again", b);
    return -1;
  }
  return a + b + knit_cold_work(a * b);
}
