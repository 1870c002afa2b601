/*
 * What host teams share under every ABI (kmpc/teams.c, gomp/teams.c):
 * OpenMP 5.1's nteams-var and teams-thread-limit-var, and the team
 * queries.  The personality forms the league and its teams' own regions
 * (core/team.c: MOCKRT_TEAM_LEAGUE, MOCKRT_TEAM_TEAMS_BODY) and sets the
 * team number of each region of a team and the number of teams of the
 * league, which the queries below read.
 */
#include "mockrt.h"
#include "fault.h"

#include <stdint.h>
#include <stdlib.h>

/*
 * nteams-var and teams-thread-limit-var: OMP_NUM_TEAMS and
 * OMP_TEAMS_THREAD_LIMIT, or what the program sets; 0 (the
 * implementation's choice) without either, as in libgomp 12 and libomp
 * 14.  Process-wide, as both keep them; -1 until first read.
 */
static atomic_int mockrt_nteams_var = -1, mockrt_teams_limit_var = -1;

static int mockrt_teams_env_positive(const char *name)
{
  const char *s = getenv(name);
  char *end;
  long v = s ? strtol(s, &end, 10) : 0;
  return s && end != s && v > 0 && v <= INT32_MAX ? (int)v : 0;
}

/* An ICV's value, read from its variable the first time it is asked for. */
static int mockrt_teams_icv(atomic_int *icv, const char *env)
{
  int v = atomic_load_explicit(icv, memory_order_relaxed);
  if (v < 0) {
    int expected = -1;
    v = mockrt_teams_env_positive(env);
    if (!atomic_compare_exchange_strong(icv, &expected, v))
      v = expected;
  }
  return v;
}

int mockrt_teams_nteams_var(void)
{
  return mockrt_teams_icv(&mockrt_nteams_var, "OMP_NUM_TEAMS");
}

int mockrt_teams_thread_limit_var(void)
{
  return mockrt_teams_icv(&mockrt_teams_limit_var, "OMP_TEAMS_THREAD_LIMIT");
}

/* The region of its team the calling task is in, or NULL outside teams. */
static const mockrt_team_t *mockrt_teams_body(void)
{
  const mockrt_task_t *t = mockrt_self()->task;
  for (; t; t = t->parent)
    if (t->team && t->team->kind == MOCKRT_TEAM_TEAMS_BODY)
      return t->team;
  return NULL;
}

void mockrt_league_pos(unsigned *team_num, unsigned *nteams)
{
  const mockrt_team_t *body = mockrt_teams_body();
  *team_num = body ? body->team_num : 0;
  *nteams = body ? body->encountering->team->num_teams : 1;
}

MOCKRT_EXPORT int omp_get_team_num(void)
{
  const mockrt_team_t *body = mockrt_teams_body();
  return body ? (int)body->team_num + mockrt_fault(MOCKRT_FAULT_TEAM_NUM_WRONG) : 0;
}

MOCKRT_EXPORT int omp_get_num_teams(void)
{
  const mockrt_team_t *body = mockrt_teams_body();
  return body ? (int)body->encountering->team->num_teams : 1;
}

MOCKRT_EXPORT void omp_set_num_teams(int num_teams)
{
  if (num_teams > 0)
    atomic_store_explicit(&mockrt_nteams_var, num_teams, memory_order_relaxed);
}

MOCKRT_EXPORT int omp_get_max_teams(void)
{
  return mockrt_teams_nteams_var();
}

MOCKRT_EXPORT void omp_set_teams_thread_limit(int thread_limit)
{
  if (thread_limit > 0)
    atomic_store_explicit(&mockrt_teams_limit_var, thread_limit, memory_order_relaxed);
}

MOCKRT_EXPORT int omp_get_teams_thread_limit(void)
{
  return mockrt_teams_thread_limit_var();
}
