/* The structure analysis' subject program: loops of known shapes, each
 * body calling a function the compiler may not inline or vectorize away,
 * so that every compiler at -O2 keeps one machine loop per source loop.
 * test_loops reads it, built by each compiler this machine has
 * (structure.cmake), and counts the loops and their nesting. */
#include <stdio.h>

__attribute__((noinline)) void loops_sink(long a, long b, long c)
{
  __asm__ volatile("" ::"r"(a), "r"(b), "r"(c) : "memory");
}

/* Three loops, each inside the one before. */
__attribute__((noinline)) void loops_nest3(long n)
{
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k < n; k++)
        loops_sink(i, j, k);
}

/* Two loops one after the other, no nesting. */
__attribute__((noinline)) void loops_sequence(long n)
{
  for (long i = 0; i < n; i++)
    loops_sink(i, 0, 0);
  for (long j = 0; j < n; j++)
    loops_sink(0, j, 0);
}

/* One loop holding two loops side by side. */
__attribute__((noinline)) void loops_siblings(long n)
{
  for (long i = 0; i < n; i++) {
    for (long j = 0; j < n; j++)
      loops_sink(i, j, 0);
    for (long k = 0; k < n; k++)
      loops_sink(i, 0, k);
  }
}

/* No loop at all. */
__attribute__((noinline)) long loops_none(long n)
{
  loops_sink(n, n, n);
  return n + 1;
}

int main(int argc, char **argv)
{
  (void)argv;
  long n = argc + 1;
  loops_nest3(n);
  loops_sequence(n);
  loops_siblings(n);
  printf("%ld\n", loops_none(n));
  return 0;
}
