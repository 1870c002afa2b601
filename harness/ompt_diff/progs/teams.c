/*
 * Host teams (OpenMP 5.0, __kmpc_fork_teams): a league of two teams, each
 * with a parallel loop inside and its team number, then distribute, a
 * chunked distribute and a combined distribute parallel loop.  Two
 * teams of one thread each, the sizes libomp 14 forms on any machine with
 * two processors or more (it never forms more teams, nor teams times
 * threads, than processors).  No league of one team: libomp 14 runs it
 * as a serialized region whose events name the task data of the previous
 * teams construct's first team, as if it were nested there.
 */
#include <omp.h>
#include <stdio.h>

int sink[16];
int seen[4];
int dist_team[10];
int dist_chunk[10];
int dist_par[10];

int main(void)
{
#pragma omp teams num_teams(2) thread_limit(1)
  {
    int t = omp_get_team_num();
    seen[t] = omp_get_num_teams() * 100 + omp_get_level() * 10 + omp_get_thread_num();
#pragma omp parallel for
    for (int i = 0; i < 8; i++)
      sink[t * 8 + i] += i + omp_get_num_threads() + 10 * omp_get_team_num();
  }

#pragma omp teams num_teams(2) thread_limit(1)
#pragma omp distribute
  for (int i = 0; i < 10; i++)
    dist_team[i] = omp_get_team_num();

    /* Chunked distribute, and a combined distribute parallel loop. */
#pragma omp teams distribute dist_schedule(static, 2) num_teams(2) thread_limit(1)
  for (int i = 0; i < 10; i++)
    dist_chunk[i] = omp_get_team_num();
#pragma omp teams distribute parallel for num_teams(2) thread_limit(1)
  for (int i = 0; i < 10; i++)
    dist_par[i] = omp_get_team_num() * 10 + omp_get_num_threads();

  int d = 0;
  for (int i = 0; i < 10; i++)
    d = d * 4 + dist_team[i] * 2 + dist_chunk[i];
  printf("teams: %d %d sum %d %d dist %d %d %d outside %d %d\n", seen[0], seen[1], sink[7],
         sink[15], d, dist_par[0], dist_par[9], omp_get_num_teams(), omp_get_team_num());
  return 0;
}
