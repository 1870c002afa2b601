/*
 * Doacross loops (ordered(n) with depend(sink:) and depend(source)), with
 * results checked: chains and wavefronts whose values prove the order,
 * every schedule, a down-counting loop, sinks outside the iteration space
 * (ignored), unsigned 64-bit loops with bounds known only at run time (gcc
 * then calls the ull entry points), nowait loops back to back, and more
 * loops in a row than the runtime has worksharing slots.  After each sink
 * the iterations it names must have posted.
 *
 * Built by gcc (GOMP_* ABI) and by clang (__kmpc_* ABI); run on the mocks
 * and on the real runtimes with the same expectations.  The program is its
 * own OMPT tool: where a runtime activates it, the dependences events of
 * the doacross constructs are counted (one per depend(source) and one per
 * depend(sink:) inside the space, as libomp 14 dispatches them).  With
 * --wait-state (the mocks), a thread blocked in a sink is sampled by a
 * signal and must report ompt_state_wait_ordered with a wait id and an
 * enter frame.  Exit status 0 means every check passed.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int posted_1d(const int *posted, long i)
{
  return __atomic_load_n(&posted[i], __ATOMIC_ACQUIRE);
}

static void post_1d(int *posted, long i)
{
  __atomic_store_n(&posted[i], 1, __ATOMIC_RELEASE);
}

/* ---- the OMPT side: dependences events, and sampling a waiting thread ---- */

static int tool_on;
static long n_source, n_sink, n_bad_dep;
static ompt_get_state_t get_state;
static ompt_get_task_info_t get_task_info;

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
  (void)task;
  if (ndeps < 1) {
    __atomic_add_fetch(&n_bad_dep, 1, __ATOMIC_RELAXED);
    return;
  }
  if (deps[0].dependence_type == ompt_dependence_type_source)
    __atomic_add_fetch(&n_source, 1, __ATOMIC_RELAXED);
  else if (deps[0].dependence_type == ompt_dependence_type_sink)
    __atomic_add_fetch(&n_sink, 1, __ATOMIC_RELAXED);
  for (int i = 1; i < ndeps; i++) {
    if (deps[i].dependence_type != deps[0].dependence_type)
      __atomic_add_fetch(&n_bad_dep, 1, __ATOMIC_RELAXED);
  }
}

static int tool_init(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
  (void)initial_device;
  (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_state = (ompt_get_state_t)lookup("ompt_get_state");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  if (set_callback(ompt_callback_dependences, (ompt_callback_t)on_dependences) == ompt_set_always)
    tool_on = 1;
  return 1;
}

static void tool_fini(ompt_data_t *tool_data)
{
  (void)tool_data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_init, tool_fini, {0}};
  (void)omp_version;
  (void)runtime_version;
  return &result;
}

/* What the sampled thread saw: its state, whether it had a wait id and an enter frame. */
static volatile int sampled_state = -1, sampled_wait_id, sampled_enter_frame;

static void on_sample(int sig)
{
  ompt_wait_id_t wid = 0;
  int flags = 0;
  ompt_frame_t *frame = NULL;
  (void)sig;
  if (!get_state)
    return;
  int state = get_state(&wid);
  sampled_wait_id = wid != 0;
  sampled_enter_frame = get_task_info && get_task_info(0, &flags, NULL, &frame, NULL, NULL) == 2 &&
                        frame && frame->enter_frame.ptr != NULL;
  __atomic_store_n(&sampled_state, state, __ATOMIC_RELEASE);
}

/*
 * Iteration 5's thread signals iteration 6's, which waits in its sink for
 * iteration 5, until the sample says wait_ordered (at most 5 s: a thread
 * that has not reached its wait yet reports its work state), then posts.
 */
static void test_wait_state(void)
{
  static pthread_t waiter;
  static int waiter_known;
  int posted[16] = {0};
  int seen = 0;
  signal(SIGUSR1, on_sample);
#pragma omp parallel num_threads(2)
#pragma omp for ordered(1) schedule(static, 1)
  for (int i = 0; i < 16; i++) {
    if (i == 6) {
      waiter = pthread_self();
      __atomic_store_n(&waiter_known, 1, __ATOMIC_RELEASE);
    }
#pragma omp ordered depend(sink : i - 1)
    if (i > 0)
      CHECK(posted_1d(posted, i - 1));
    if (i == 5 && omp_get_num_threads() < 2) {
      seen = sampled_wait_id = sampled_enter_frame =
          1; /* no other thread to wait: nothing to see */
    } else if (i == 5) {
      while (!__atomic_load_n(&waiter_known, __ATOMIC_ACQUIRE))
        pause_us(100);
      for (int tries = 0; tries < 500 && !seen; tries++) {
        __atomic_store_n(&sampled_state, -1, __ATOMIC_RELEASE);
        pthread_kill(waiter, SIGUSR1);
        for (int w = 0; w < 1000 && __atomic_load_n(&sampled_state, __ATOMIC_ACQUIRE) == -1; w++)
          pause_us(10);
        seen = __atomic_load_n(&sampled_state, __ATOMIC_ACQUIRE) == ompt_state_wait_ordered;
        if (!seen)
          pause_us(10000);
      }
    }
    post_1d(posted, i);
#pragma omp ordered depend(source)
  }
  CHECK(seen);
  CHECK(sampled_wait_id);
  CHECK(sampled_enter_frame);
  signal(SIGUSR1, SIG_DFL);
}

/* ---- the constructs ---- */

#define N1 200

/* A chain: each iteration needs the one before; one loop per schedule. */
static void test_chain(void)
{
  static long a[N1];
  static int posted[N1];
#define CHAIN_LOOP(sched)                                                                          \
  do {                                                                                             \
    memset(a, 0, sizeof a);                                                                        \
    memset(posted, 0, sizeof posted);                                                              \
    a[0] = 1;                                                                                      \
    _Pragma("omp parallel") _Pragma(sched) for (int i = 1; i < N1; i++)                            \
    {                                                                                              \
      _Pragma("omp ordered depend(sink : i - 1)") CHECK(i == 1 || posted_1d(posted, i - 1));       \
      a[i] = a[i - 1] + i;                                                                         \
      post_1d(posted, i);                                                                          \
      _Pragma("omp ordered depend(source)")                                                        \
    }                                                                                              \
    CHECK(a[N1 - 1] == 1 + (long)(N1 - 1) * N1 / 2);                                               \
  } while (0)
  CHAIN_LOOP("omp for ordered(1)");
  CHAIN_LOOP("omp for ordered(1) schedule(static, 3)");
  CHAIN_LOOP("omp for ordered(1) schedule(dynamic)");
  CHAIN_LOOP("omp for ordered(1) schedule(dynamic, 7)");
  CHAIN_LOOP("omp for ordered(1) schedule(guided)");
  CHAIN_LOOP("omp for ordered(1) schedule(runtime)");
#undef CHAIN_LOOP
}

/* A down-counting loop: the iteration before i is i + 3; i = 100 has none. */
static void test_down(void)
{
  static long v[101];
  memset(v, 0, sizeof v);
#pragma omp parallel
#pragma omp for ordered(1) schedule(dynamic, 2)
  for (long i = 100; i > 0; i -= 3) {
#pragma omp ordered depend(sink : i + 3)
    v[i] = (i + 3 <= 100 ? v[i + 3] : 0) + 1;
#pragma omp ordered depend(source)
  }
  CHECK(v[1] == 34); /* 100, 97, ..., 1: 34 iterations */
}

#define NI 12
#define NJ 15

/*
 * A wavefront: b[i][j] = b[i-1][j] + b[i][j-1] (1 on the edges) is the
 * binomial coefficient C(i + j, i); the sink (i, j - 1) at j = 0 lies
 * outside the space and must be ignored.  Under gcc a third sink,
 * (i - 1, j + 1), reaches past the last column at j = NJ - 1, where it
 * must be ignored too.  Not under clang: clang 14 passes each dimension's
 * trip count where libomp 14 reads the last value (kmp_dim.up), so on the
 * real libomp (and on the mocks, which read it the same way) such a sink
 * waits for an iteration that never comes.
 */
#ifdef __clang__
#define WAVE_DIAG  0
#define WAVE_SINKS depend(sink : i - 1, j) depend(sink : i, j - 1)
#else
#define WAVE_DIAG  1
#define WAVE_SINKS depend(sink : i - 1, j) depend(sink : i, j - 1) depend(sink : i - 1, j + 1)
#endif
#define PRAGMA(x)            _Pragma(#x)
#define ORDERED_SINKS(sinks) PRAGMA(omp ordered sinks)

static void test_wavefront(void)
{
  static long b[NI][NJ];
  static int done[NI][NJ];
  memset(b, 0, sizeof b);
  memset(done, 0, sizeof done);
#pragma omp parallel
#pragma omp for ordered(2) schedule(dynamic)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      ORDERED_SINKS(WAVE_SINKS)
      if (i > 0)
        CHECK(__atomic_load_n(&done[i - 1][j], __ATOMIC_ACQUIRE));
      if (j > 0)
        CHECK(__atomic_load_n(&done[i][j - 1], __ATOMIC_ACQUIRE));
      if (WAVE_DIAG && i > 0 && j + 1 < NJ)
        CHECK(__atomic_load_n(&done[i - 1][j + 1], __ATOMIC_ACQUIRE));
      b[i][j] = (i > 0 && j > 0) ? b[i - 1][j] + b[i][j - 1] : 1;
      __atomic_store_n(&done[i][j], 1, __ATOMIC_RELEASE);
#pragma omp ordered depend(source)
    }
  /* C(25, 11) */
  CHECK(b[NI - 1][NJ - 1] == 4457400);
}

/* Unsigned 64-bit, bounds from the run time (gcc: the ull entry points). */
static void test_ull(unsigned long long lo, unsigned long long hi)
{
  static unsigned long long u[64];
  memset(u, 0, sizeof u);
#pragma omp parallel
#pragma omp for ordered(1) schedule(static, 2)
  for (unsigned long long i = lo; i < hi; i++) {
#pragma omp ordered depend(sink : i - 1)
    u[i] = (i > lo ? u[i - 1] : 0) + i;
#pragma omp ordered depend(source)
  }
  CHECK(u[hi - 1] == (hi - 1) * hi / 2 - (lo - 1) * lo / 2);
}

/* nowait loops back to back, then more loops in a row than the mock has slots. */
static void test_many(void)
{
  static long c[40];
  long sums[3 + 20] = {0};
#pragma omp parallel
  {
    for (int k = 0; k < 3 + 20; k++) {
      if (k < 3) {
#pragma omp for ordered(1) schedule(dynamic) nowait
        for (int i = 1; i < 40; i++) {
#pragma omp ordered depend(sink : i - 1)
          c[i] = (i > 1 ? c[i - 1] : 0) + 1;
          if (i == 39)
            sums[k] = c[i];
#pragma omp ordered depend(source)
        }
        /* The next loop rewrites c: wait for everyone first. */
#pragma omp barrier
      } else {
#pragma omp for ordered(1) schedule(static, 1)
        for (int i = 1; i < 40; i++) {
#pragma omp ordered depend(sink : i - 1)
          c[i] = (i > 1 ? c[i - 1] : k) + 1;
          if (i == 39)
            sums[k] = c[i];
#pragma omp ordered depend(source)
        }
      }
    }
  }
  for (int k = 0; k < 3 + 20; k++)
    CHECK(sums[k] == (k < 3 ? 39 : k + 39));
}

int main(int argc, char **argv)
{
  int wait_state = argc > 1 && strcmp(argv[1], "--wait-state") == 0;
  test_chain();
  test_down();
  test_wavefront();
  test_ull(strtoull("1", NULL, 10), strtoull("60", NULL, 10));
  test_many();
  if (tool_on) {
    /* Every iteration but the first of a chain posts and waits once. */
    long src = __atomic_load_n(&n_source, __ATOMIC_RELAXED);
    long snk = __atomic_load_n(&n_sink, __ATOMIC_RELAXED);
    long want_src = 6 * (N1 - 1) + 34 + NI * NJ + 59 + 23 * 39;
    /* Sinks inside the space: chains (first iteration's is outside), down,
     * wavefront's three kinds, ull, many. */
    long want_snk = 6 * (N1 - 2) + 33 +
                    ((NI - 1) * NJ + NI * (NJ - 1) + WAVE_DIAG * (NI - 1) * (NJ - 1)) + 58 +
                    23 * 38;
    if (src != want_src || snk != want_snk)
      fprintf(stderr, "dependences: %ld source (want %ld), %ld sink (want %ld)\n", src, want_src,
              snk, want_snk);
    CHECK(src == want_src);
    CHECK(snk == want_snk);
    CHECK(n_bad_dep == 0);
  }
  if (wait_state)
    test_wait_state();
  printf("omp_doacross: %s (%s)\n", failures ? "FAILED" : "ok",
         tool_on ? "dependences events counted" : "no OMPT dependences");
  return failures != 0;
}
