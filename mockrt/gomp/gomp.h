/*
 * Shared declarations of the GNU personality (gcc's GOMP_* ABI).
 */
#ifndef MOCKRT_GOMP_GOMP_H
#define MOCKRT_GOMP_GOMP_H

#include "../core/fault.h"
#include "../core/mockrt.h"

/*
 * What a tool sees of a region, around the core's fork and join: the
 * encountering task's enter frame and the master's exit frame (parallel.c).
 * Out of line, so a run without a tool pays one test on each side of the
 * body and nothing else.
 */
void mockrt_gomp_fork_observed(mockrt_team_t *team, mockrt_task_t *task, void (*fn)(void *),
                               void *data, unsigned nthreads, void *cfa, const void *ra,
                               mockrt_team_init_fn init, void *arg);
void mockrt_gomp_join_observed(mockrt_team_t *team, mockrt_task_t *task);

/*
 * The body of every parallel entry point.  It is always inlined so that the
 * entry point itself calls the outlined function, which gives the master
 * the libgomp layout: user frame -> GOMP_parallel -> fn.  cfa and ra are
 * evaluated by the entry point and passed in for the same reason.
 */
static inline __attribute__((always_inline)) void
mockrt_gomp_run_region(void (*fn)(void *), void *data, unsigned nthreads, void *cfa, const void *ra,
                       mockrt_team_init_fn init, void *arg)
{
  mockrt_team_t team;
  mockrt_task_t task;

  /* mockrt_self() attaches the thread on its first region, which finds any tool first. */
  if (!mockrt_plain_entry() && ((void)mockrt_self(), MOCKRT_OMPT_ON))
    mockrt_gomp_fork_observed(&team, &task, fn, data, nthreads, cfa, ra, init, arg);
  else
    mockrt_fork_ex_plain(&team, &task, fn, data, nthreads, ra, init, arg);
  fn(data);
  if (MOCKRT_OMPT_ON)
    mockrt_gomp_join_observed(&team, &task);
  else
    mockrt_join_plain(&team, &task);
}

/*
 * gcc 9+'s generic loop starts (loop.c, doacross.c): the mock's schedule
 * for the schedule value gcc passes (chunk set for schedule(runtime)), and
 * the refusal of what the mock does not support (task reductions on a
 * loop, the shared memory of lastprivate(conditional:) and scan), which
 * says so rather than compute a wrong result.
 */
int mockrt_gomp_sched(long sched, long *chunk);
void mockrt_gomp_loop_extras(const char *entry, const void *reductions, void **mem);

#endif
