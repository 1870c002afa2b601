/* blame: waiting that one piece of code causes and other threads suffer.
 *
 *   blame locks ROUNDS    the master holds a lock through a long operation,
 *                         the other threads contend for it in a short loop:
 *                         main -> run_locks -> [parallel]
 *                           thread 0: hold_long (lock; long_operation; unlock)
 *                           others:   contend_short (lock; short_operation;
 *                                     unlock; again until the master is done)
 *                         Their waits are the master's doing: OMP_MUTEX
 *                         blame belongs on hold_long's release.
 *
 *   blame uneven ROUNDS   a parallel loop with one iteration per thread; the
 *                         first does excess_work after the even_work all do:
 *                         main -> run_uneven -> [parallel for] ->
 *                           even_work, and on thread 0 excess_work
 *                         The others wait at the loop's barrier meanwhile:
 *                         OMP_IDLE belongs on excess_work.
 *
 * Work is measured in time (a deadline on the monotonic clock), not in
 * units, so that the shares are the same natively and under QEMU.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

#define LONG_MS     60  /* the master's operation under the lock */
#define GAP_MS      2   /* the master's work outside it, between rounds */
#define PAUSE_MS    2   /* a contender's work outside the lock */
#define SHORT_STEPS 64  /* a contender's work inside it: a few microseconds */
#define EVEN_MS     10  /* every thread's share of the uneven loop */
#define EXCESS_MS   200 /* the first thread's extra share: long next to a fork under QEMU */

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Works for ms milliseconds, in small units (inlined: the time is the
 * caller's). */
static inline __attribute__((always_inline)) uint64_t work_for(uint64_t x, double ms)
{
  double end = now_ms() + ms;
  do {
    x = knit_work_unit(x) + 1;
  } while (now_ms() < end);
  return x;
}

static omp_lock_t lock;
static atomic_int master_done;

NOINLINE static uint64_t long_operation(uint64_t x)
{
  return work_for(x, LONG_MS);
}

NOINLINE static uint64_t hold_long(uint64_t x)
{
  omp_set_lock(&lock);
  x = long_operation(x);
  omp_unset_lock(&lock);
  return x;
}

/* A fixed, tiny amount of work: short under QEMU too, so that contenders
 * seldom wait for each other and the master's holding is what they wait
 * for. */
NOINLINE static uint64_t short_operation(uint64_t x)
{
  for (int i = 0; i < SHORT_STEPS; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    __asm__ __volatile__("" : "+r"(x));
  }
  return x + 3;
}

NOINLINE static uint64_t contender_pause(uint64_t x)
{
  return work_for(x, PAUSE_MS);
}

NOINLINE static uint64_t contend_short(uint64_t x)
{
  while (!atomic_load(&master_done)) {
    omp_set_lock(&lock);
    x = short_operation(x);
    omp_unset_lock(&lock);
    x = contender_pause(x);
  }
  return x;
}

NOINLINE static uint64_t master_gap(uint64_t x)
{
  return work_for(x, GAP_MS);
}

NOINLINE static uint64_t run_locks(int rounds)
{
  uint64_t sum = 0;
  atomic_store(&master_done, 0);
#pragma omp parallel reduction(^ : sum)
  {
    uint64_t x = (uint64_t)omp_get_thread_num() + 1;
    if (omp_get_thread_num() == 0) {
      for (int r = 0; r < rounds; r++)
        x = master_gap(hold_long(x));
      atomic_store(&master_done, 1);
    } else {
      x = contend_short(x);
    }
    sum ^= x;
  }
  return sum;
}

NOINLINE static uint64_t even_work(uint64_t x)
{
  return work_for(x, EVEN_MS);
}

NOINLINE static uint64_t excess_work(uint64_t x)
{
  return work_for(x, EXCESS_MS);
}

NOINLINE static uint64_t run_uneven(int rounds)
{
  uint64_t sum = 0;
  for (int r = 0; r < rounds; r++) {
    int n = omp_get_max_threads();
#pragma omp parallel for schedule(static, 1) reduction(^ : sum)
    for (int i = 0; i < n; i++) {
      uint64_t x = even_work((uint64_t)i + 1);
      if (i == 0)
        x = excess_work(x);
      sum ^= x;
    }
  }
  return sum;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "locks";
  int rounds = argc > 2 ? atoi(argv[2]) : 10;
  if (rounds <= 0) {
    fprintf(stderr, "usage: blame locks|uneven [ROUNDS]\n");
    return 2;
  }
  if (strcmp(mode, "locks") != 0 && strcmp(mode, "uneven") != 0) {
    fprintf(stderr, "blame: unknown mode %s (locks or uneven)\n", mode);
    return 2;
  }
  /* The first output sets stdio up, which under QEMU takes a good part of
   * a second: before the regions, no idle thread waits meanwhile; after
   * them, the whole pool would, and its idleness would be charged there. */
  printf("blame %s: %d rounds\n", mode, rounds);
  fflush(stdout);
  omp_init_lock(&lock);
  uint64_t sum = strcmp(mode, "locks") == 0 ? run_locks(rounds) : run_uneven(rounds);
  omp_destroy_lock(&lock);
  printf("checksum %llu\n", (unsigned long long)(sum & 0xff));
  return 0;
}
