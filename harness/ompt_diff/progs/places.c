/*
 * Places and binding: the place inquiries of the OpenMP API outside and
 * inside regions, with and without proc_bind.  Their values depend on the
 * machine, so the program prints what is fixed: whether they agree with
 * each other.
 */
#include <omp.h>
#include <stdio.h>

int in_region[4];

static int place_ok(void)
{
  int n = omp_get_num_places();
  int p = omp_get_place_num();
  int parts = omp_get_partition_num_places();
  int nums[64] = {0};
  if (parts > 0 && parts <= 64)
    omp_get_partition_place_nums(nums);
  int procs = n > 0 ? omp_get_place_num_procs(0) : 0;
  int ids[256];
  if (procs > 0 && procs <= 256)
    omp_get_place_proc_ids(0, ids);
  return (p >= -1 && p < (n > 0 ? n : 1)) && parts >= 0 && parts <= n && procs >= 0 &&
         omp_get_place_num_procs(-1) == 0 && omp_get_place_num_procs(n) == 0;
}

int main(void)
{
  int outside = place_ok();
  int bind0 = omp_get_proc_bind();
#pragma omp parallel num_threads(2)
  in_region[omp_get_thread_num()] = place_ok() * 10 + (omp_get_proc_bind() == bind0);
#pragma omp parallel num_threads(2) proc_bind(close)
  in_region[2 + omp_get_thread_num()] = place_ok();
#pragma omp parallel num_threads(2) proc_bind(spread)
  {
#pragma omp atomic
    in_region[3] += omp_get_num_procs() > 0;
  }
  printf("places: %d %d %d %d %d %d bind %d\n", outside, in_region[0], in_region[1], in_region[2],
         in_region[3], omp_get_num_places() >= 0, bind0);
  return 0;
}
