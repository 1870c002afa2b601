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

/* One loop around a switch dense enough for a jump table on every ISA:
 * the cases are entered through an indirect jump, and are in the loop.
 * Each case's line carries a "case" marker the test finds. */
__attribute__((noinline)) void loops_switch(long n)
{
  for (long i = 0; i < n; i++) {
    switch ((i * 7) % 9) {
    case 0: loops_sink(i, 1, 0); break;   /* case */
    case 1: loops_sink(i, 2, 1); break;   /* case */
    case 2: loops_sink(i, 3, 4); break;   /* case */
    case 3: loops_sink(i, 5, 9); break;   /* case */
    case 4: loops_sink(i, 8, 16); break;  /* case */
    case 5: loops_sink(i, 13, 25); break; /* case */
    case 6: loops_sink(i, 21, 36); break; /* case */
    default: loops_sink(n, i, 0); break;
    }
  }
}

int main(int argc, char **argv)
{
  (void)argv;
  long n = argc + 1;
  loops_nest3(n);
  loops_sequence(n);
  loops_siblings(n);
  loops_switch(n);
  printf("%ld\n", loops_none(n));
  return 0;
}
