/* The aarch64 analyzer audit's subject code: compiled by the aarch64
 * cross compiler into small shared objects, in several code-generation
 * flavours (see aarch64.cmake), whose every instruction test_aarch64_analyze
 * audits against the CFI the compiler wrote. Never run, only decoded. */
#include <stdarg.h>

extern int work(int *buf, int n);
extern int other(int n);
extern void use(void *p);
extern void die(const char *why) __attribute__((noreturn));

int knit_a64_leaf(int a, int b)
{
  return a * b + 3;
}

int knit_a64_multi_exit(int n)
{
  int buf[8];
  int a = work(buf, n);
  if (a > 10)
    return a + buf[n & 7];
  return other(a) + buf[0];
}

int knit_a64_big_frame(int n)
{
  int buf[20000];
  buf[n] = n;
  return work(buf, n) + buf[3];
}

int knit_a64_huge_frame(int n)
{
  int buf[1 << 20];
  buf[n] = n;
  return work(buf, n) + buf[7];
}

int knit_a64_vla(int n)
{
  int buf[n];
  return work(buf, n) + other(n);
}

int knit_a64_alloca(int n)
{
  int *p = __builtin_alloca((unsigned)n * 4u + 16u);
  p[0] = n;
  int r = work(p, n);
  if (r < 0)
    die("alloca");
  return r;
}

int knit_a64_sum(int n, ...)
{
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  va_end(ap);
  return s;
}

int knit_a64_tail(int n)
{
  return other(n + 1);
}

int knit_a64_shrink_wrapped(int n)
{
  if (n < 0)
    return 0;
  int b[4];
  b[0] = n;
  return work(b, n) + b[1];
}

int knit_a64_switch(int k, int n)
{
  switch (k) {
  case 0: return other(n);
  case 1: return work(&n, 2) + 1;
  case 2: return n * 7;
  case 3: return other(n + 3) * 2;
  case 4: return work(&k, n);
  case 5: return n - 9;
  default: return -1;
  }
}

int knit_a64_many_saves(int a, int b, int c, int d, int e, int f)
{
  int x = other(a), y = other(b), z = other(c), u = other(d), v = other(e);
  int w = other(f), q = other(x + y);
  return x * a + y * b + z * c + u * d + v * e + w * f + q * (a ^ f);
}

int knit_a64_recurse(int n)
{
  if (n <= 1)
    return 1;
  return knit_a64_recurse(n - 1) + knit_a64_recurse(n - 2) + other(n);
}

void knit_a64_noreturn(int n)
{
  if (n > 3)
    die("big");
  use(&n);
}
