/*
 * Host teams under the __kmpc_* ABI (__kmpc_push_num_teams,
 * __kmpc_fork_teams): the sizes libomp 14 forms, the team queries, a
 * parallel region inside the body, distribute, many shared variables, and
 * the OMPT events a tool sees (the program is its own tool).  Sizes depend
 * on the processors: libomp 14 never forms more teams, nor teams times
 * threads, than there are, and the mocks do as it does.
 *
 * --results-only: no event checks (the real libomp 14, whose team of the
 * body also reports thread_limit threads where the mocks report one); a
 * skip (77) on one processor.
 */
#include "check.h"

#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define MAX_TEAMS 8

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int league_begin, league_end, league_requested, league_flags_bad;
  int initial_begin, initial_end, initial_actual_bad, initial_index_seen[MAX_TEAMS];
  int body_region_begin, body_region_bad; /* a team's own region: no codeptr, thread_limit */
  int body_region_requested;
  int distribute_begin, distribute_end;
} ev;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *ra)
{
  (void)task;
  (void)frame;
  (void)par;
  pthread_mutex_lock(&ev_lock);
  if (flags & ompt_parallel_league) {
    ev.league_begin++;
    ev.league_requested = (int)requested;
    if (!(flags & ompt_parallel_invoker_runtime) || (flags & ompt_parallel_team) || !ra)
      ev.league_flags_bad++;
  } else if (!ra) {
    ev.body_region_begin++;
    ev.body_region_requested = (int)requested;
    if (!(flags & ompt_parallel_team))
      ev.body_region_bad++;
  }
  pthread_mutex_unlock(&ev_lock);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *ra)
{
  (void)par;
  (void)task;
  (void)ra;
  pthread_mutex_lock(&ev_lock);
  if (flags & ompt_parallel_league)
    ev.league_end++;
  pthread_mutex_unlock(&ev_lock);
}

static int expected_teams;

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned actual, unsigned index, int flags)
{
  (void)task;
  /* The program's initial task: no region of its own, begin before main. */
  if (!(flags & ompt_task_initial) || (ep == ompt_scope_begin && !par))
    return;
  pthread_mutex_lock(&ev_lock);
  if (ep == ompt_scope_begin) {
    /* The initial thread's own initial task has index 1 and a team of 1. */
    if (actual == 1 && index == 1 && expected_teams == 0) {
      pthread_mutex_unlock(&ev_lock);
      return;
    }
    ev.initial_begin++;
    if ((int)actual != expected_teams)
      ev.initial_actual_bad++;
    if (index < MAX_TEAMS)
      ev.initial_index_seen[index]++;
  } else {
    ev.initial_end++;
  }
  pthread_mutex_unlock(&ev_lock);
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t ep, ompt_data_t *par,
                    ompt_data_t *task, uint64_t count, const void *ra)
{
  (void)par;
  (void)task;
  (void)count;
  (void)ra;
  if (wstype != ompt_work_distribute)
    return;
  pthread_mutex_lock(&ev_lock);
  if (ep == ompt_scope_begin)
    ev.distribute_begin++;
  else
    ev.distribute_end++;
  pthread_mutex_unlock(&ev_lock);
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
  (void)device;
  (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  return 1;
}

static void tool_finalize(ompt_data_t *data)
{
  (void)data;
}

static int with_tool = 1;

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  (void)omp_version;
  (void)runtime_version;
  return &result;
}

static void events_reset(int nteams)
{
  pthread_mutex_lock(&ev_lock);
  memset(&ev, 0, sizeof ev);
  expected_teams = nteams;
  pthread_mutex_unlock(&ev_lock);
}

/* A league of nteams teams, each with a region of its own of thread_limit as requested. */
static void events_check_league(int nteams, int thread_limit)
{
  if (!with_tool)
    return;
  CHECK(ev.league_begin == 1 && ev.league_end == 1);
  CHECK(ev.league_requested == nteams);
  CHECK(ev.league_flags_bad == 0);
  CHECK(ev.initial_begin == nteams && ev.initial_end == nteams);
  CHECK(ev.initial_actual_bad == 0);
  for (int i = 0; i < nteams && i < MAX_TEAMS; i++)
    CHECK(ev.initial_index_seen[i] == 1);
  CHECK(ev.body_region_begin == nteams && ev.body_region_bad == 0);
  CHECK(ev.body_region_requested == thread_limit);
}

static int min(int a, int b)
{
  return a < b ? a : b;
}

int main(int argc, char **argv)
{
  int procs = omp_get_num_procs();
  with_tool = !(argc > 1 && strcmp(argv[1], "--results-only") == 0);
  /* On one processor libomp 14 runs a league of one team as a serialized
   * region whose team queries are not what this program checks. */
  if (!with_tool && procs < 2) {
    printf("skip: one processor\n");
    return 77;
  }

  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);

  /* Two teams of one thread: a parallel region inside each has one thread. */
  int n2 = min(2, procs);
  int team_seen[MAX_TEAMS] = {0}, bad = 0, inner_threads[MAX_TEAMS] = {0};
  events_reset(n2);
#pragma omp teams num_teams(2) thread_limit(1)
  {
    int t = omp_get_team_num();
    if (t < 0 || t >= MAX_TEAMS || omp_get_num_teams() != n2 || omp_get_level() != 0 ||
        omp_get_active_level() != 0 || omp_in_parallel() || omp_get_thread_num() != 0 ||
        omp_get_thread_limit() != 1)
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    else
      team_seen[t]++;
#pragma omp parallel
    {
#pragma omp atomic
      inner_threads[t]++;
      if (omp_get_team_num() != t || omp_get_level() != 1)
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(bad == 0);
  for (int i = 0; i < n2; i++)
    CHECK(team_seen[i] == 1 && inner_threads[i] == 1);
  events_check_league(n2, 1);

  /* One team of two threads (at most nthreads-var): the parallel region
   * inside is active, level 1, and has as many. */
  int n1 = min(2, omp_get_max_threads());
  if (procs >= 2) {
    int threads = 0, levels_bad = 0;
    events_reset(1);
#pragma omp teams num_teams(1) thread_limit(2)
    {
#pragma omp parallel num_threads(4)
      {
#pragma omp atomic
        threads++;
        if (omp_get_level() != 1 || omp_get_active_level() != (n1 > 1) ||
            omp_in_parallel() != (n1 > 1) || omp_get_num_threads() != n1 ||
            omp_get_team_num() != 0 || omp_get_num_teams() != 1 ||
            omp_get_ancestor_thread_num(0) != 0)
          __atomic_add_fetch(&levels_bad, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK(threads == n1 && levels_bad == 0);
  }

  /* No clause: one team. */
  int nteams_default = 0;
  events_reset(1);
#pragma omp teams
  nteams_default = omp_get_num_teams();
  CHECK(nteams_default == 1);

  /* Distribute: every iteration once, each by a team of the league. */
  int done[100] = {0}, by_team[100];
  events_reset(n2);
#pragma omp teams num_teams(2) thread_limit(1)
#pragma omp distribute
  for (int i = 0; i < 100; i++) {
    done[i]++;
    by_team[i] = omp_get_team_num();
  }
  int teams_used = 0;
  for (int i = 0; i < 100; i++) {
    CHECK(done[i] == 1);
    CHECK(by_team[i] >= 0 && by_team[i] < n2);
    teams_used |= 1 << by_team[i];
  }
  CHECK(teams_used == (1 << n2) - 1);
  events_check_league(n2, 1);
  if (with_tool)
    CHECK(ev.distribute_begin == n2 && ev.distribute_end == n2);

  /* More shared variables than registers: the trampoline forwards them all. */
  int v[18] = {0};
  int a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8, a8 = 9, a9 = 10, a10 = 11,
      a11 = 12, a12 = 13, a13 = 14, a14 = 15, a15 = 16, a16 = 17, a17 = 18;
#pragma omp teams num_teams(1)
  {
    v[0] = a0;
    v[1] = a1;
    v[2] = a2;
    v[3] = a3;
    v[4] = a4;
    v[5] = a5;
    v[6] = a6;
    v[7] = a7;
    v[8] = a8;
    v[9] = a9;
    v[10] = a10;
    v[11] = a11;
    v[12] = a12;
    v[13] = a13;
    v[14] = a14;
    v[15] = a15;
    v[16] = a16;
    v[17] = a17;
  }
  for (int i = 0; i < 18; i++)
    CHECK(v[i] == i + 1);

  /* OpenMP 5.1's nteams-var and teams-thread-limit-var, for constructs
   * without the clauses (last: they stay set). */
  CHECK(omp_get_max_teams() == 0 && omp_get_teams_thread_limit() == 0);
  omp_set_num_teams(2);
  omp_set_teams_thread_limit(1);
  CHECK(omp_get_max_teams() == 2 && omp_get_teams_thread_limit() == 1);
  int icv_teams = 0, icv_threads = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0)
      icv_teams = omp_get_num_teams();
#pragma omp parallel
    {
#pragma omp atomic
      icv_threads++;
    }
  }
  CHECK(icv_teams == n2 && icv_threads == n2);

  printf("teams: %d teams of %d processors, %s\n", n2, procs, failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
