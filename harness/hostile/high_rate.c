/* high_rate: a short computation (about 0.15 s), for sampling at the
 * highest rate knit accepts. */
#include <stdio.h>
#include <time.h>

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned compute(double how_long)
{
  unsigned x = 1;
  double end = seconds() + how_long;
  while (seconds() < end)
    for (int i = 0; i < 1000; i++)
      x = x * 1103515245u + 12345u;
  return x;
}

int main(void)
{
  volatile unsigned sink = compute(0.15);
  (void)sink;
  printf("computed\n");
  return 0;
}
