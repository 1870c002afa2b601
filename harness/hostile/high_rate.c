/* high_rate: a short computation (about 0.15 s), for sampling at the
 * highest rate knit accepts. */
#include <stdio.h>
#include <time.h>

#include "hostile.h"

__attribute__((noinline)) static unsigned compute(double how_long)
{
  return hostile_spin(how_long);
}

int main(void)
{
  volatile unsigned sink = compute(0.15);
  (void)sink;
  printf("computed\n");
  return 0;
}
