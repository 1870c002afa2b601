/* The ppc64le analyzer audit's subject program: built by
 * powerpc64le-linux-gnu-gcc at -O2 and -O0 (see ppc64le.cmake), it is the
 * code test_ppc64le_analyze's fixtures were recorded from and the code its
 * audit compares with the compiler's CFI at every instruction. */
#include <alloca.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

/* Callees the subjects call, kept out of line so the calls stay real. */
NOINLINE int knit_work(int *buf, int n)
{
  for (int i = 0; i < 8; i++)
    buf[i] = i * n;
  return n * 3;
}
NOINLINE int knit_other(int a)
{
  return a ^ 0x55;
}
NOINLINE void knit_use(char *p)
{
  __asm__ volatile("" : : "r"(p) : "memory");
}

int knit_leaf(int a, int b)
{
  return a * b + 3;
}

int knit_multi_exit(int n)
{
  int buf[8];
  int a = knit_work(buf, n);
  if (a > 10)
    return a + buf[n & 7];
  return knit_other(a) + buf[0];
}

int knit_vla(int n)
{
  char buf[n];
  knit_use(buf);
  return buf[0];
}

int knit_big(int n)
{
  char buf[100000];
  knit_use(buf);
  return buf[n];
}

int knit_saves(int a, int b, int c)
{
  int x = knit_other(a);
  int y = knit_other(b + x);
  int z = knit_other(c + y);
  return x + y + z + a * b * c;
}

int knit_tail(int n)
{
  return knit_other(n + 1);
}

int knit_alloca(int n)
{
  char *p = alloca((size_t)n + 1);
  memset(p, 1, (size_t)n + 1);
  knit_use(p);
  return p[n / 2];
}

int knit_switch(int k, int n)
{
  switch (k) {
  case 0: return knit_other(n);
  case 1: return n * 7;
  case 2: return knit_work(&n, n);
  case 3: return knit_leaf(n, k) - 1;
  case 4: return n - 9;
  case 5: return knit_tail(n);
  default: return 0;
  }
}

int main(int argc, char **argv)
{
  (void)argv;
  int s = knit_leaf(argc, 3) + knit_multi_exit(argc) + knit_vla(argc + 4) + knit_big(argc) +
          knit_saves(argc, 2, 3) + knit_tail(argc) + knit_alloca(argc + 10) + knit_switch(argc, 5);
  printf("%d\n", s);
  puts("done");
  return 0;
}
