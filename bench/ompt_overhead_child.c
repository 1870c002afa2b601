/* The program bench_ompt_overhead times on each runtime build: tiny
 * parallel regions, or fine-grained tasks, built by gcc -fopenmp (the GOMP
 * ABI) and run on whichever libgomp.so.1 LD_LIBRARY_PATH names.
 *
 *   bench_ompt_overhead_child regions|tasks COUNT
 *
 * Prints the nanoseconds per region (or per task) of COUNT of them, after
 * a warm-up, and a checksum line that the driver compares across runtimes
 * (the runtime must not change the result).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiny_regions.h"

/* Fine-grained tasks: one thread creates them, the team runs them. */
__attribute__((noinline)) static long tasks(long n)
{
  long sum = 0;
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(sum)
    {
#pragma omp atomic
      sum += i & 7;
    }
  }
  return sum;
}

int main(int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "regions") != 0 && strcmp(argv[1], "tasks") != 0) ||
      atol(argv[2]) < 1) {
    fprintf(stderr, "usage: bench_ompt_overhead_child regions|tasks COUNT\n");
    return 2;
  }
  long n = atol(argv[2]);
  long (*run)(long) = strcmp(argv[1], "regions") == 0 ? regions : tasks;
  run(n / 10 + 1); /* warm: threads started, pages touched */
  double t0 = now_ns();
  long sum = run(n);
  double ns = (now_ns() - t0) / (double)n;
  printf("%.3f\nchecksum %ld\n", ns, sum);
  return 0;
}
