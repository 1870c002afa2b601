/* clock_calls: a timing loop that spends most of its time in
 * clock_gettime, which the kernel's vdso serves without a system call.
 * No file holds the vdso, so its function bounds come from its image in
 * memory; without them a sample inside it had no way up to main. */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static long timing_loop(double seconds)
{
  struct timespec start, now;
  long calls = 0;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
    calls++;
  } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 <
           seconds);
  return calls;
}

int main(void)
{
  printf("timed: %s\n", timing_loop(0.3) > 0 ? "yes" : "no");
  return 0;
}
