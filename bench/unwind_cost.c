/* Cost of one unwind from a signal context, knit against libunwind.
 *
 * A 30-frame stack is built of ordinary -O2 functions; at its bottom the
 * program signals itself again and again, and the handler unwinds the
 * interrupted stack: with knit's unwinder (from the ucontext, as the sample
 * handler does) or with libunwind's unw_backtrace (its fast path, as a
 * profiler would use it). The handler times the walk alone (signal delivery
 * costs several times more and would drown the difference), and the cost
 * per frame is that time over the frames the walk found. Both walks run in
 * the same process, on the same stack, with warm caches.
 *
 *   bench_unwind_cost [UNWINDS]     prints a table and the ratio
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "unwind/decoder.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/unwinder.h"

#define DEPTH      30
#define MAX_FRAMES 128

enum method { NONE, KNIT, LIBUNWIND };

static volatile enum method method;
static volatile int frames_found;
static volatile double walk_ns; /* summed over the signals of one round */
static knit_unwinder unwinder;

static double now_ns(void);

static void handler(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  double t0 = now_ns();
  if (method == KNIT) {
    knit_frame frames[MAX_FRAMES];
    knit_regs regs;
    knit_unwind_end end;
    knit_native_regs_from_ucontext(uc, &regs);
    frames_found = knit_unwind(&unwinder, &regs, frames, MAX_FRAMES, &end);
  } else if (method == LIBUNWIND) {
    void *pcs[MAX_FRAMES];
    frames_found = unw_backtrace(pcs, MAX_FRAMES);
  }
  walk_ns += now_ns() - t0;
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Signals this thread n times; returns the nanoseconds the handler spent
 * in the walks (for NONE: in timing nothing, the clock's own cost). */
static double signal_self(int n)
{
  pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
  walk_ns = 0;
  for (int i = 0; i < n; i++)
    syscall(SYS_tgkill, pid, tid, SIGUSR1);
  return walk_ns;
}

typedef struct result {
  double ns[3];
  int frames[3];
} result;

static int unwinds = 20000;

#define ROUNDS 11

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The methods take turns, round after round, so that whatever else the
 * machine does falls on both alike; each method's figure is the median of
 * its rounds. */
__attribute__((noinline)) static void measure(result *r)
{
  double rounds[3][ROUNDS];
  for (int m = NONE; m <= LIBUNWIND; m++) {
    method = (enum method)m;
    signal_self(200); /* warm: recipes built, libunwind's caches filled */
  }
  for (int k = 0; k < ROUNDS; k++) {
    for (int m = NONE; m <= LIBUNWIND; m++) {
      method = (enum method)m;
      rounds[m][k] = signal_self(unwinds) / unwinds;
      r->frames[m] = frames_found;
    }
  }
  for (int m = NONE; m <= LIBUNWIND; m++) {
    qsort(rounds[m], ROUNDS, sizeof rounds[m][0], by_value);
    r->ns[m] = rounds[m][ROUNDS / 2];
  }
}

/* The stack: DEPTH frames of a function that does work after its call, so
 * that no call is a tail call and each frame stays on the stack. */
__attribute__((noinline)) static int descend(int depth, result *r)
{
  if (depth == 0) {
    measure(r);
    return 1;
  }
  int v = descend(depth - 1, r);
  __asm__ __volatile__("" : "+r"(v));
  return v + depth;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    unwinds = atoi(argv[1]);
  if (unwinds < 1) {
    fprintf(stderr, "usage: bench_unwind_cost [UNWINDS]\n");
    return 2;
  }
  knit_decoder_setup();
  knit_loadmap_refresh((const void *)main);
  if (!knit_decoder_open(&unwinder.decoder, knit_isa_native())) {
    fprintf(stderr, "bench_unwind_cost: cannot open Capstone\n");
    return 1;
  }
  unwinder.scratch = malloc(sizeof *unwinder.scratch);
  /* The step cache, as every sampled thread has one. */
  unwinder.cache = calloc(KNIT_STEP_CACHE_SIZE, sizeof *unwinder.cache);
  unwinder.read = knit_read_own_memory; /* as the sample handler does */

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);

  result r;
  descend(DEPTH, &r);
  double knit_ns = r.ns[KNIT] - r.ns[NONE];
  double lu_ns = r.ns[LIBUNWIND] - r.ns[NONE];
  double knit_pf = knit_ns / r.frames[KNIT];
  double lu_pf = lu_ns / r.frames[LIBUNWIND];
  printf("unwind from a signal context, %d-frame stack, %d unwinds per method and round "
         "(median of %d interleaved rounds)\n",
         DEPTH, unwinds, ROUNDS);
  printf("  the clock's own cost:  %8.0f ns (subtracted)\n", r.ns[NONE]);
  printf("  knit       %3d frames %8.0f ns per unwind %6.1f ns per frame\n", r.frames[KNIT],
         knit_ns, knit_pf);
  printf("  libunwind  %3d frames %8.0f ns per unwind %6.1f ns per frame\n", r.frames[LIBUNWIND],
         lu_ns, lu_pf);
  printf("ratio knit/libunwind, per frame: %.2f (target: at most 1.00)\n", knit_pf / lu_pf);
  return 0;
}
