/*
 * Host teams under the GOMP ABI (gcc 12: GOMP_teams_reg; distribute is
 * open-coded with omp_get_team_num and omp_get_num_teams): the sizes
 * libgomp 12 forms (num_teams, else nteams-var, else 3 teams; the
 * thread_limit clause, else teams-thread-limit-var, bounds a parallel
 * region inside), the team queries, a parallel loop inside each team, a
 * nested parallel region, distribute, and the teams ICVs.  The same
 * results on the mock and on the real libgomp, which runs the teams one
 * after another on one thread where the mock runs them at once.
 *
 * The program is its own tool: --events requires the OMPT events of the
 * mock (libgomp 12 has no OMPT): per construct a league (parallel_begin
 * with ompt_parallel_league, the teams as requested size), an initial
 * task a thread of it, and a region of one thread for each team.
 * --few-threads: OMP_THREAD_LIMIT leaves the league fewer threads than
 * teams, whose threads then run several teams each; the thread counts of
 * regions inside the teams are not checked.
 */
#include "check.h"

#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define MAX_TEAMS 8

static int want_events, few_threads;

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int tool_on;
  int league_begin, league_end, league_requested, league_flags_bad;
  int initial_begin, initial_end, initial_actual, initial_index_seen[MAX_TEAMS];
  int body_begin, body_end, body_requested, body_flags_bad;
  int body_task_begin, body_task_size_bad;
} ev;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned requested, int flags, const void *ra)
{
  (void)task;
  (void)frame;
  pthread_mutex_lock(&ev_lock);
  if (flags & ompt_parallel_league) {
    ev.league_begin++;
    ev.league_requested = (int)requested;
    if (!(flags & ompt_parallel_invoker_runtime) || (flags & ompt_parallel_team) || !ra)
      ev.league_flags_bad++;
  } else if (!ra) {
    /* A team's own region: no codeptr, the thread limit as requested size. */
    par->value = 1;
    ev.body_begin++;
    ev.body_requested = (int)requested;
    if (!(flags & ompt_parallel_team))
      ev.body_flags_bad++;
  }
  pthread_mutex_unlock(&ev_lock);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *ra)
{
  (void)task;
  (void)ra;
  pthread_mutex_lock(&ev_lock);
  if (flags & ompt_parallel_league)
    ev.league_end++;
  else if (par->value == 1)
    ev.body_end++;
  pthread_mutex_unlock(&ev_lock);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned actual, unsigned index, int flags)
{
  (void)task;
  /* The program's initial task: no region of its own. */
  if (ep == ompt_scope_begin && !par)
    return;
  pthread_mutex_lock(&ev_lock);
  if (flags & ompt_task_initial) {
    if (ep == ompt_scope_begin && !(actual == 1 && index == 1 && ev.league_begin == 0)) {
      ev.initial_begin++;
      ev.initial_actual = (int)actual;
      if (index < MAX_TEAMS)
        ev.initial_index_seen[index]++;
    } else if (ep == ompt_scope_end) {
      ev.initial_end++;
    }
  } else if (ep == ompt_scope_begin && par->value == 1) {
    ev.body_task_begin++;
    if (actual != 1 || index != 0)
      ev.body_task_size_bad++;
  }
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
  ev.tool_on = 1;
  return 1;
}

static void tool_finalize(ompt_data_t *data)
{
  (void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  (void)omp_version;
  (void)runtime_version;
  return &result;
}

static void events_reset(void)
{
  pthread_mutex_lock(&ev_lock);
  int on = ev.tool_on;
  memset(&ev, 0, sizeof ev);
  ev.tool_on = on;
  pthread_mutex_unlock(&ev_lock);
}

/* One league for nteams teams, a region of one thread for each. */
static void events_check(int nteams, int thread_limit)
{
  if (!want_events)
    return;
  CHECK(ev.tool_on);
  CHECK(ev.league_begin == 1 && ev.league_end == 1);
  CHECK(ev.league_requested == nteams && ev.league_flags_bad == 0);
  CHECK(ev.body_begin == nteams && ev.body_end == nteams && ev.body_flags_bad == 0);
  CHECK(ev.body_task_begin == nteams && ev.body_task_size_bad == 0);
  if (thread_limit > 0)
    CHECK(ev.body_requested == thread_limit);
  CHECK(ev.initial_begin == ev.initial_end && ev.initial_begin >= 1);
  CHECK(ev.initial_actual == ev.initial_begin);
  if (!few_threads)
    CHECK(ev.initial_begin == nteams);
  for (int i = 0; i < ev.initial_begin && i < MAX_TEAMS; i++)
    CHECK(ev.initial_index_seen[i] == 1);
}

/* The queries a team's body asks (gcc refuses most of them inside teams). */
static __attribute__((noinline)) int body_state_bad(int nteams, int thread_limit)
{
  return omp_get_num_teams() != nteams || omp_get_level() != 0 || omp_get_active_level() != 0 ||
         omp_in_parallel() || omp_get_thread_num() != 0 || omp_get_num_threads() != 1 ||
         (thread_limit > 0 && omp_get_thread_limit() != thread_limit);
}

static __attribute__((noinline)) int inner_state_bad(int team, int level)
{
  return omp_get_team_num() != team || omp_get_level() != level ||
         omp_get_ancestor_thread_num(0) != 0;
}

static int min(int a, int b)
{
  return a < b ? a : b;
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--events") == 0)
      want_events = 1;
    else if (strcmp(argv[i], "--few-threads") == 0)
      few_threads = 1;
  }
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);
  CHECK(omp_get_max_teams() == 0 && omp_get_teams_thread_limit() == 0);

  /* Three teams of at most two threads: a parallel loop in each, a
   * parallel region of two threads (nthreads-var is 4), and a nested
   * region inside it, inactive (max-active-levels 1): one thread. */
  int seen[MAX_TEAMS] = {0}, sums[MAX_TEAMS] = {0}, threads[MAX_TEAMS] = {0};
  int nested[MAX_TEAMS] = {0}, bad = 0;
  events_reset();
#pragma omp teams num_teams(3) thread_limit(2)
  {
    int t = omp_get_team_num();
    if (t < 0 || t >= 3 || body_state_bad(3, 2)) {
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    } else {
      seen[t]++;
#pragma omp parallel for
      for (int i = 0; i < 100; i++)
        __atomic_add_fetch(&sums[t], i + t, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(4)
      {
        __atomic_add_fetch(&threads[t], 1, __ATOMIC_RELAXED);
        if (inner_state_bad(t, 1))
          __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(2)
        {
          __atomic_add_fetch(&nested[t], 1, __ATOMIC_RELAXED);
          if (omp_get_num_threads() != 1 || inner_state_bad(t, 2))
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        }
      }
    }
  }
  CHECK(bad == 0);
  for (int t = 0; t < 3; t++) {
    CHECK(seen[t] == 1);
    CHECK(sums[t] == 4950 + 100 * t);
    if (!few_threads)
      CHECK(threads[t] == min(2, omp_get_max_threads()));
    CHECK(threads[t] >= 1 && nested[t] == threads[t]);
  }
  events_check(3, 2);

  /* No clause: libgomp 12's three teams; a parallel region inside has
   * nthreads-var threads. */
  int nteams_default = 0, threads_default = 0;
  events_reset();
#pragma omp teams
  {
    if (omp_get_team_num() == 0) {
      nteams_default = omp_get_num_teams();
#pragma omp parallel
      __atomic_add_fetch(&threads_default, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(nteams_default == 3);
  if (!few_threads)
    CHECK(threads_default == omp_get_max_threads());
  events_check(3, 0);

  /* Distribute: every iteration once, shared among all the teams. */
  int done[100] = {0}, by_team[100];
  events_reset();
#pragma omp teams num_teams(5) thread_limit(1)
#pragma omp distribute
  for (int i = 0; i < 100; i++) {
    done[i]++;
    by_team[i] = omp_get_team_num();
  }
  int teams_used = 0;
  for (int i = 0; i < 100; i++) {
    CHECK(done[i] == 1);
    CHECK(by_team[i] >= 0 && by_team[i] < 5);
    if (by_team[i] >= 0 && by_team[i] < 5)
      teams_used |= 1 << by_team[i];
  }
  CHECK(teams_used == 0x1f);
  events_check(5, 1);

  /* Combined: teams distribute parallel for. */
  long total = 0;
  int hits[1000] = {0};
#pragma omp teams distribute parallel for num_teams(4) reduction(+ : total)
  for (int i = 0; i < 1000; i++) {
    total += i;
    hits[i]++;
  }
  CHECK(total == 499500);
  for (int i = 0; i < 1000; i++)
    CHECK(hits[i] == 1);

  /* OpenMP 5.1's nteams-var and teams-thread-limit-var, for constructs
   * without the clauses (last: they stay set). */
  omp_set_num_teams(2);
  omp_set_teams_thread_limit(1);
  CHECK(omp_get_max_teams() == 2 && omp_get_teams_thread_limit() == 1);
  int icv_teams = 0, icv_threads = 0, icv_bad = 0;
  events_reset();
#pragma omp teams
  {
    if (omp_get_team_num() == 0)
      icv_teams = omp_get_num_teams();
    if (body_state_bad(2, 1))
      __atomic_add_fetch(&icv_bad, 1, __ATOMIC_RELAXED);
#pragma omp parallel
    __atomic_add_fetch(&icv_threads, 1, __ATOMIC_RELAXED);
  }
  CHECK(icv_teams == 2 && icv_threads == 2 && icv_bad == 0);
  events_check(2, 1);
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);

  printf("gomp teams: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
