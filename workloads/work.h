/* The unit of work every workload is built from: a fixed amount of integer
 * arithmetic (integer, because QEMU emulates floating point slowly), always
 * inlined, so the time is spent in the named function that asks for it. */
#ifndef KNIT_WORKLOADS_WORK_H
#define KNIT_WORKLOADS_WORK_H

#include <stdint.h>
#include <stdlib.h>

#include <knit/probe.h>

/* Iterations of one unit: about 25 us on a current x86-64 core. Units are
 * kept short so that a timer's samples cannot lock onto the rhythm of the
 * work: Linux checks CPU-time timers only at scheduler ticks (every 4 ms at
 * 250 Hz), and a workload whose functions alternate on that time scale is
 * sampled at the same phase again and again. */
#ifndef KNIT_WORK_UNIT
#define KNIT_WORK_UNIT 12000u
#endif

/* A unit's length varies: half of KNIT_WORK_UNIT iterations that give
 * the unit's result, then from none to KNIT_WORK_UNIT more whose values
 * are thrown away, a number drawn from the thread's own generator once per
 * knit_work call (every unit of the call takes it): a unit on average, the
 * result the same whatever the draw. CPU-time samples are taken only at
 * scheduler ticks, where the sampled thread happens to be then. With every
 * call the same length, a thread that starts its share of a region on a
 * tick (it was woken or scheduled there) reaches the same function at the
 * same offset from that tick in every region, and samples pile up on
 * whichever function that is; and a call that always fits between two
 * ticks may never be sampled at all. Drawn lengths move a function's place
 * in time from region to region. The draw is per call, not per unit: a
 * call of many units (a work scale of 16) would otherwise last nearly the
 * same time every time. It is the thread's, not taken from the call's
 * input, since inputs repeat (a recursion's leaves) and would then keep
 * their lengths. Probes still count units, one per unit, so PROBE counts
 * stay exact and are proportional to time on average. */
static __thread uint64_t knit_work_draws;

static inline __attribute__((always_inline)) unsigned knit_work_extra(void)
{
  uint64_t s = knit_work_draws;
  if (s == 0) /* each thread from its own place, and each run */
    s = (uint64_t)(uintptr_t)&knit_work_draws;
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  knit_work_draws = s;
  return (unsigned)((s >> 33) % KNIT_WORK_UNIT);
}

static inline __attribute__((always_inline)) uint64_t knit_work_step(uint64_t x)
{
  x = x * 6364136223846793005ull + 1442695040888963407ull;
  x ^= x >> 29;
  /* Keeps the compiler from folding the loop away. */
  __asm__ __volatile__("" : "+r"(x));
  return x;
}

static inline __attribute__((always_inline)) uint64_t knit_work_unit_drawn(uint64_t x,
                                                                           unsigned extra)
{
  for (unsigned i = 0; i < KNIT_WORK_UNIT / 2; i++)
    x = knit_work_step(x);
  uint64_t spent = x;
  for (unsigned i = extra; i > 0; i--)
    spent = knit_work_step(spent);
  return x;
}

static inline __attribute__((always_inline)) uint64_t knit_work_unit(uint64_t x)
{
  return knit_work_unit_drawn(x, knit_work_extra());
}

/* The work scale: KNIT_WORK_SCALE=N (1 to 1000; anything else is 1) makes
 * every knit_work call work N times its units, each with its probe, and so
 * every path's time grows N-fold while the runtime's fork, join, barrier
 * and task costs and a run's one-time costs stay as they are. Timer runs
 * use it (harness/matrix, under QEMU above all) so that those costs become
 * small shares. PROBE runs and their goldens use scale 1: a scale
 * multiplies every probe count by N. Read once per translation unit, by a
 * constructor, before main (or as a module loads), so that no path of the
 * program's work shows the reading. */
static unsigned knit_work_scale_value = 1;

__attribute__((constructor, unused)) static void knit_work_scale_init(void)
{
  const char *e = getenv("KNIT_WORK_SCALE");
  if (e == NULL)
    return;
  char *end;
  long v = strtol(e, &end, 10);
  if (end != e && *end == '\0' && v >= 1 && v <= 1000)
    knit_work_scale_value = (unsigned)v;
}

/* Works `units` units (times the work scale) with one probe after each:
 * probe counts are then proportional to time, so a PROBE run and a timer
 * run agree on shares. */
static inline __attribute__((always_inline)) uint64_t knit_work(uint64_t x, unsigned units)
{
  unsigned n = units * knit_work_scale_value;
  unsigned extra = knit_work_extra();
  for (unsigned u = 0; u < n; u++) {
    x = knit_work_unit_drawn(x, extra);
    knit_probe();
  }
  return x;
}

#endif /* KNIT_WORKLOADS_WORK_H */
