/* shared_args: parallel loops whose outlined bodies take 1 to 16 shared
 * variables (clang passes each by pointer, after the two thread ids: from
 * the 5th on x86-64 and the 7th on aarch64, ppc64le and ppc64 they are
 * passed on the stack). The runtimes' trampolines must pass any number,
 * and knit must elide and unwind their frames whatever the number.
 *
 *   main -> loop of rounds -> region_K (K = 1..16) -> [parallel for, 4
 *        iterations] -> sink (1 probe each): 4 probes per region a round.
 *
 * Generated-looking but written out: each region reads its K variables,
 * which the compiler cannot fold into one (their values come from the
 * command line through seed). */
#include <stdio.h>
#include <stdlib.h>

#include <stdint.h>

#include <knit/probe.h>

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 4

NOINLINE static uint64_t sink(uint64_t x)
{
  knit_probe();
  __asm__ __volatile__("" : "+r"(x));
  return x * 3 + 1;
}

NOINLINE static uint64_t region_1(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_2(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_3(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_4(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_5(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_6(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_7(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_8(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_9(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_10(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_11(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_12(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11, v12 = seed * 25 + 12;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_13(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11, v12 = seed * 25 + 12,
           v13 = seed * 27 + 13;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_14(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11, v12 = seed * 25 + 12,
           v13 = seed * 27 + 13, v14 = seed * 29 + 14;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 +
                  (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_15(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11, v12 = seed * 25 + 12,
           v13 = seed * 27 + 13, v14 = seed * 29 + 14, v15 = seed * 31 + 15;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 +
                  (uint64_t)i);
  return total;
}

NOINLINE static uint64_t region_16(uint64_t seed)
{
  uint64_t v1 = seed * 3 + 1, v2 = seed * 5 + 2, v3 = seed * 7 + 3, v4 = seed * 9 + 4,
           v5 = seed * 11 + 5, v6 = seed * 13 + 6, v7 = seed * 15 + 7, v8 = seed * 17 + 8,
           v9 = seed * 19 + 9, v10 = seed * 21 + 10, v11 = seed * 23 + 11, v12 = seed * 25 + 12,
           v13 = seed * 27 + 13, v14 = seed * 29 + 14, v15 = seed * 31 + 15, v16 = seed * 33 + 16;
  uint64_t total = 0;
#pragma omp parallel for schedule(static) reduction(^ : total)
  for (int i = 0; i < ITERATIONS; i++)
    total ^= sink(v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 +
                  v16 + (uint64_t)i);
  return total;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = argc > 2 ? strtoull(argv[2], NULL, 10) : 7;
  for (int r = 0; r < rounds; r++) {
    x ^= region_1(x);
    x ^= region_2(x);
    x ^= region_3(x);
    x ^= region_4(x);
    x ^= region_5(x);
    x ^= region_6(x);
    x ^= region_7(x);
    x ^= region_8(x);
    x ^= region_9(x);
    x ^= region_10(x);
    x ^= region_11(x);
    x ^= region_12(x);
    x ^= region_13(x);
    x ^= region_14(x);
    x ^= region_15(x);
    x ^= region_16(x);
  }
  printf("shared_args: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
