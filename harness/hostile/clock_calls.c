/* clock_calls: a timing loop that spends most of its time in
 * clock_gettime, which the kernel's vdso serves without a system call.
 * No file holds the vdso, so its function bounds come from its image in
 * memory; without them a sample inside it had no way up to main. */
#include <stdio.h>
#include <time.h>

/* The process's CPU time in seconds: a system call, asked once in a
 * thousand calls. The loop lasts that long in CPU time, not on the wall
 * clock: a machine busy with other work would otherwise give it less CPU,
 * and the test fewer samples, than it asks for. */
static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long timing_loop(double seconds)
{
  struct timespec now;
  long calls = 0;
  double end = cpu_seconds() + seconds;
  do {
    for (int i = 0; i < 1000; i++) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      calls++;
    }
  } while (cpu_seconds() < end);
  return calls;
}

int main(void)
{
  printf("timed: %s\n", timing_loop(0.3) > 0 ? "yes" : "no");
  return 0;
}
