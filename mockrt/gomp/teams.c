/*
 * Host teams under the GOMP ABI: gcc 12 compiles `#pragma omp teams`
 * outside a target region to GOMP_teams_reg(fn, data, num_teams,
 * thread_limit, flags), and open-codes `distribute` with omp_get_team_num
 * and omp_get_num_teams (core/teams.c).
 *
 * libgomp 12 runs the teams one after another on the encountering thread.
 * Its sizes are kept: without num_teams, nteams-var or else 3 teams; the
 * thread_limit clause, or else teams-thread-limit-var, is the teams'
 * thread-limit-var and bounds a parallel region inside them; without
 * either, such a region has nthreads-var threads.
 *
 * The mock runs them as the __kmpc_* mocks do (kmpc/teams.c), so that a
 * tool sees the same events: the encountering task forks a league
 * (parallel_begin with ompt_parallel_league, the number of teams as
 * requested size) whose threads are initial threads (implicit_task with
 * ompt_task_initial); each opens a region of its own for its team, on a
 * team of one (no codeptr, the thread limit as requested size), whose
 * implicit task calls fn(data).  The league asks for a thread a team;
 * when the pool gives it fewer (OMP_THREAD_LIMIT, the mock's largest
 * team), initial thread k runs teams k, k + threads, ... one after
 * another, as libgomp runs them all.
 */
#include "gomp.h"

/* One teams construct, as every initial thread of its league reads it. */
typedef struct mockrt_gomp_league {
  void (*fn)(void *);
  void *data;
  unsigned nteams;
  unsigned thread_limit; /* the clause or teams-thread-limit-var, 0 without */
} mockrt_gomp_league_t;

/* A team's own region: its number and its league. */
typedef struct mockrt_gomp_team_arg {
  const mockrt_gomp_league_t *lg;
  unsigned team_num;
} mockrt_gomp_team_arg_t;

static void mockrt_gomp_league_init(mockrt_team_t *team, void *arg)
{
  const mockrt_gomp_league_t *lg = arg;
  team->num_teams = lg->nteams;
}

static void mockrt_gomp_team_init(mockrt_team_t *team, void *arg)
{
  const mockrt_gomp_team_arg_t *ta = arg;
  team->team_num = ta->team_num;
  team->cg_limit = ta->lg->thread_limit;
  if (ta->lg->thread_limit)
    team->cg_thread_limit_var = ta->lg->thread_limit;
}

/*
 * An initial thread of the league: the teams it runs, each in a region of
 * its own whose implicit task calls fn(data) from here, so this frame's
 * CFA is the task's exit frame.  The league's task keeps no frames, as on
 * the __kmpc_* mocks.
 */
static MOCKRT_NOINLINE void mockrt_gomp_teams_initial(const mockrt_gomp_league_t *lg)
{
  mockrt_thread_t *self = mockrt_self();
  const mockrt_task_t *initial = self->task;
  unsigned threads = initial->team->nthreads;
  void *cfa = __builtin_dwarf_cfa();

  for (unsigned k = (unsigned)initial->thread_num; k < lg->nteams; k += threads) {
    mockrt_gomp_team_arg_t ta = {lg, k};
    mockrt_team_t team;
    mockrt_task_t task;
    /* As on the __kmpc_* mocks, the runtime invokes the body. */
    self->fork_by_runtime = true;
    self->fork_kind = MOCKRT_TEAM_TEAMS_BODY;
    mockrt_fork_ex(&team, &task, lg->fn, lg->data, lg->thread_limit, NULL, mockrt_gomp_team_init,
                   &ta);
    mockrt_frame_exit(&task, cfa);
    lg->fn(lg->data);
    mockrt_frame_unexit(&task);
    mockrt_join(&team, &task);
  }
}

/* How the league's workers start (the pool's microtask): argv[0] is the league. */
static void mockrt_gomp_teams_invoke(void (*unused)(void), int32_t *gtid, int32_t *btid, int argc,
                                     void **argv, void **exit_frame)
{
  (void)unused;
  (void)gtid;
  (void)btid;
  (void)argc;
  (void)exit_frame;
  mockrt_gomp_teams_initial(argv[0]);
}

static void mockrt_gomp_teams_set_micro(mockrt_team_t *team, void *arg)
{
  const mockrt_microtask_t *micro = arg;
  mockrt_gomp_league_init(team, micro->argv[0]);
  team->micro = micro;
}

MOCKRT_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                                  unsigned thread_limit, unsigned flags)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  void *cfa = __builtin_dwarf_cfa();
  mockrt_gomp_league_t lg = {fn, data, num_teams, thread_limit};
  void *lg_argv[1] = {&lg};
  mockrt_microtask_t micro = {mockrt_gomp_teams_invoke, NULL, 1, lg_argv};
  mockrt_team_t league;
  mockrt_task_t task;

  (void)flags;
  if (lg.nteams == 0)
    lg.nteams = (unsigned)mockrt_teams_nteams_var();
  if (lg.nteams == 0)
    lg.nteams = 3;
  if (lg.thread_limit == 0)
    lg.thread_limit = (unsigned)mockrt_teams_thread_limit_var();
  mockrt_frame_enter(enc, cfa);
  self->fork_by_runtime = true;
  self->fork_kind = MOCKRT_TEAM_LEAGUE;
  mockrt_fork_ex(&league, &task, NULL, NULL, lg.nteams, __builtin_return_address(0),
                 mockrt_gomp_teams_set_micro, &micro);
  mockrt_gomp_teams_initial(&lg);
  mockrt_join(&league, &task);
  mockrt_frame_leave(enc);
}
