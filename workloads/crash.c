/* crash: works a little, with probes, then dies of a segmentation fault.
 * knit must still write what it measured, and the program must die the way
 * it would have without knit (same signal). */
#include <stdio.h>

#include "work.h"

__attribute__((noinline)) static uint64_t before_crash(uint64_t x)
{
  return knit_work(x, 5);
}

__attribute__((noinline)) static void crash(volatile int *p)
{
  *p = 1;
}

int main(void)
{
  uint64_t x = before_crash(1);
  printf("crash: about to fault (%llx)\n", (unsigned long long)x);
  fflush(stdout);
  crash((volatile int *)(uintptr_t)(x & 0));
  return 0;
}
