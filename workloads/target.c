/* target: offloaded kernels of known relative cost, launched from two host
 * functions, with map clauses of known sizes.
 *
 *   main -> run_round (rounds times)
 *     -> launch_wide:   host work (2 units), then
 *          [target teams distribute parallel for, WIDE_TRIPS iterations]
 *          map(to: input, 64 KiB) map(from: output, 32 KiB)
 *     -> launch_narrow: host work (1 unit), then
 *          [target data map(tofrom: accum, 16 KiB)]
 *            [target teams distribute parallel for, NARROW_TRIPS iterations]
 *            [target update from(accum, 16 KiB)]
 *   around the rounds: target enter data map(to: table, 4 KiB), and
 *   target exit data map(delete: table).
 *
 * WIDE_TRIPS is twice NARROW_TRIPS and every iteration does the same work
 * (MIX_ROUNDS steps), so the wide kernel costs twice the narrow one on any
 * device, and a device that prices a kernel by its trip count (the mock
 * device under MOCKRT_DETERMINISTIC=1) gives exact device times. The two
 * launching functions are two host contexts for a report's device metrics.
 *
 * Per round a device sees: transfers to the device of 64 KiB (input) and
 * 16 KiB (accum); transfers from the device of 32 KiB (output), 16 KiB
 * (the update of accum) and 16 KiB (accum at the data region's end); two
 * kernels. Once per run: 4 KiB to the device (table), and its deletion.
 * The checksum is the same whichever device (or the host) runs the kernels.
 *
 * `target ROUNDS kernel-probes` also takes a probe in every 512th iteration
 * of each kernel (8 a wide kernel, 4 a narrow one): on LLVM's host plugin
 * the kernels run on the launching thread, and their probes' paths go
 * through the construct into the kernel's parallel loop.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define NOINLINE     __attribute__((noinline))
#define INPUT_WORDS  (64 * 1024 / 8)
#define OUTPUT_WORDS (32 * 1024 / 8)
#define ACCUM_WORDS  (16 * 1024 / 8)
#define TABLE_WORDS  (4 * 1024 / 8)
#define WIDE_TRIPS   OUTPUT_WORDS
#define NARROW_TRIPS ACCUM_WORDS
#define MIX_ROUNDS   64
#define PROBE_EVERY  512

static uint64_t input[INPUT_WORDS];
static uint64_t output[OUTPUT_WORDS];
static uint64_t accum[ACCUM_WORDS];
static uint64_t table[TABLE_WORDS];

#pragma omp declare target
/* The work of one kernel iteration, the same for both kernels. */
static inline uint64_t mix(uint64_t x)
{
  for (int r = 0; r < MIX_ROUNDS; r++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
  }
  return x;
}

/* A probe in kernel code. knit_probe() keeps its look-up in a static
 * variable, which a device image cannot share with the host program (the
 * offloading library then refuses the image): a kernel looks knit's
 * sampler up at every probe instead, a few times a kernel. */
NOINLINE static void kernel_probe(void)
{
  void (*fire)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "knit_probe_fire");
  if (fire)
    fire();
  __asm__ __volatile__("" ::: "memory");
}
#pragma omp end declare target

/* The wide kernel: each iteration folds two input words into one output
 * word. */
NOINLINE static uint64_t launch_wide(uint64_t seed, int probes)
{
  uint64_t x = knit_work(seed, 2);
  for (int i = 0; i < INPUT_WORDS; i++)
    input[i] = x + (uint64_t)i;
#pragma omp target teams distribute parallel for map(to                                            \
                                                     : input [0:INPUT_WORDS])                      \
    map(from                                                                                       \
        : output [0:OUTPUT_WORDS])
  for (int i = 0; i < WIDE_TRIPS; i++) {
    if (probes && i % PROBE_EVERY == 0)
      kernel_probe();
    output[i] = mix(input[2 * i] ^ (input[2 * i + 1] << 1));
  }
  uint64_t sum = 0;
  for (int i = 0; i < OUTPUT_WORDS; i++)
    sum ^= output[i] + (uint64_t)i;
  return sum;
}

/* The narrow kernel, inside a data region that keeps accum on the device;
 * table is already there (entered by main). The update brings accum back
 * before the region ends, so its sum is read inside the region. */
NOINLINE static uint64_t launch_narrow(uint64_t seed, int probes)
{
  uint64_t x = knit_work(seed, 1);
  for (int i = 0; i < ACCUM_WORDS; i++)
    accum[i] = x ^ (uint64_t)i;
  uint64_t sum = 0;
#pragma omp target data map(tofrom : accum [0:ACCUM_WORDS])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < NARROW_TRIPS; i++) {
      if (probes && i % PROBE_EVERY == 0)
        kernel_probe();
      accum[i] = mix(accum[i] + table[i % TABLE_WORDS]);
    }
#pragma omp target update from(accum [0:ACCUM_WORDS])
    for (int i = 0; i < ACCUM_WORDS; i++)
      sum += accum[i] * (uint64_t)(i | 1);
  }
  return sum;
}

NOINLINE static uint64_t run_round(uint64_t seed, int probes)
{
  uint64_t wide = launch_wide(seed, probes);
  uint64_t narrow = launch_narrow(seed ^ wide, probes);
  return wide ^ (narrow + 1);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  int probes = argc > 2 && strcmp(argv[2], "kernel-probes") == 0;
  for (int i = 0; i < TABLE_WORDS; i++)
    table[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
#pragma omp target enter data map(to : table [0:TABLE_WORDS])
  uint64_t x = 11;
  for (int r = 0; r < rounds; r++)
    x = run_round(x, probes);
#pragma omp target exit data map(delete : table [0:TABLE_WORDS])
  printf("target: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
