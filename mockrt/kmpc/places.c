/*
 * The place and binding routines of the OpenMP API, as libomp 14 answers
 * them on the host without OMP_PLACES: the whole machine is one place, 0,
 * holding every processor, and every thread's partition is that place.
 * libomp completes its start-up in these calls, so from the first of them
 * on the threads are in the place, for the tool's inquiries too
 * (core/ompt_platform.c).  The mock binds no thread; proc-bind-var is
 * read from OMP_PROC_BIND (its first item), false without it, as in libomp.
 */
#include "kmpc.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void mockrt_kmpc_places_start(void)
{
  mockrt_self();
  mockrt_ompt_places_bound();
}

MOCKRT_EXPORT int omp_get_num_places(void)
{
  mockrt_kmpc_places_start();
  return mockrt_ompt_get_num_places();
}

MOCKRT_EXPORT int omp_get_place_num_procs(int place_num)
{
  mockrt_kmpc_places_start();
  return mockrt_ompt_get_place_proc_ids(place_num, 0, NULL);
}

MOCKRT_EXPORT void omp_get_place_proc_ids(int place_num, int *ids)
{
  mockrt_kmpc_places_start();
  int n = mockrt_ompt_get_place_proc_ids(place_num, 0, NULL);
  if (ids)
    mockrt_ompt_get_place_proc_ids(place_num, n, ids);
}

MOCKRT_EXPORT int omp_get_place_num(void)
{
  mockrt_kmpc_places_start();
  return mockrt_ompt_get_place_num();
}

MOCKRT_EXPORT int omp_get_partition_num_places(void)
{
  mockrt_kmpc_places_start();
  return mockrt_ompt_get_partition_place_nums(0, NULL);
}

MOCKRT_EXPORT void omp_get_partition_place_nums(int *place_nums)
{
  mockrt_kmpc_places_start();
  int n = mockrt_ompt_get_partition_place_nums(0, NULL);
  if (place_nums)
    mockrt_ompt_get_partition_place_nums(n, place_nums);
}

MOCKRT_EXPORT omp_proc_bind_t omp_get_proc_bind(void)
{
  static const struct {
    const char *name;
    omp_proc_bind_t bind;
  } words[] = {
      {"false", omp_proc_bind_false},   {"true", omp_proc_bind_true},
      {"master", omp_proc_bind_master}, {"primary", omp_proc_bind_master},
      {"close", omp_proc_bind_close},   {"spread", omp_proc_bind_spread},
  };
  const char *env = getenv("OMP_PROC_BIND");
  mockrt_self();
  if (!env)
    return omp_proc_bind_false;
  while (*env == ' ' || *env == '\t')
    env++;
  size_t len = strcspn(env, ", \t");
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strlen(words[i].name) == len && strncasecmp(env, words[i].name, len) == 0)
      return words[i].bind;
  return omp_proc_bind_false;
}
