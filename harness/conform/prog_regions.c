/*
 * The program the OMPT checker watches: regions with a probe from every
 * outlined body (two levels deep in a nested region), a dynamic loop (work
 * and dispatch events), an ordered loop, sections, a single, a master, a
 * reduction, a flush, a cancelled loop (with OMP_CANCELLATION=true),
 * explicit and implicit barriers, a contended lock, a nestable lock, a
 * named critical region, an atomic the compiler cannot do without the
 * runtime (gcc's long double), a control_tool call and a teams
 * construct.  One thread holds
 * the critical region, the lock and the first ordered turn, and stays out
 * of a barrier, while the checker samples the others waiting there; after the regions it samples
 * the idle pool.  Built by gcc (GOMP_* ABI) and by clang (__kmpc_* ABI);
 * the checker decides pass or fail, and this program only checks that
 * OpenMP computed the right results.
 */
#include "checker.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define REGIONS 3
#define ITERS   64

#if defined(__clang__)
#define CONTROL_TOOL_FLUSH() omp_control_tool(omp_control_tool_flush, 0, NULL)
#else
/* libgomp 12 has no omp_control_tool (the mock has): call it where it exists. */
extern int omp_control_tool(int command, int modifier, void *arg) __attribute__((weak));
#define CONTROL_TOOL_FLUSH() (omp_control_tool ? omp_control_tool(3 /* flush */, 0, NULL) : 0)
#endif

/*
 * The lock of the named critical region below is the variable the
 * compiler emits for its name, which C cannot spell: an assembler name
 * reaches it.  Its address is the wait id the runtime should report.
 */
#if defined(__clang__)
extern char knit_critical_name[] __asm__(".gomp_critical_user_knit_conform.var");
#else
extern char knit_critical_name[] __asm__(".gomp_critical_user_knit_conform");
#endif

/*
 * gcc hands an atomic update of a long double to the runtime
 * (GOMP_atomic_start) where the ISA has no compare-and-swap that wide:
 * x86_64, aarch64 and big-endian ppc64 (whose gcc targets CPUs before
 * lqarx).  ppc64le has one (lqarx), which QEMU runs all but serially, and
 * clang calls libatomic instead: a long does there, and the atomic is the
 * compiler's alone.
 */
#if !defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__) ||                         \
                            (defined(__powerpc64__) && defined(__BIG_ENDIAN__)))
typedef long double knit_atomic_t;
#else
typedef long knit_atomic_t;
#endif

/* The events this program causes on any runtime that offers them; a
 * single's or a loop's work events come on every runtime that sees the
 * construct, and gcc calls the runtime for every construct but master,
 * flush and reductions (checker_callbacks.c leaves those out there). */
static const unsigned long long exercised =
    KNIT_CHECKER_REGION_EVENTS | KNIT_CHECKER_EVENT(ompt_callback_sync_region) |
    KNIT_CHECKER_EVENT(ompt_callback_sync_region_wait) |
    KNIT_CHECKER_EVENT(ompt_callback_lock_init) | KNIT_CHECKER_EVENT(ompt_callback_lock_destroy) |
    KNIT_CHECKER_EVENT(ompt_callback_nest_lock) | KNIT_CHECKER_EVENT(ompt_callback_work) |
    KNIT_CHECKER_EVENT(ompt_callback_control_tool) | KNIT_CHECKER_EVENT(ompt_callback_cancel);

int main(void)
{
  omp_lock_t lock;
  omp_nest_lock_t nest;
  long sum = 0, ord_next = 0, ord_bad = 0, reduced = 0;
  int sections = 0, singles = 0, masters = 0, inner = 0, nested_locks = 0;
  int critical_turns = 0, lock_turns = 0;
  knit_atomic_t atomic_sum = 0;

  knit_ompt_checker_program(KNIT_CHECKER_ABI, exercised);

  /* Registered before omp_init_lock, whose lock_init event names it. */
  memset(&lock, 0, sizeof lock);
  knit_ompt_checker_lock(&lock);
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel
    {
      /* Its address is on the body's own frame, which the exit frame must be above. */
      volatile int local = r;
      knit_ompt_checker_probe((const void *)&local, __builtin_return_address(0),
                              omp_get_thread_num(), omp_get_num_threads());
      /* The first thread in holds the critical region while the others queue. */
#pragma omp critical(knit_conform)
      {
        if (critical_turns++ % omp_get_num_threads() == 0)
          knit_ompt_checker_await(KNIT_CHECKER_WAIT_CRITICAL, knit_critical_name);
      }
#pragma omp barrier
      /* And the first to take the lock holds it while the others block on it. */
      omp_set_lock(&lock);
      if (lock_turns++ % omp_get_num_threads() == 0)
        knit_ompt_checker_await(KNIT_CHECKER_WAIT_LOCK, &lock);
      omp_unset_lock(&lock);
      /* Whoever runs iteration 0 keeps the loop's implicit barrier from opening. */
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < omp_get_num_threads(); i++)
        if (i == 0)
          knit_ompt_checker_await(KNIT_CHECKER_WAIT_BARRIER_IMPLICIT, NULL);
#pragma omp atomic
      atomic_sum += 1;
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < ITERS; i++) {
        omp_set_lock(&lock);
        sum += i + local - r;
        omp_unset_lock(&lock);
      }
#pragma omp for ordered schedule(dynamic, 2)
      for (int i = 0; i < ITERS; i++) {
#pragma omp ordered
        {
          /* The first turn's holder: the others wait for theirs. */
          if (i == 0)
            knit_ompt_checker_await(KNIT_CHECKER_WAIT_ORDERED, NULL);
          if (ord_next != (long)r * ITERS + i)
            ord_bad++;
          ord_next++;
        }
      }
#pragma omp sections
      {
#pragma omp section
        __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
#pragma omp section
        __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
      }
#pragma omp single
      singles++;
#pragma omp master
      {
        masters++;
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        nested_locks++;
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
        /* From inside a region: libomp answers notool before its first one. */
        CONTROL_TOOL_FLUSH();
      }
#pragma omp flush
#pragma omp for reduction(+ : reduced)
      for (int i = 0; i < ITERS; i++)
        reduced += i;
      if (omp_get_thread_num() == 0)
        knit_ompt_checker_await(KNIT_CHECKER_WAIT_BARRIER_EXPLICIT, NULL);
#pragma omp barrier
      knit_ompt_checker_probe((const void *)&local, __builtin_return_address(0),
                              omp_get_thread_num(), omp_get_num_threads());
    }
    /* Between regions the pool's threads wait for work. */
    knit_ompt_checker_await_idle();
  }
  /* Cancel constructs (active with OMP_CANCELLATION=true). */
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < ITERS; i++) {
#pragma omp cancel for if (i == 3)
    }
  }
  /* A nested region with two active levels. */
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      volatile int local = 0;
      knit_ompt_checker_probe((const void *)&local, __builtin_return_address(0),
                              omp_get_thread_num(), omp_get_num_threads());
      __atomic_add_fetch(&inner, 1, __ATOMIC_RELAXED);
    }
  }
  /* Host teams (__kmpc_fork_teams, GOMP_teams_reg): each team's body asks
   * the team queries, which the checker compares with the league's events. */
  int teams_run = 0;
#pragma omp teams num_teams(2) thread_limit(1)
  {
    knit_ompt_checker_teams_probe(omp_get_team_num(), omp_get_num_teams());
    __atomic_add_fetch(&teams_run, 1, __ATOMIC_RELAXED);
  }
  if (teams_run < 1 || teams_run > 2) {
    fprintf(stderr, "prog_regions: %d teams ran\n", teams_run);
    return 1;
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  if (reduced != (long)REGIONS * ITERS * (ITERS - 1) / 2 || nested_locks != REGIONS) {
    fprintf(stderr, "prog_regions: wrong results: reduction %ld nested locks %d\n", reduced,
            nested_locks);
    return 1;
  }
  if (sum != (long)REGIONS * ITERS * (ITERS - 1) / 2 || ord_bad || ord_next != REGIONS * ITERS ||
      sections != 2 * REGIONS || singles != REGIONS || masters != REGIONS || inner != 4 ||
      critical_turns != lock_turns || atomic_sum != (knit_atomic_t)critical_turns) {
    fprintf(stderr,
            "prog_regions: wrong results: sum %ld ordered %ld/%ld sections %d "
            "singles %d masters %d inner %d critical %d lock %d atomic %Lg\n",
            sum, ord_next, ord_bad, sections, singles, masters, inner, critical_turns, lock_turns,
            (long double)atomic_sum);
    return 1;
  }
  return 0;
}
