/*
 * Non-task constructs whose every result is checked, on the mocks and on
 * the real runtimes alike (gcc: mock-gomp and libgomp; clang: mock-intel,
 * mock-pgi and libomp): ordered loops of every schedule, sections, single
 * with copyprivate, named critical sections, reductions, cancellation of
 * parallel, for and sections (OMP_CANCELLATION=true, set by the test) and
 * nested regions two levels deep with two threads each.
 *
 * Usage: omp_constructs            (the tests; exit 0 pass, 77 skip)
 *        omp_constructs --list     (OMP_NUM_THREADS=4,2: the list's levels)
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define N  200
#define NT 4

static void test_ordered(void)
{
  long next = 0, bad = 0;
#pragma omp parallel num_threads(NT)
  {
#pragma omp for ordered schedule(dynamic, 3)
    for (int i = 0; i < N; i++) {
#pragma omp ordered
      bad += next++ != i;
    }
#pragma omp for ordered schedule(static)
    for (int i = 0; i < N; i++) {
#pragma omp ordered
      bad += next++ != N + i;
    }
#pragma omp for ordered schedule(guided, 2)
    for (int i = 0; i < N; i++) {
      /* Iterations without an ordered region must not hold up the rest. */
      if (i % 3 == 0) {
#pragma omp ordered
        bad += (next++ - 2 * N) != i / 3;
      }
    }
  }
  CHECK(bad == 0);
  CHECK(next == 2 * N + (N + 2) / 3);
  next = 0;
  bad = 0;
#pragma omp parallel for ordered schedule(runtime) num_threads(NT)
  for (int i = N; i > 0; i--) {
#pragma omp ordered
    bad += next++ != N - i;
  }
  CHECK(bad == 0 && next == N);
}

static void test_sections_single(void)
{
  int sec[4] = {0, 0, 0, 0}, copied[NT], execs = 0;
  memset(copied, 0, sizeof copied);
#pragma omp parallel num_threads(NT)
  {
#pragma omp sections
    {
#pragma omp section
      sec[0]++;
#pragma omp section
      sec[1]++;
#pragma omp section
      sec[2]++;
#pragma omp section
      sec[3]++;
    }
    int value;
#pragma omp single copyprivate(value)
    {
      value = 4242;
      execs++;
    }
    copied[omp_get_thread_num()] = value;
  }
  for (int i = 0; i < 4; i++)
    CHECK(sec[i] == 1);
  CHECK(execs == 1);
  for (int i = 0; i < NT; i++)
    CHECK(copied[i] == 4242);
}

static void test_critical_reduction(void)
{
  long a = 0, b = 0, sum = 0, prod = 1;
  int max = -1;
#pragma omp parallel num_threads(NT) reduction(+ : sum) reduction(max : max)
  {
    for (int i = 0; i < 100; i++) {
#pragma omp critical(alpha)
      a++;
#pragma omp critical(beta)
      b += 2;
    }
    sum += omp_get_thread_num();
    max = omp_get_thread_num() > max ? omp_get_thread_num() : max;
  }
  CHECK(a == 100L * NT && b == 200L * NT);
  CHECK(sum == NT * (NT - 1) / 2);
  CHECK(max == NT - 1);
#pragma omp parallel for num_threads(NT) schedule(dynamic, 5) reduction(* : prod)
  for (int i = 1; i <= 20; i++)
    prod *= (i % 3 == 0) ? 2 : 1;
  CHECK(prod == 64);
}

static void test_cancel(void)
{
  int after_cancel = 0, skipped = 0, done = 0, sec_after = 0;
  /* cancel parallel: the cancelling thread leaves at once, the others at a cancellation point. */
#pragma omp parallel num_threads(NT)
  {
    if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
      __atomic_add_fetch(&after_cancel, 1, __ATOMIC_RELAXED);
    }
    for (long spin = 0; spin < 200000000L; spin++) {
#pragma omp cancellation point parallel
    }
    __atomic_add_fetch(&skipped, 1, __ATOMIC_RELAXED);
  }
  CHECK(after_cancel == 0);
  CHECK(skipped == 0);

  /* cancel for: the thread that cancels runs no more iterations. */
  after_cancel = 0;
#pragma omp parallel num_threads(NT)
  {
    int cancelled_here = 0;
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < N; i++) {
      if (cancelled_here)
        __atomic_add_fetch(&after_cancel, 1, __ATOMIC_RELAXED);
      cancelled_here |= i == 7;
#pragma omp cancel for if (i == 7)
    }
    __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
  }
  CHECK(after_cancel == 0);
  CHECK(done == NT);

  /* cancel sections: the rest of the cancelling section is skipped. */
#pragma omp parallel num_threads(NT)
  {
#pragma omp sections
    {
#pragma omp section
      {
#pragma omp cancel sections
        __atomic_add_fetch(&sec_after, 1, __ATOMIC_RELAXED);
      }
#pragma omp section
      {
      }
    }
  }
  CHECK(sec_after == 0);
}

static void test_nested(void)
{
  int levels_bad = 0, count = 0, ids[2][2];
  memset(ids, -1, sizeof ids);
  omp_set_max_active_levels(2);
  CHECK(omp_get_max_active_levels() == 2);
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
    {
      int me = omp_get_thread_num();
      if (omp_get_num_threads() != 2 || omp_get_level() != 2 || omp_get_active_level() != 2 ||
          omp_get_ancestor_thread_num(1) != outer || omp_get_ancestor_thread_num(2) != me ||
          omp_get_ancestor_thread_num(0) != 0 || omp_get_team_size(1) != 2 ||
          omp_get_team_size(2) != 2 || omp_get_team_size(0) != 1)
        __atomic_add_fetch(&levels_bad, 1, __ATOMIC_RELAXED);
      if (outer >= 0 && outer < 2 && me >= 0 && me < 2)
        ids[outer][me] = outer * 2 + me;
#pragma omp for schedule(dynamic)
      for (int i = 0; i < 10; i++)
        __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(levels_bad == 0);
  CHECK(count == 20);
  for (int o = 0; o < 2; o++)
    for (int m = 0; m < 2; m++)
      CHECK(ids[o][m] == o * 2 + m);
  /* One active level: the inner region is a team of one. */
  omp_set_max_active_levels(1);
  int inner = -1;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      if (omp_get_ancestor_thread_num(1) == 0)
        inner = omp_get_num_threads() * 10 + omp_get_active_level();
    }
  }
  CHECK(inner == 11);
}

/* OMP_NUM_THREADS=4,2: four threads at level 1, two at level 2, nesting allowed by the list. */
static int test_list(void)
{
  int outer = 0, inner_bad = 0, inner = 0;
#pragma omp parallel
  {
    __atomic_add_fetch(&outer, 1, __ATOMIC_RELAXED);
#pragma omp parallel
    {
      if (omp_get_num_threads() != 2)
        __atomic_add_fetch(&inner_bad, 1, __ATOMIC_RELAXED);
      __atomic_add_fetch(&inner, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(outer == 4);
  CHECK(inner_bad == 0 && inner == 8);
  return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--list") == 0)
    return test_list();
  if (!omp_get_cancellation()) {
    fprintf(stderr, "omp_constructs: skipped: cancellation is off (set OMP_CANCELLATION=true)\n");
    return 77;
  }
  test_ordered();
  test_sections_single();
  test_critical_reduction();
  test_cancel();
  test_nested();
  return failures ? 1 : 0;
}
