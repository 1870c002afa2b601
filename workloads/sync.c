/* sync: every synchronization entry point knit wraps on GNU libgomp, with
 * its results checked, so that a run under knit (sampled often) can show
 * that the wrappers change nothing the program sees.
 *
 *   sync [ROUNDS] [old]
 *
 * Each round: omp locks (set, test, unset), nested locks, unnamed and named
 * critical sections, a reduction over two variables (merged under
 * GOMP_atomic_start/end), explicit barriers with explicit tasks that take a
 * lock while the others wait, a dynamic loop and sections (their implicit
 * barriers: GOMP_loop_end, GOMP_sections_end), the same in a region that
 * can be cancelled (the _cancel entry points), and a nested region.
 *
 * `old` also uses the nested-lock entry points of the first lock ABI
 * (symbol version OMP_1.0, an 8-byte lock that libgomp implements with
 * functions of its own): a call of the newer functions on it would write
 * past its end, into the canary beside it.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                          \
      fprintf(stderr, "sync: check failed at line %d: %s\n", __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

static omp_lock_t lock;
static omp_nest_lock_t nest;

static void locks(void)
{
  long counter = 0, nested = 0;
  int tests = 0;
#pragma omp parallel num_threads(NT)
  {
    for (int i = 0; i < 200; i++) {
      omp_set_lock(&lock);
      counter++;
      omp_unset_lock(&lock);
      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      if (omp_test_nest_lock(&nest) == 3)
        nested++;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);
      if (omp_test_lock(&lock)) {
        tests++;
        omp_unset_lock(&lock);
      }
    }
  }
  CHECK(counter == NT * 200);
  CHECK(nested == NT * 200);
  CHECK(tests > 0);
  CHECK(omp_test_nest_lock(&nest) == 1);
  omp_unset_nest_lock(&nest);
}

/* A named critical section inside the unnamed one (two mutexes held at
 * once), in a region whose reduction over two variables merges under
 * GOMP_atomic_start/end. */
static void critical_atomic(void)
{
  long a = 0, b = 0, c = 0, d = 0;
#pragma omp parallel num_threads(NT) reduction(+ : c, d)
  {
    for (int i = 0; i < 200; i++) {
#pragma omp critical
      {
        a++;
#pragma omp critical(sync_named)
        b += 2;
      }
    }
    c += omp_get_thread_num();
    d += 1;
  }
  CHECK(a == NT * 200 && b == NT * 400);
  CHECK(c == NT * (NT - 1) / 2 && d == NT);
}

/* Barriers, the implicit ones of a dynamic loop and of sections, and tasks
 * that the waiting threads run inside a barrier. */
static void barriers(void)
{
  int seen[NT] = {0};
  long tasks_done = 0;
  int hits[64] = {0};
  int sections = 0;
  int ok = 1;
#pragma omp parallel num_threads(NT)
  {
    int me = omp_get_thread_num();
    __atomic_store_n(&seen[me], 1, __ATOMIC_RELAXED);
#pragma omp barrier
    for (int i = 0; i < NT; i++) {
      if (!__atomic_load_n(&seen[i], __ATOMIC_RELAXED))
        __atomic_store_n(&ok, 0, __ATOMIC_RELAXED);
    }
#pragma omp single nowait
    for (int i = 0; i < 16; i++) {
#pragma omp task
      {
        omp_set_lock(&lock);
        tasks_done++;
        omp_unset_lock(&lock);
      }
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < 64; i++)
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp sections
    {
#pragma omp section
      __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
#pragma omp section
      __atomic_add_fetch(&sections, 10, __ATOMIC_RELAXED);
    }
  }
  CHECK(ok);
  CHECK(tasks_done == 16);
  for (int i = 0; i < 64; i++)
    CHECK(hits[i] == 1);
  CHECK(sections == 11);
}

/* The same constructs where cancellation may happen: gcc calls the _cancel
 * entry points (a cancellation never happens here; with
 * OMP_CANCELLATION=false, the default, it could not either). */
static void cancellable(void)
{
  int hits[64] = {0};
  int sections = 0, passed = 0;
#pragma omp parallel num_threads(NT)
  {
#pragma omp for schedule(dynamic, 5)
    for (int i = 0; i < 64; i++) {
      __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
#pragma omp cancel for if (i < 0)
    }
#pragma omp sections
    {
#pragma omp section
      {
        __atomic_add_fetch(&sections, 1, __ATOMIC_RELAXED);
#pragma omp cancel sections if (sections < 0)
      }
#pragma omp section
      __atomic_add_fetch(&sections, 10, __ATOMIC_RELAXED);
    }
#pragma omp barrier
    __atomic_add_fetch(&passed, 1, __ATOMIC_RELAXED);
#pragma omp cancel parallel if (passed < 0)
  }
  for (int i = 0; i < 64; i++)
    CHECK(hits[i] == 1);
  CHECK(sections == 11);
  CHECK(passed == NT);
}

static void nested_regions(void)
{
  long inner = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
#pragma omp critical
      inner++;
#pragma omp barrier
    }
  }
  CHECK(inner == 4);
}

/* The first lock ABI's nested locks: 8 bytes, owner and count. Referenced
 * weakly, so that runtimes without them (knit's mock) still load the
 * program; `old` then fails, since it asked for them. */
typedef struct old_nest_lock {
  int words[2];
} old_nest_lock;

extern void old_init_nest_lock(old_nest_lock *) __attribute__((weak));
extern void old_set_nest_lock(old_nest_lock *) __attribute__((weak));
extern int old_test_nest_lock(old_nest_lock *) __attribute__((weak));
extern void old_unset_nest_lock(old_nest_lock *) __attribute__((weak));
extern void old_destroy_nest_lock(old_nest_lock *) __attribute__((weak));
__asm__(".symver old_init_nest_lock, omp_init_nest_lock@OMP_1.0");
__asm__(".symver old_set_nest_lock, omp_set_nest_lock@OMP_1.0");
__asm__(".symver old_test_nest_lock, omp_test_nest_lock@OMP_1.0");
__asm__(".symver old_unset_nest_lock, omp_unset_nest_lock@OMP_1.0");
__asm__(".symver old_destroy_nest_lock, omp_destroy_nest_lock@OMP_1.0");

static void old_abi(void)
{
  if (!old_init_nest_lock || !old_set_nest_lock || !old_test_nest_lock || !old_unset_nest_lock ||
      !old_destroy_nest_lock) {
    CHECK(!"the runtime has the OMP_1.0 nested locks");
    return;
  }
  struct {
    old_nest_lock lock;
    unsigned char canary[16];
  } guarded;
  memset(&guarded, 0xa5, sizeof guarded);
  old_init_nest_lock(&guarded.lock);
  long count = 0;
#pragma omp parallel num_threads(NT)
  {
    for (int i = 0; i < 100; i++) {
      old_set_nest_lock(&guarded.lock);
      if (old_test_nest_lock(&guarded.lock) == 2)
        count++;
      old_unset_nest_lock(&guarded.lock);
      old_unset_nest_lock(&guarded.lock);
    }
  }
  old_destroy_nest_lock(&guarded.lock);
  CHECK(count == NT * 100);
  for (size_t i = 0; i < sizeof guarded.canary; i++)
    CHECK(guarded.canary[i] == 0xa5);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  int old = argc > 2 && strcmp(argv[2], "old") == 0;
  if (rounds <= 0) {
    fprintf(stderr, "usage: sync [ROUNDS] [old]\n");
    return 2;
  }
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  for (int r = 0; r < rounds; r++) {
    locks();
    critical_atomic();
    barriers();
    cancellable();
    nested_regions();
    if (old)
      old_abi();
  }
  omp_destroy_nest_lock(&nest);
  omp_destroy_lock(&lock);
  printf("sync: %d rounds%s, %d failed checks\n", rounds, old ? " (with the old nested locks)" : "",
         failures);
  return failures ? 1 : 0;
}
