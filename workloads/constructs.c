/* constructs: OpenMP's worksharing and synchronization constructs, each in
 * a parallel region of its own, opened from a function named for it, each
 * calling work functions of its own.
 *
 *   main -> run_constructs -> do_sections  -> [parallel sections]
 *                                 section_a (2 units), section_b (1 unit)
 *                          -> do_single    -> [parallel] single -> single_work (2 units)
 *                          -> do_critical  -> [parallel for, 8 iterations]
 *                                 critical(knit_named) -> critical_work (1 unit each)
 *                          -> do_reduction -> [parallel for reduction(^), 8 iterations]
 *                                 reduce_work (1 unit each)
 *                          -> do_master    -> [parallel] master -> master_work (2 units)
 *
 * Every construct runs its work a fixed number of times, whatever the
 * number of threads, so PROBE counts are exact.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 8

static uint64_t sec_a, sec_b, single_out, critical_acc, master_out;

NOINLINE static uint64_t section_a(uint64_t x)
{
  return knit_work(x, 2) + 1;
}
NOINLINE static uint64_t section_b(uint64_t x)
{
  return knit_work(x, 1) + 2;
}
NOINLINE static uint64_t single_work(uint64_t x)
{
  return knit_work(x, 2) + 3;
}
NOINLINE static uint64_t critical_work(uint64_t x)
{
  return knit_work(x, 1) + 4;
}
NOINLINE static uint64_t reduce_work(uint64_t x)
{
  return knit_work(x, 1) + 5;
}
NOINLINE static uint64_t master_work(uint64_t x)
{
  return knit_work(x, 2) + 6;
}

NOINLINE static void do_sections(uint64_t seed)
{
#pragma omp parallel sections
  {
#pragma omp section
    sec_a = section_a(seed);
#pragma omp section
    sec_b = section_b(seed + 1);
  }
}

NOINLINE static void do_single(uint64_t seed)
{
#pragma omp parallel
  {
#pragma omp single
    single_out = single_work(seed);
  }
}

/* The critical section's work is serialized; the order differs from run to
 * run, so the combination is one that does not depend on it. */
NOINLINE static void do_critical(uint64_t seed)
{
  critical_acc = 0;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < ITERATIONS; i++) {
#pragma omp critical(knit_named)
    critical_acc ^= critical_work(seed + (uint64_t)i);
  }
}

NOINLINE static uint64_t do_reduction(uint64_t seed)
{
  uint64_t acc = 0;
#pragma omp parallel for schedule(static) reduction(^ : acc)
  for (int i = 0; i < ITERATIONS; i++)
    acc ^= reduce_work(seed + (uint64_t)i);
  return acc;
}

NOINLINE static void do_master(uint64_t seed)
{
#pragma omp parallel
  {
#pragma omp master
    master_out = master_work(seed);
  }
}

NOINLINE static uint64_t run_constructs(uint64_t seed)
{
  do_sections(seed);
  do_single(sec_a ^ sec_b);
  do_critical(single_out);
  uint64_t r = do_reduction(critical_acc);
  do_master(r);
  return master_out + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 13;
  for (int r = 0; r < rounds; r++)
    x = run_constructs(x);
  printf("constructs: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
