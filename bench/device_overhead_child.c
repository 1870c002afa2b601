/* The child bench_device_overhead times: KERNELS tiny target regions
 * (default 100,000), one after the other from one host thread, each
 * mapping one 8-byte word tofrom and stepping it once on the device. Per
 * kernel a device sees five operations: an allocation, a copy in, the
 * kernel, a copy out and a release.
 *
 * The first kernel starts the device (its thread, the image's load) and is
 * left out of the timing; it is counted among the kernels the device ran,
 * which the driver compares with what knit attributed.
 *
 * Prints its ns per kernel (the timed ones) on its first line, then
 * "kernels N" (every kernel launched) and "checksum N", the same whether
 * the device or the host ran them.
 *
 *   bench_device_overhead_child [KERNELS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* One kernel: a step of a linear congruential generator, on the device.
 * Not inlined, so that every kernel is launched from the same host
 * context. */
NOINLINE static uint64_t launch(uint64_t x)
{
  uint64_t word = x;
#pragma omp target map(tofrom : word)
  {
    word = word * 6364136223846793005ull + 1442695040888963407ull;
    word ^= word >> 29;
  }
  return word;
}

int main(int argc, char **argv)
{
  long kernels = argc > 1 ? atol(argv[1]) : 100000;
  if (kernels < 1) {
    fprintf(stderr, "usage: bench_device_overhead_child [KERNELS (at least 1)]\n");
    return 2;
  }
  uint64_t x = launch(7);
  double start = now_ns();
  for (long k = 0; k < kernels; k++)
    x = launch(x);
  double ns = now_ns() - start;
  printf("%.1f ns per kernel\nkernels %ld\nchecksum %016llx\n", ns / (double)kernels, kernels + 1,
         (unsigned long long)x);
  return 0;
}
