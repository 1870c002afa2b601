/*
 * An OpenMP program whose every result is checked: it must pass on the real
 * libgomp and on the mock GNU runtime alike.  Exit status 0 means pass.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N  1000
#define NT 4

static void test_queries(void)
{
  CHECK(omp_get_num_threads() == 1);
  CHECK(omp_get_thread_num() == 0);
  CHECK(!omp_in_parallel());
  CHECK(omp_get_level() == 0);
  CHECK(omp_get_num_procs() >= 1);
  CHECK(omp_get_max_threads() == NT); /* OMP_NUM_THREADS is set by the test */
  CHECK(omp_get_wtick() > 0.0 && omp_get_wtick() < 1.0);
  double t0 = omp_get_wtime();
  CHECK(t0 > 0.0);
  CHECK(omp_get_wtime() >= t0);
  omp_set_dynamic(1);
  CHECK(omp_get_dynamic() == 1);
  omp_set_dynamic(0);
  CHECK(omp_get_dynamic() == 0);
}

static void test_parallel(void)
{
  int seen[NT];
  int count = 0;
  memset(seen, 0, sizeof seen);
#pragma omp parallel num_threads(NT)
  {
    int me = omp_get_thread_num();
    if (me >= 0 && me < NT)
      __atomic_add_fetch(&seen[me], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    if (omp_get_num_threads() != NT || !omp_in_parallel() || omp_get_level() != 1)
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    if (omp_get_team_size(1) != NT || omp_get_ancestor_thread_num(1) != me ||
        omp_get_ancestor_thread_num(0) != 0)
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  }
  CHECK(count == NT);
  for (int i = 0; i < NT; i++)
    CHECK(seen[i] == 1);

  /* The default team size comes from OMP_NUM_THREADS; set_num_threads overrides. */
  int size = 0;
#pragma omp parallel
  {
#pragma omp master
    size = omp_get_num_threads();
  }
  CHECK(size == NT);
  omp_set_num_threads(2);
#pragma omp parallel
  {
#pragma omp master
    size = omp_get_num_threads();
  }
  CHECK(size == 2);
  omp_set_num_threads(NT);

  /* Many short regions exercise the reuse of pooled workers. */
  long sum = 0;
  for (int r = 0; r < 200; r++) {
#pragma omp parallel num_threads(NT)
    __atomic_add_fetch(&sum, omp_get_thread_num() + 1, __ATOMIC_RELAXED);
  }
  CHECK(sum == 200L * (NT * (NT + 1) / 2));
}

static void test_nested(void)
{
  int inner_size = -1, inner_level = -1, outer = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_ancestor_thread_num(1) == 0 && omp_get_thread_num() == 0) {
        inner_size = omp_get_num_threads();
        inner_level = omp_get_level();
      }
    }
    __atomic_add_fetch(&outer, 1, __ATOMIC_RELAXED);
  }
  CHECK(outer == 2);
  CHECK(inner_level == 2);
  CHECK(inner_size >= 1 && inner_size <= 2);
}

static void test_barrier(void)
{
  int phase1[NT], ok = 1;
#pragma omp parallel num_threads(NT)
  {
    int me = omp_get_thread_num();
    for (int round = 0; round < 50; round++) {
      phase1[me] = round;
#pragma omp barrier
      for (int i = 0; i < NT; i++) {
        if (phase1[i] != round)
          __atomic_store_n(&ok, 0, __ATOMIC_RELAXED);
      }
#pragma omp barrier
    }
  }
  CHECK(ok);
}

static void test_critical_atomic(void)
{
  long a = 0, b = 0, c = 0, d = 0;
#pragma omp parallel num_threads(NT)
  {
    for (int i = 0; i < 1000; i++) {
#pragma omp critical
      a++;
#pragma omp critical(other)
      b += 2;
    }
  }
  CHECK(a == NT * 1000);
  CHECK(b == NT * 2000);
  /*
   * A reduction over two variables merges under GOMP_atomic_start/end on
   * every ISA.  (An atomic on long double would too on x86-64, but on
   * ppc64le gcc open-codes a 16-byte CAS loop that hangs under qemu, on the
   * real libgomp as well.)
   */
#pragma omp parallel num_threads(NT) reduction(+ : c, d)
  {
    c += omp_get_thread_num();
    d += 1;
  }
  CHECK(c == NT * (NT - 1) / 2);
  CHECK(d == NT);
}

static void test_locks(void)
{
  omp_lock_t lock;
  omp_nest_lock_t nest;
  long counter = 0, nested = 0;
  int tests = 0;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  CHECK(omp_test_lock(&lock) == 1);
  CHECK(omp_test_lock(&lock) == 0);
  omp_unset_lock(&lock);
#pragma omp parallel num_threads(NT)
  {
    for (int i = 0; i < 500; i++) {
      omp_set_lock(&lock);
      counter++;
      omp_unset_lock(&lock);
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      nested++;
      if (omp_test_nest_lock(&nest) == 3)
        tests++;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
    }
  }
  CHECK(counter == NT * 500);
  CHECK(nested == NT * 500);
  CHECK(tests == NT * 500);
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
}

static void test_loops(void)
{
  static int hits[N];
  long sum = 0;

  memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(NT)
  {
#pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < N; i++)
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(monotonic : dynamic, 3) nowait
    for (int i = N - 1; i >= 0; i -= 2)
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(guided, 2)
    for (int i = 3; i < N; i += 3)
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(runtime) reduction(+ : sum)
    for (int i = 0; i < N; i++)
      sum += i;
  }
  for (int i = 0; i < N; i++) {
    int want = 1 + (i % 2 == (N - 1) % 2) + (i >= 3 && i % 3 == 0);
    CHECK(hits[i] == want);
    if (hits[i] != want)
      break;
  }
  CHECK(sum == (long)N * (N - 1) / 2);

  memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(dynamic) num_threads(NT)
  for (int i = 0; i < N; i++)
    __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(guided) num_threads(NT)
  for (int i = 0; i < N; i++)
    __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
  for (int i = 0; i < N; i++) {
    CHECK(hits[i] == 2);
    if (hits[i] != 2)
      break;
  }

  /* An orphaned loop outside any region runs on the initial thread alone. */
  long s2 = 0;
#pragma omp for schedule(dynamic, 5)
  for (int i = 0; i < 100; i++)
    s2 += i;
  CHECK(s2 == 4950);
}

static void test_single_sections(void)
{
  int singles = 0, nowaits = 0, sec[3] = {0, 0, 0}, psec[2] = {0, 0};
#pragma omp parallel num_threads(NT)
  {
    for (int r = 0; r < 20; r++) {
#pragma omp single
      singles++;
#pragma omp single nowait
      __atomic_add_fetch(&nowaits, 1, __ATOMIC_RELAXED);
    }
#pragma omp sections
    {
#pragma omp section
      sec[0]++;
#pragma omp section
      sec[1]++;
#pragma omp section
      sec[2]++;
    }
  }
  CHECK(singles == 20);
  CHECK(nowaits == 20);
  CHECK(sec[0] == 1 && sec[1] == 1 && sec[2] == 1);
#pragma omp parallel sections num_threads(NT)
  {
#pragma omp section
    psec[0]++;
#pragma omp section
    psec[1]++;
  }
  CHECK(psec[0] == 1 && psec[1] == 1);
}

int main(void)
{
  test_queries();
  test_parallel();
  test_nested();
  test_barrier();
  test_critical_atomic();
  test_locks();
  test_loops();
  test_single_sections();
  if (failures) {
    fprintf(stderr, "omp_basic: %d failure(s)\n", failures);
    return 1;
  }
  printf("omp_basic: all checks passed\n");
  return 0;
}
