/*
 * An OpenMP program for clang's __kmpc_* ABI whose every result is checked:
 * it must pass on the real LLVM libomp and on the mock Intel runtime alike.
 * omp_basic.c covers the constructs every ABI has; this file covers what
 * is particular to __kmpc_*: the variadic fork with 0..20 forwarded
 * pointers (the trampoline's register and stack arguments), static loops
 * computed by the runtime for every index type, ordered loops, masked,
 * blocking reductions and serialized (if(0)) regions.  Exit status 0 means
 * pass.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NT 4

/* Opaque to the optimizer, so captured values stay real arguments. */
static volatile long seed_source = 100;
static long seed;
static long global_total;

/*
 * Each region below captures a different number of variables, which clang
 * forwards through __kmpc_fork_call as that many pointers; the weights make
 * a dropped or permuted argument change the sum.
 */
/* No captured variable: argc 0. */
static void region_args_0(void)
{
  global_total = 0;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&global_total, 1, __ATOMIC_RELAXED);
  CHECK(global_total == NT);
}

/* 1 captured variable: argc 1. */
static void region_args_1(void)
{
  long total = 0;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (0L + 1));
}

/* 2 captured variables: argc 2. */
static void region_args_2(void)
{
  long total = 0;
  long v1 = seed + 1;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (101L + 1));
}

/* 3 captured variables: argc 3. */
static void region_args_3(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (305L + 1));
}

/* 4 captured variables: argc 4. */
static void region_args_4(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 3 * v3 + 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (614L + 1));
}

/* 5 captured variables: argc 5. */
static void region_args_5(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (1030L + 1));
}

/* 6 captured variables: argc 6. */
static void region_args_6(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4, v5 = seed + 5;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 5 * v5 + 1, __ATOMIC_RELAXED);
  CHECK(total == NT * (1555L + 1));
}

/* 7 captured variables: argc 7. */
static void region_args_7(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4, v5 = seed + 5, v6 = seed + 6;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 5 * v5 + 6 * v6 + 1,
                     __ATOMIC_RELAXED);
  CHECK(total == NT * (2191L + 1));
}

/* 8 captured variables: argc 8. */
static void region_args_8(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4, v5 = seed + 5, v6 = seed + 6,
       v7 = seed + 7;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total, 1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 5 * v5 + 6 * v6 + 7 * v7 + 1,
                     __ATOMIC_RELAXED);
  CHECK(total == NT * (2940L + 1));
}

/* 12 captured variables: argc 12. */
static void region_args_12(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4, v5 = seed + 5, v6 = seed + 6,
       v7 = seed + 7, v8 = seed + 8, v9 = seed + 9, v10 = seed + 10, v11 = seed + 11;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total,
                     1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 5 * v5 + 6 * v6 + 7 * v7 + 8 * v8 +
                         9 * v9 + 10 * v10 + 11 * v11 + 1,
                     __ATOMIC_RELAXED);
  CHECK(total == NT * (7106L + 1));
}

/* 20 captured variables: argc 20. */
static void region_args_20(void)
{
  long total = 0;
  long v1 = seed + 1, v2 = seed + 2, v3 = seed + 3, v4 = seed + 4, v5 = seed + 5, v6 = seed + 6,
       v7 = seed + 7, v8 = seed + 8, v9 = seed + 9, v10 = seed + 10, v11 = seed + 11,
       v12 = seed + 12, v13 = seed + 13, v14 = seed + 14, v15 = seed + 15, v16 = seed + 16,
       v17 = seed + 17, v18 = seed + 18, v19 = seed + 19;
#pragma omp parallel num_threads(NT)
  __atomic_add_fetch(&total,
                     1 * v1 + 2 * v2 + 3 * v3 + 4 * v4 + 5 * v5 + 6 * v6 + 7 * v7 + 8 * v8 +
                         9 * v9 + 10 * v10 + 11 * v11 + 12 * v12 + 13 * v13 + 14 * v14 + 15 * v15 +
                         16 * v16 + 17 * v17 + 18 * v18 + 19 * v19 + 1,
                     __ATOMIC_RELAXED);
  CHECK(total == NT * (21470L + 1));
}

static void test_forwarded_args(void)
{
  seed = seed_source;
  region_args_0();
  region_args_1();
  region_args_2();
  region_args_3();
  region_args_4();
  region_args_5();
  region_args_6();
  region_args_7();
  region_args_8();
  region_args_12();
  region_args_20();
}

/* Every index once, and lastprivate sees the last one. */
#define STATIC_LOOP_CHECK(type, sched, n)                                                          \
  do {                                                                                             \
    memset(hits, 0, sizeof hits);                                                                  \
    type last = (type)-1;                                                                          \
    _Pragma("omp parallel num_threads(NT)")                                                        \
    {                                                                                              \
      _Pragma(sched) for (type i = 0; i < (type)(n); i++)                                          \
      {                                                                                            \
        __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);                                         \
        last = i;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    for (long k = 0; k < (long)(n); k++)                                                           \
      CHECK(hits[k] == 1);                                                                         \
    if ((n) > 0)                                                                                   \
      CHECK(last == (type)((n)-1));                                                                \
  } while (0)

static void test_static_loops(void)
{
  static int hits[1024];
  static const long trips[] = {0, 1, 2, 3, NT - 1, NT, NT + 1, 97, 1000};
  for (size_t t = 0; t < sizeof trips / sizeof trips[0]; t++) {
    long n = trips[t];
    STATIC_LOOP_CHECK(int, "omp for schedule(static) lastprivate(last)", n);
    STATIC_LOOP_CHECK(int, "omp for schedule(static, 3) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned, "omp for schedule(static) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned, "omp for schedule(static, 5) lastprivate(last)", n);
    STATIC_LOOP_CHECK(long, "omp for schedule(static) lastprivate(last)", n);
    STATIC_LOOP_CHECK(long, "omp for schedule(static, 2) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned long, "omp for schedule(static) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned long, "omp for schedule(static, 7) lastprivate(last)", n);
    /*
     * Dispatched loops too, all monotonic: LLVM libomp 14's nonmonotonic
     * dispatch (chunk stealing, clang's default for dynamic) sometimes
     * loses the last-iteration flag, so lastprivate keeps its old value.
     * omp_basic.c covers nonmonotonic dispatch without lastprivate.
     */
    STATIC_LOOP_CHECK(int, "omp for schedule(monotonic : dynamic, 3) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned, "omp for schedule(guided) lastprivate(last)", n);
    STATIC_LOOP_CHECK(long, "omp for schedule(monotonic : dynamic, 3) lastprivate(last)", n);
    STATIC_LOOP_CHECK(unsigned long, "omp for schedule(monotonic : dynamic) lastprivate(last)", n);
  }

  /* Unchunked static splits into contiguous, balanced blocks. */
  int owner[100];
#pragma omp parallel num_threads(NT)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < 100; i++)
      owner[i] = omp_get_thread_num();
  }
  for (int i = 1; i < 100; i++)
    CHECK(owner[i] == owner[i - 1] || owner[i] == owner[i - 1] + 1);
  CHECK(owner[0] == 0 && owner[99] == NT - 1);

  /* Negative steps, a collapsed nest and a combined parallel for. */
  long sum = 0;
#pragma omp parallel for num_threads(NT) schedule(static, 4) reduction(+ : sum)
  for (int i = 300; i > -300; i -= 7)
    sum += i;
  long want = 0;
  for (int i = 300; i > -300; i -= 7)
    want += i;
  CHECK(sum == want);
  memset(hits, 0, sizeof hits);
#pragma omp parallel for collapse(2) num_threads(NT)
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 30; j++)
      __atomic_add_fetch(&hits[i * 30 + j], 1, __ATOMIC_RELAXED);
  for (int k = 0; k < 900; k++)
    CHECK(hits[k] == 1);
}

/* Ordered regions run in iteration order, whoever runs the iteration. */
static void test_ordered(void)
{
  static int seq[300];
  int pos = 0;
#pragma omp parallel num_threads(NT)
  {
#pragma omp for ordered schedule(dynamic)
    for (int i = 0; i < 100; i++) {
#pragma omp ordered
      seq[pos++] = i;
    }
#pragma omp for ordered schedule(static, 3)
    for (int i = 100; i < 200; i++) {
#pragma omp ordered
      seq[pos++] = i;
    }
    /* Iterations without an ordered region must not hold up the rest. */
#pragma omp for ordered schedule(static)
    for (int i = 200; i < 300; i++) {
      if (i % 3 == 0)
        continue;
#pragma omp ordered
      seq[pos++] = i;
    }
  }
  int k = 0;
  for (int i = 0; i < 300; i++) {
    if (i >= 200 && i % 3 == 0)
      continue;
    CHECK(seq[k] == i);
    if (seq[k] != i)
      break;
    k++;
  }
  CHECK(pos == k);
}

static void test_masked_master_single(void)
{
  int masters = 0, masked = 0, singles = 0;
#pragma omp parallel num_threads(NT)
  {
    int copy = -1;
#pragma omp master
    masters += omp_get_thread_num() == 0;
#pragma omp masked filter(1)
    masked += omp_get_thread_num() == 1;
#pragma omp barrier
#pragma omp single copyprivate(copy)
    {
      singles++;
      copy = 42;
    }
    if (copy != 42)
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  }
  CHECK(masters == 1);
  CHECK(masked == 1);
  CHECK(singles == 1);
}

static void test_reductions(void)
{
  long sum = 0, prod = 1;
  int mx = -1, mn = 1 << 30;
#pragma omp parallel num_threads(NT)
  {
    /* Blocking (__kmpc_reduce): the results are complete after the loop. */
#pragma omp for reduction(+ : sum) reduction(max : mx) reduction(min : mn)
    for (int i = 0; i < 1000; i++) {
      sum += i;
      mx = i > mx ? i : mx;
      mn = i < mn ? i : mn;
    }
    if (sum != 499500 || mx != 999 || mn != 0)
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
#pragma omp for reduction(* : prod) nowait
    for (int i = 1; i <= 10; i++)
      prod *= i;
  }
  CHECK(sum == 499500 && mx == 999 && mn == 0);
  CHECK(prod == 3628800);
}

/* if(0) and if(false at run time): the program calls the body itself. */
static void test_serialized(int cond)
{
  int size = -1, level = -1, active = -1, inner = -1;
  long s = 0;
#pragma omp parallel if (0)
  {
    size = omp_get_num_threads();
    level = omp_get_level();
    active = omp_in_parallel();
#pragma omp parallel if (cond)
    inner = omp_get_level();
#pragma omp for reduction(+ : s)
    for (int i = 0; i < 10; i++)
      s += i;
#pragma omp barrier
  }
  CHECK(size == 1 && level == 1 && active == 0);
  CHECK(inner == 2);
  CHECK(s == 45);
  /* The same region with the condition true afterwards is a real team. */
  int n = 0;
#pragma omp parallel if (!cond) num_threads(NT)
  __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
  CHECK(n == NT);
  CHECK(omp_get_level() == 0);
}

int main(int argc, char **argv)
{
  (void)argv;
  test_forwarded_args();
  test_static_loops();
  test_ordered();
  test_masked_master_single();
  test_reductions();
  test_serialized(argc > 100);
  if (failures) {
    fprintf(stderr, "kmpc_basic: %d failure(s)\n", failures);
    return 1;
  }
  printf("kmpc_basic: all checks passed\n");
  return 0;
}
