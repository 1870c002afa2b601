/* The program bench_sample_cost times: a CPU-bound loop of integer work
 * run at the bottom of a recursion DEPTH calls deep, so that every sample
 * taken during the work finds that many frames of the program's own on the
 * stack. Plain C, no OpenMP, the main thread only: what is measured is the
 * sampler's cost per signal, not a runtime's.
 *
 * It prints the work's own time in ns (the recursion and the loop, read
 * around them, so without the process's start and exit) on its first line
 * and "checksum N" on its second: the checksum keeps the compiler from
 * dropping the work, and the driver checks that no sampler changed it.
 *
 *   bench_sample_cost_child DEPTH ITERATIONS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The work: a chain of multiplications, each step depending on the last,
 * so that it takes the same time every run and cannot be vectorized or
 * folded into a closed form. */
__attribute__((noinline, noclone)) static uint64_t work(long iterations)
{
  uint64_t x = 0x9e3779b97f4a7c15ull, sum = 0;
  for (long i = 0; i < iterations; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    sum += x >> 29;
  }
  return sum;
}

/* One frame of the recursion. Not inlined and not cloned, and it reads a
 * volatile local after the call, so the call is neither a tail call nor
 * turned into a loop: the stack really is depth frames deep when the work
 * runs. */
__attribute__((noinline, noclone)) static uint64_t descend(int depth, long iterations)
{
  volatile int here = depth;
  uint64_t r = depth <= 1 ? work(iterations) : descend(depth - 1, iterations);
  return r + (uint64_t)here;
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  int depth = argc > 1 ? atoi(argv[1]) : 0;
  long iterations = argc > 2 ? atol(argv[2]) : 0;
  if (argc != 3 || depth < 1 || iterations < 1) {
    fprintf(stderr, "usage: bench_sample_cost_child DEPTH ITERATIONS (both 1 or more)\n");
    return 2;
  }
  uint64_t start = now_ns();
  uint64_t sum = descend(depth, iterations);
  uint64_t elapsed = now_ns() - start;
  printf("%llu\nchecksum %llx\n", (unsigned long long)elapsed, (unsigned long long)sum);
  return 0;
}
