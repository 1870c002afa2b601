/* The program bench_region_overhead times: tiny parallel regions, built by
 * gcc -fopenmp (the GOMP ABI) and run on whichever libgomp.so.1
 * LD_LIBRARY_PATH names, with or without knit preloaded.
 *
 *   bench_region_overhead_child flat|deep COUNT
 *
 * flat: COUNT regions opened from a loop a few calls below main. deep: the
 * same loop DEEP calls further down, so that a tool that unwinds the
 * encountering thread at every region walks DEEP more frames each time.
 * Prints the nanoseconds per region, after a warm-up, and a checksum line
 * that the driver compares across runs (a tool must not change the result).
 *
 * BENCH_LAYOUT=N (the driver's round) moves the heap's next blocks and the
 * stack by amounts N gives. Where the program's blocks and stack lie, and
 * so its runtime's, decides which hot words share a cache line or alias in
 * the caches: libgomp's tiny regions ran 25% faster in one layout than in
 * another, with nothing else changed. A setup measured in one layout only
 * carries that layout's luck into its ratio; over the rounds' layouts,
 * the same for every setup of a round, each setup is measured across many.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "tiny_regions.h"

#define DEEP 20

/* depth more frames above the loop; each adds after its call, so none is a
 * tail call and every frame stays on the stack. */
__attribute__((noinline)) static long descend(int depth, long n)
{
  if (depth == 0)
    return regions(n);
  long sum = descend(depth - 1, n);
  __asm__ __volatile__("" : "+r"(sum));
  return sum + depth;
}

int main(int argc, char **argv)
{
  if (argc != 3 || (strcmp(argv[1], "flat") != 0 && strcmp(argv[1], "deep") != 0) ||
      atol(argv[2]) < 1) {
    fprintf(stderr, "usage: bench_region_overhead_child flat|deep COUNT\n");
    return 2;
  }
  long n = atol(argv[2]);
  int depth = strcmp(argv[1], "deep") == 0 ? DEEP : 0;
  if (BENCH_APPLY_LAYOUT() != 0)
    return 1;
  descend(depth, n / 10 + 1); /* warm: threads started, pages touched */
  double t0 = now_ns();
  long sum = descend(depth, n);
  double ns = (now_ns() - t0) / (double)n;
  printf("%.3f\nchecksum %ld\n", ns, sum);
  return 0;
}
