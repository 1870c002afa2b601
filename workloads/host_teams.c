/* host_teams: a host teams construct (OpenMP 5.0) whose teams share a loop and
 * each open a parallel region.
 *
 *   main -> run_teams -> [teams, 3 asked for; distribute over 6 iterations]
 *        each iteration -> team_work (2 units)
 *                       -> team_fn -> [parallel for, 4 iterations]
 *                                     each iteration -> member_work (3 units)
 *
 * Counts do not depend on how many teams or threads the runtime gives: the
 * work is in a distribute loop and a worksharing loop. Every team's
 * samples, on whichever thread it runs, sit under the teams construct's
 * path (main -> run_teams), then its outlined body, as a parallel
 * region's workers sit under theirs.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#define NOINLINE   __attribute__((noinline))
#define ITERATIONS 6
#define MEMBERS    4

static uint64_t member_results[ITERATIONS][MEMBERS];
static uint64_t team_results[ITERATIONS];

NOINLINE static uint64_t member_work(uint64_t x)
{
  return knit_work(x, 3) + 7;
}

NOINLINE static uint64_t team_work(uint64_t x)
{
  return knit_work(x, 2) + 5;
}

NOINLINE static uint64_t team_fn(int it, uint64_t seed)
{
#pragma omp parallel for schedule(static) num_threads(2)
  for (int m = 0; m < MEMBERS; m++)
    member_results[it][m] = member_work(seed + (uint64_t)m);
  uint64_t sum = 0;
  for (int m = 0; m < MEMBERS; m++)
    sum ^= member_results[it][m];
  return sum;
}

NOINLINE static uint64_t run_teams(uint64_t seed)
{
#pragma omp teams num_teams(3)
#pragma omp distribute
  for (int it = 0; it < ITERATIONS; it++) {
    uint64_t x = team_work(seed + (uint64_t)it);
    team_results[it] = team_fn(it, x);
  }
  uint64_t sum = 0;
  for (int it = 0; it < ITERATIONS; it++)
    sum ^= team_results[it];
  return sum + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 13;
  for (int r = 0; r < rounds; r++)
    x = run_teams(x);
  printf("host_teams: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
