/* task_sort: a task-parallel sort, as programs write it: each half of a
 * range sorted by a task of its own, waited for in a taskgroup at even
 * levels and by taskwait at odd ones, then merged by the task that made
 * them; short ranges sorted in place.
 *
 *   main -> run_sort -> start_sort -> [parallel] single -> sort_range(0, N)
 *   sort_range: a range of LEAF or fewer: sort_leaf (2 units);
 *               else two tasks, sort_range of each half, waited for, then
 *               merge_halves (1 unit)
 *
 * N = 8 LEAF: the ranges halve evenly whatever the data, so the task tree
 * is the same in every run: 8 leaves, each three tasks deep, and 7 merges
 * (1, 2 and 4 at depths 0, 1 and 2 tasks). Every task's samples belong
 * under the path that created it, whichever thread ran it, with no frame
 * of the runtime's in between. The data is sorted for real and checked.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define LEAF     8
#define N        (8 * LEAF)

static uint64_t data[N], scratch[N];

NOINLINE static uint64_t sort_leaf(uint64_t *v, int n, uint64_t x)
{
  for (int i = 1; i < n; i++) {
    uint64_t key = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = key;
  }
  return knit_work(x + v[0], 2);
}

NOINLINE static uint64_t merge_halves(uint64_t *v, uint64_t *tmp, int n, uint64_t x)
{
  int half = n / 2, i = 0, j = half, k = 0;
  while (i < half && j < n)
    tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
  while (i < half)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, (size_t)n * sizeof *v);
  return knit_work(x + v[n - 1], 1);
}

NOINLINE static uint64_t sort_range(uint64_t *v, uint64_t *tmp, int n, int depth, uint64_t x)
{
  if (n <= LEAF)
    return sort_leaf(v, n, x);
  int half = n / 2;
  uint64_t a = 0, b = 0;
  if (depth % 2 == 0) {
#pragma omp taskgroup
    {
#pragma omp task shared(a)
      a = sort_range(v, tmp, half, depth + 1, x + 1);
#pragma omp task shared(b)
      b = sort_range(v + half, tmp + half, n - half, depth + 1, x + 2);
    }
  } else {
#pragma omp task shared(a)
    a = sort_range(v, tmp, half, depth + 1, x + 1);
#pragma omp task shared(b)
    b = sort_range(v + half, tmp + half, n - half, depth + 1, x + 2);
#pragma omp taskwait
  }
  return merge_halves(v, tmp, n, a ^ (b << 1));
}

NOINLINE static uint64_t start_sort(uint64_t seed)
{
  uint64_t r = 0;
#pragma omp parallel
  {
#pragma omp single
    r = sort_range(data, scratch, N, 0, seed);
  }
  return r;
}

NOINLINE static uint64_t run_sort(uint64_t seed)
{
  /* A fixed shuffle of 0..N-1, different each round. */
  for (int i = 0; i < N; i++)
    data[i] = (uint64_t)((i * 37 + (int)(seed & 15)) % N);
  uint64_t r = start_sort(seed);
  for (int i = 0; i < N; i++)
    if (data[i] != (uint64_t)i) {
      fprintf(stderr, "task_sort: not sorted at %d\n", i);
      exit(1);
    }
  return r + 1;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t x = 3;
  for (int r = 0; r < rounds; r++)
    x = run_sort(x);
  printf("task_sort: %d rounds on %d threads, checksum %016llx\n", rounds, omp_get_max_threads(),
         (unsigned long long)x);
  return 0;
}
