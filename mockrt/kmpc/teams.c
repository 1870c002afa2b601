/*
 * Host teams under the __kmpc_* ABI: what clang 14 emits for `#pragma omp
 * teams` outside a target region (OpenMP 5.0), __kmpc_push_num_teams and
 * __kmpc_fork_teams, and the team queries.
 *
 * As libomp 14 does it, and as an OMPT tool sees it there:
 * - the encountering task forks a league, a region whose threads are the
 *   initial threads of the teams (parallel_begin with ompt_parallel_league,
 *   the number of teams as requested size; each thread's implicit_task
 *   with ompt_task_initial, its team number as index);
 * - each of them opens a region of its own, on a team of one, the
 *   thread_limit as requested size and no codeptr, whose implicit task runs
 *   the outlined teams body (through the personality's trampoline, as
 *   __kmpc_fork_call's bodies are run), and ends it without a barrier;
 * - the league ends with an implicit barrier, as a parallel region does.
 * Neither region is a nesting level: omp_get_level() is 0 in the body and
 * a parallel region inside it is an active level 1, with at most
 * thread_limit threads (core/team.c).
 *
 * One difference is kept: libomp 14's team of the body has thread_limit
 * threads waiting for the next parallel region, so its omp_get_num_threads()
 * and the implicit task's size are the thread_limit; here they are 1.
 */
#include "kmpc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

/* num_teams() and thread_limit() of the next teams construct (0: none). */
static MOCKRT_TLS int mockrt_kmpc_pushed_teams, mockrt_kmpc_pushed_limit;

/* One teams construct, as every initial thread of its league reads it. */
typedef struct mockrt_kmpc_league {
  mockrt_kmpc_micro_t fn;
  int argc;
  void **argv;
  unsigned thread_limit; /* the threads a team may have */
  unsigned clause_limit; /* the thread_limit clause, 0 without one */
} mockrt_kmpc_league_t;

MOCKRT_EXPORT void __kmpc_push_num_teams(mockrt_ident_t *loc, int32_t gtid, int32_t num_teams,
                                         int32_t num_threads)
{
  (void)loc;
  (void)gtid;
  mockrt_self();
  mockrt_kmpc_pushed_teams = num_teams > 0 ? num_teams : 0;
  mockrt_kmpc_pushed_limit = num_threads > 0 ? num_threads : 0;
}

/* OpenMP 5.1's num_teams(lower:upper): the mock forms the upper bound (at
 * most the processors, as for num_teams). */
MOCKRT_EXPORT void __kmpc_push_num_teams_51(mockrt_ident_t *loc, int32_t gtid, int32_t lower,
                                            int32_t upper, int32_t num_threads)
{
  (void)lower;
  __kmpc_push_num_teams(loc, gtid, upper, num_threads);
}

/*
 * The sizes libomp 14 gives a construct on the host: without num_teams,
 * nteams-var or else one team; without thread_limit, teams-thread-limit-var
 * or else the processors shared among the teams; no more teams, nor teams times threads, than processors;
 * never more threads a team than nthreads-var (even with thread_limit) or
 * the thread limit.
 */
static void mockrt_kmpc_teams_size(const mockrt_task_t *enc, unsigned *nteams, unsigned *limit)
{
  unsigned procs = mockrt_icv.num_procs > 0 ? (unsigned)mockrt_icv.num_procs : 1;
  unsigned max_threads = mockrt_icv.thread_limit > 0 ? (unsigned)mockrt_icv.thread_limit : 1;
  unsigned n = (unsigned)mockrt_kmpc_pushed_teams;
  unsigned t = (unsigned)mockrt_kmpc_pushed_limit;

  if (n == 0)
    n = (unsigned)mockrt_teams_nteams_var();
  if (n == 0)
    n = 1;
  if (t == 0)
    t = (unsigned)mockrt_teams_thread_limit_var();

  if (n > procs)
    n = procs;
  if (t == 0)
    t = procs / n;
  if (enc->nthreads_var > 0 && t > (unsigned)enc->nthreads_var)
    t = (unsigned)enc->nthreads_var;
  if (t > max_threads)
    t = max_threads;
  if (n * t > procs)
    t = procs / n;
  *nteams = n;
  *limit = t > 0 ? t : 1;
}

static void mockrt_kmpc_teams_set_micro(mockrt_team_t *team, void *arg)
{
  team->micro = arg;
}

static void mockrt_kmpc_body_init(mockrt_team_t *team, void *arg)
{
  const mockrt_kmpc_league_t *lg = arg;
  team->cg_limit = lg->thread_limit;
  /* As libomp 14: thread-limit-var is the clause's value, else unchanged. */
  if (lg->clause_limit)
    team->cg_thread_limit_var = lg->clause_limit;
}

/*
 * An initial thread of the league: its team's own region, whose implicit
 * task runs the outlined body.  Called by the league's primary thread and,
 * as the league's microtask, by its workers (pool.c); the league's task
 * keeps no exit frame, as on libomp 14, so exit_frame is not written.
 */
static MOCKRT_NOINLINE void mockrt_kmpc_teams_master(void (*unused)(void), int32_t *gtid,
                                                     int32_t *btid, int argc, void **argv,
                                                     void **exit_frame)
{
  mockrt_kmpc_league_t *lg = argv[0];
  mockrt_thread_t *self = mockrt_self();
  mockrt_team_t team;
  mockrt_task_t task;

  (void)unused;
  (void)gtid;
  (void)btid;
  (void)argc;
  (void)exit_frame;
  self->fork_by_runtime = true;
  self->fork_kind = MOCKRT_TEAM_TEAMS_BODY;
  mockrt_fork_ex(&team, &task, NULL, NULL, lg->thread_limit, NULL, mockrt_kmpc_body_init, lg);
  /* The body may keep these pointers for the whole region. */
  int32_t body_gtid = self->gtid, body_btid = 0;
  mockrt_frame_exit_flags(&task);
  mockrt_invoke_microtask((void (*)(void))lg->fn, &body_gtid, &body_btid, lg->argc, lg->argv,
                          &task.frame.exit_frame.ptr);
  mockrt_frame_unexit(&task);
  mockrt_join(&team, &task);
}

/* The runtime frame between the entry point and the league, as run_region in fork.c. */
static MOCKRT_NOINLINE void mockrt_kmpc_run_league(mockrt_kmpc_micro_t fn, int argc, void **argv,
                                                   void *entry_frame, const void *ra)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  mockrt_team_t league;
  mockrt_task_t task;
  mockrt_kmpc_league_t lg = {fn, argc, argv, 1, (unsigned)mockrt_kmpc_pushed_limit};
  void *lg_argv[1] = {&lg};
  mockrt_microtask_t micro = {mockrt_kmpc_teams_master, NULL, 1, lg_argv};
  unsigned nteams;

  mockrt_kmpc_teams_size(enc, &nteams, &lg.thread_limit);
  mockrt_kmpc_pushed_teams = 0;
  mockrt_kmpc_pushed_limit = 0;
  mockrt_frame_enter(enc, entry_frame);
  self->fork_by_runtime = true;
  self->fork_kind = MOCKRT_TEAM_LEAGUE;
  mockrt_fork_ex(&league, &task, NULL, NULL, nteams, ra, mockrt_kmpc_teams_set_micro, &micro);
  int32_t gtid = self->gtid, btid = 0;
  mockrt_kmpc_teams_master(NULL, &gtid, &btid, 1, lg_argv, NULL);
  mockrt_join(&league, &task);
  mockrt_frame_leave(enc);
}

MOCKRT_EXPORT void __kmpc_fork_teams(mockrt_ident_t *loc, int32_t argc, mockrt_kmpc_micro_t fn, ...)
{
  void *inline_args[MOCKRT_KMPC_INLINE_ARGS];
  va_list ap;

  (void)loc;
  va_start(ap, fn);
  void **argv = mockrt_kmpc_args_take(inline_args, &argc, ap);
  va_end(ap);
  mockrt_kmpc_run_league(fn, argc, argv, MOCKRT_ENTRY_FRAME(), __builtin_return_address(0));
  mockrt_kmpc_args_release(argv, inline_args);
}
