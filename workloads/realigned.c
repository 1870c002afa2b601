/* realigned: work and probes below a frame that realigns the stack.
 *
 *   main -> realigned(n) -> realigned_leaf       3 units, one probe each
 *   main -> realigned(n) -> [parallel, 2 threads] -> realigned_leaf
 *                                                 (with the argument omp)
 *
 * realigned has a variable-length array and a 32-byte aligned local. gcc
 * builds such a frame on x86-64 through a DRAP register: the CFA goes into
 * r10, rsp is aligned down, the frame is built below the aligned point
 * with r10 saved in it, and nothing in it is any fixed distance from the
 * CFA. Unwinding through it needs the saved register (a CFA loaded from
 * the frame); a walk that cannot get past it ends partial. Elsewhere it is
 * an ordinary frame, and the same path must come out. With omp the region
 * is opened from inside that frame: the capture of where it begins walks
 * through it too, and is remembered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

/* Keeps the arrays' contents alive across the calls. */
volatile uint64_t realigned_sink;

NOINLINE uint64_t realigned_leaf(uint64_t *cells, int n)
{
  uint64_t x = 0;
  for (int i = 0; i < n; i++)
    x += cells[i];
  for (int u = 0; u < 3; u++) {
    x = knit_work(x, 1);
    knit_probe();
  }
  return x;
}

NOINLINE uint64_t realigned(int n, int omp)
{
  _Alignas(32) uint64_t lanes[4] = {1, 2, 3, 4};
  uint64_t cells[n];
  for (int i = 0; i < n; i++)
    cells[i] = lanes[i & 3] + (uint64_t)i;
  uint64_t x = 0;
  if (omp) {
#pragma omp parallel num_threads(2) reduction(+ : x)
    x += realigned_leaf(cells, n);
  } else {
    x = realigned_leaf(cells, n);
  }
  realigned_sink = lanes[n & 3];
  return x + cells[n - 1];
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  int omp = argc > 2 && strcmp(argv[2], "omp") == 0;
  uint64_t sum = 0;
  for (int r = 0; r < rounds; r++)
    sum += realigned(8, omp) + (uint64_t)r;
  printf("realigned: %d rounds, checksum %llx\n", rounds, (unsigned long long)sum);
  return 0;
}
