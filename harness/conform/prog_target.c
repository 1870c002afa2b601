/*
 * The program the OMPT checker watches for target devices: two kernels
 * (trip counts 2:1) launched from two functions, map clauses of known sizes
 * in every direction, enter and exit data, a target update and a target
 * data region around one kernel.  It tells the checker what it maps and
 * launches before the first construct, and has it stop tracing after the
 * last, so that the checker can hold the device's callbacks and trace
 * records against it (checker_target.c); from one kernel's body it has the
 * checker sample the host thread that waits for it.  Built by clang with offloading to
 * the host's own ISA; a runtime with no device runs the kernels on the host
 * and reports no device events.  This program only checks that the kernels
 * computed the right results.
 */
#include "checker.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define INPUT_WORDS  (64 * 1024 / 8)
#define OUTPUT_WORDS (32 * 1024 / 8)
#define ACCUM_WORDS  (16 * 1024 / 8)
#define TABLE_WORDS  (4 * 1024 / 8)
#define WIDE_TRIPS   OUTPUT_WORDS
#define NARROW_TRIPS ACCUM_WORDS

static uint64_t input[INPUT_WORDS];
static uint64_t output[OUTPUT_WORDS];
static uint64_t accum[ACCUM_WORDS];
static uint64_t table[TABLE_WORDS];

/* Every transfer the constructs below cause, by direction: input, accum at
 * the data region's start and table at enter data; output, accum by the
 * update and again at the data region's end. */
static const unsigned long to_device[] = {sizeof input, sizeof accum, sizeof table};
static const unsigned long from_device[] = {sizeof output, sizeof accum, sizeof accum};

static __attribute__((noinline)) void launch_wide(void)
{
#pragma omp target teams distribute parallel for map(to                                            \
                                                     : input [0:INPUT_WORDS])                      \
    map(from                                                                                       \
        : output [0:OUTPUT_WORDS])
  for (int i = 0; i < WIDE_TRIPS; i++)
    output[i] = input[2 * i] + input[2 * i + 1];
}

static __attribute__((noinline)) void launch_narrow(void)
{
#pragma omp target data map(tofrom : accum [0:ACCUM_WORDS])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < NARROW_TRIPS; i++) {
      if (i == 0)
        knit_ompt_checker_target_await();
      accum[i] += table[i % TABLE_WORDS];
    }
#pragma omp target update from(accum [0:ACCUM_WORDS])
  }
}

/* The events this program causes on any runtime that offers them. */
static const unsigned long long exercised =
    KNIT_CHECKER_EVENT(ompt_callback_device_initialize) |
    KNIT_CHECKER_EVENT(ompt_callback_device_finalize) | KNIT_CHECKER_EVENT(ompt_callback_target) |
    KNIT_CHECKER_EVENT(ompt_callback_target_data_op) |
    KNIT_CHECKER_EVENT(ompt_callback_target_submit) | KNIT_CHECKER_EVENT(ompt_callback_target_emi) |
    KNIT_CHECKER_EVENT(ompt_callback_target_data_op_emi) |
    KNIT_CHECKER_EVENT(ompt_callback_target_submit_emi);

int main(void)
{
  knit_ompt_checker_program(KNIT_CHECKER_ABI, exercised);
  knit_ompt_checker_target_expect(2, to_device, sizeof to_device / sizeof to_device[0], from_device,
                                  sizeof from_device / sizeof from_device[0]);
  for (int i = 0; i < INPUT_WORDS; i++)
    input[i] = (uint64_t)i;
  for (int i = 0; i < ACCUM_WORDS; i++)
    accum[i] = 1;
  for (int i = 0; i < TABLE_WORDS; i++)
    table[i] = (uint64_t)i;
#pragma omp target enter data map(to : table [0:TABLE_WORDS])
  launch_wide();
  launch_narrow();
#pragma omp target exit data map(delete : table [0:TABLE_WORDS])
  knit_ompt_checker_target_stop();
  for (int i = 0; i < OUTPUT_WORDS; i++) {
    if (output[i] != (uint64_t)(4 * i + 1)) {
      fprintf(stderr, "prog_target: output[%d] is %llu, not %d\n", i, (unsigned long long)output[i],
              4 * i + 1);
      return 1;
    }
  }
  for (int i = 0; i < ACCUM_WORDS; i++) {
    if (accum[i] != (uint64_t)(1 + i % TABLE_WORDS)) {
      fprintf(stderr, "prog_target: accum[%d] is %llu, not %d\n", i, (unsigned long long)accum[i],
              1 + i % TABLE_WORDS);
      return 1;
    }
  }
  return 0;
}
