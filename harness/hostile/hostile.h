/* What the hostile programs share: clocks, and work that lasts a given
 * CPU time (so that the shares are the same natively and under QEMU). Each
 * program wraps hostile_spin in noinline functions of its own, whose names
 * its case looks for in the report. */
#ifndef KNIT_HOSTILE_H
#define KNIT_HOSTILE_H

#include <time.h>

/* The monotonic clock, in seconds. */
static inline double hostile_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The calling thread's CPU time, in seconds. */
static inline double hostile_cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Computes for how_long seconds of the thread's CPU time; the result keeps
 * the work from being optimized away. Inlined: the time is the caller's.
 * CPU time, not the wall clock's: on a machine busy with other work the
 * thread gets less of a CPU, and a wall-clock spin would give the cases
 * fewer samples than they count on. */
static inline __attribute__((always_inline)) unsigned hostile_spin(double how_long)
{
  unsigned x = 1;
  double end = hostile_cpu_seconds() + how_long;
  while (hostile_cpu_seconds() < end)
    for (int i = 0; i < 1000; i++)
      x = x * 1103515245u + 12345u;
  return x;
}

#endif /* KNIT_HOSTILE_H */
