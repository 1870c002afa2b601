/* What the benchmarks' child programs time: tiny parallel regions, each
 * thread adding its number once, and the clock they are timed by. Built by
 * gcc -fopenmp (the GOMP ABI) into each child. */
#ifndef KNIT_BENCH_TINY_REGIONS_H
#define KNIT_BENCH_TINY_REGIONS_H

#include <omp.h>
#include <time.h>

static inline double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* n regions, opened from here; the sum of every thread's number + 1. */
__attribute__((noinline)) static long regions(long n)
{
  long sum = 0;
  for (long i = 0; i < n; i++) {
#pragma omp parallel reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
  }
  return sum;
}

#endif /* KNIT_BENCH_TINY_REGIONS_H */
