/* task_abi: every way gcc hands a task to the runtime (GOMP_task,
 * GOMP_taskloop, GOMP_taskloop_ull, GOMP_taskwait, GOMP_taskgroup_end), with
 * the results checked, so that a run under knit (sampled often) shows that
 * knit's task wrappers on GNU libgomp change nothing the program sees.
 *
 *   task_abi [ROUNDS] [no-if0-copy]
 *
 * Each round: deferred tasks in a recursion, undeferred ones (if(0)),
 * final tasks and the tasks they include, firstprivate variables that gcc
 * copies with a copy function (a variable-length array), an over-aligned
 * one, one too large for a small block, depend clauses and priorities, a
 * detachable task, taskloops (with grainsize, a reduction, nogroup, an
 * unsigned long long bound, if(0), a variable-length array), a
 * taskgroup with a task reduction, and GOMP_task called directly with
 * blocks gcc seldom makes (plain bytes, large and over-aligned).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT       4
#define NOINLINE __attribute__((noinline))

static int failures;
/* Whether to create undeferred tasks whose block needs the program's copy
 * function: `no-if0-copy` leaves them out for LLVM's libomp 14, whose
 * GOMP_task runs such a task on the program's data uncopied (and crashes
 * on a variable-length array), with or without knit. */
static int if0_copies = 1;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                          \
      fprintf(stderr, "task_abi: check failed at line %d: %s\n", __LINE__, #cond);                 \
    }                                                                                              \
  } while (0)

/* Deferred tasks, recursively, with shared results and firstprivate
 * arguments. */
NOINLINE static long fib(int n)
{
  if (n < 2)
    return n;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(n)
  a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

/* The same, undeferred: each task runs at once, inside GOMP_task. */
NOINLINE static long fib_if0(int n)
{
  if (n < 2)
    return n;
  long a = 0, b = 0;
#pragma omp task shared(a) if (0)
  a = fib_if0(n - 1);
#pragma omp task shared(b) if (0)
  b = fib_if0(n - 2);
  return a + b;
}

/* A final task: the tasks it creates are included (undeferred). */
NOINLINE static long fib_final(int n, int depth)
{
  if (n < 2)
    return n;
  long a = 0, b = 0;
#pragma omp task shared(a) final(depth >= 2)
  {
    if (depth >= 2)
      CHECK(omp_in_final());
    a = fib_final(n - 1, depth + 1);
  }
#pragma omp task shared(b) final(depth >= 2)
  b = fib_final(n - 2, depth + 1);
#pragma omp taskwait
  return a + b;
}

typedef struct aligned64 {
  _Alignas(64) unsigned char bytes[64];
} aligned64;

typedef struct large {
  long words[600]; /* 4800 bytes */
} large;

/* firstprivate variables of every shape, in deferred and undeferred
 * tasks: a variable-length array (gcc gives the task a copy function), an
 * over-aligned structure, a large one. */
NOINLINE static void firstprivates(int n)
{
  long vla[n];
  aligned64 al;
  static large big;
  for (int i = 0; i < n; i++)
    vla[i] = 3 * i + 1;
  for (int i = 0; i < 64; i++)
    al.bytes[i] = (unsigned char)(i ^ 0x5a);
  for (int i = 0; i < 600; i++)
    big.words[i] = 7l * i;
  int bad = 0;
  for (int k = 0; k < 8; k++) {
#pragma omp task firstprivate(vla, k) shared(bad)
    {
      for (int i = 0; i < n; i++)
        if (vla[i] != 3 * i + 1)
          __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
      vla[0] = -k; /* the task's own copy */
    }
    if (if0_copies) {
#pragma omp task firstprivate(vla) shared(bad) if (0)
      {
        for (int i = 0; i < n; i++)
          if (vla[i] != 3 * i + 1)
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp task firstprivate(al) shared(bad)
    {
      if ((uintptr_t)&al % 64 != 0)
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
      for (int i = 0; i < 64; i++)
        if (al.bytes[i] != (unsigned char)(i ^ 0x5a))
          __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    }
    if (if0_copies) {
#pragma omp task firstprivate(al) shared(bad) if (0)
      {
        if ((uintptr_t)&al % 64 != 0)
          __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
      }
    }
    long copy[600];
    memcpy(copy, big.words, sizeof copy);
#pragma omp task firstprivate(copy) shared(bad)
    {
      for (int i = 0; i < 600; i++)
        if (copy[i] != 7l * i)
          __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    }
  }
#pragma omp taskwait
  CHECK(vla[0] == 1);
  CHECK(bad == 0);
}

/* Dependences order the tasks of a chain; priorities are hints. */
NOINLINE static void dependences(void)
{
  int x = 0, order[6] = {0}, at = 0;
  for (int i = 0; i < 6; i++) {
#pragma omp task depend(inout : x) shared(x, order, at) firstprivate(i) priority(i % 3)
    {
      order[at++] = i;
      x = x * 2 + 1;
    }
  }
#pragma omp taskwait
  CHECK(x == 63);
  for (int i = 0; i < 6; i++)
    CHECK(order[i] == i);
}

/* A detachable task: its event is the one libgomp made for it, and the
 * task is complete once it is fulfilled. omp_fulfill_event is looked up:
 * LLVM's libomp 14 has no OMP_5.0.1, and the program would not load. */
NOINLINE static void detached(void)
{
  void (*fulfill)(omp_event_handle_t) =
      (void (*)(omp_event_handle_t))dlsym(RTLD_DEFAULT, "omp_fulfill_event");
  if (!fulfill)
    return;
  int done = 0;
  omp_event_handle_t ev;
#pragma omp task detach(ev) shared(done)
  {
    done = 1;
    fulfill(ev);
  }
#pragma omp taskwait
  CHECK(done == 1);
}

/* Taskloops: libgomp writes each task's bounds into its block, and reads
 * a reduction's address from the data it is given. */
NOINLINE static void taskloops(int n)
{
  long sum = 0;
  int hits[100] = {0};
#pragma omp taskloop grainsize(7) reduction(+ : sum) shared(hits)
  for (int i = 0; i < 100; i++) {
    sum += i;
    __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
  }
  CHECK(sum == 4950);
  for (int i = 0; i < 100; i++)
    CHECK(hits[i] == 1);

  long count = 0;
#pragma omp taskgroup
  {
#pragma omp taskloop num_tasks(5) nogroup shared(count)
    for (int i = 0; i < 50; i++)
      __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
  }
  CHECK(count == 50);

  /* Bounds beyond a long's: GOMP_taskloop_ull. */
  unsigned long long big = 0, base = (1ull << 63) + (unsigned long long)n;
#pragma omp taskloop shared(big)
  for (unsigned long long u = base; u < base + 64; u++)
    __atomic_add_fetch(&big, u - base, __ATOMIC_RELAXED);
  CHECK(big == 63 * 64 / 2);

  long undeferred = 0;
#pragma omp taskloop if (0) reduction(+ : undeferred)
  for (int i = 0; i < 40; i++)
    undeferred += 2;
  CHECK(undeferred == 80);

  long vla[n];
  for (int i = 0; i < n; i++)
    vla[i] = i;
  long vsum = 0;
#pragma omp taskloop firstprivate(vla) reduction(+ : vsum) num_tasks(4)
  for (int i = 0; i < n; i++)
    vsum += vla[i];
  CHECK(vsum == (long)n * (n - 1) / 2);
  if (if0_copies) {
#pragma omp taskloop firstprivate(vla) reduction(+ : vsum) if (0)
    for (int i = 0; i < n; i++)
      vsum += vla[i];
    CHECK(vsum == (long)n * (n - 1));
  }
}

/* A taskgroup's task reduction, and its end: a wait for every task in it. */
NOINLINE static void taskgroup_reduction(void)
{
  long r = 0;
#pragma omp taskgroup task_reduction(+ : r)
  {
    for (int i = 0; i < 20; i++) {
#pragma omp task in_reduction(+ : r) firstprivate(i)
      r += i;
    }
  }
  CHECK(r == 190);
}

/* GOMP_task called as gcc would, with blocks gcc makes rarely: plain
 * bytes (no copy function) too large for a small block and over-aligned,
 * and a copy function of the program's for an over-aligned block. */
extern void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, _Bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach);

typedef struct raw_block {
  _Alignas(128) long words[400];
  int *bad;
} raw_block;

static void raw_task(void *arg)
{
  raw_block *b = arg;
  if ((uintptr_t)b % 128 != 0)
    __atomic_add_fetch(b->bad, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 400; i++)
    if (b->words[i] != 11l * i)
      __atomic_add_fetch(b->bad, 1, __ATOMIC_RELAXED);
}

static int raw_copies;
static long copies;

static void raw_copy(void *dst, void *src)
{
  if ((uintptr_t)dst % 128 != 0)
    __atomic_add_fetch(((raw_block *)src)->bad, 1, __ATOMIC_RELAXED);
  memcpy(dst, src, sizeof(raw_block));
  __atomic_add_fetch(&raw_copies, 1, __ATOMIC_RELAXED);
}

NOINLINE static void raw_tasks(void)
{
  int bad = 0;
  raw_block b;
  for (int i = 0; i < 400; i++)
    b.words[i] = 11l * i;
  b.bad = &bad;
  raw_copies = 0;
  for (int deferred = 0; deferred < 2; deferred++) {
    GOMP_task(raw_task, &b, NULL, sizeof b, _Alignof(raw_block), deferred, 0, NULL, 0, NULL);
    GOMP_task(raw_task, &b, raw_copy, sizeof b, _Alignof(raw_block), deferred, 0, NULL, 0, NULL);
  }
#pragma omp taskwait
  CHECK(bad == 0);
  /* Once per deferred task at least; the runtime may copy an undeferred
   * one too (libgomp does, LLVM's libomp does not). The total is printed:
   * the same with knit as without. */
  CHECK(raw_copies >= 1 && raw_copies <= 2);
  copies += raw_copies;
}

static void round_of_tasks(void)
{
  long f = 0, f0 = 0, ff = 0;
#pragma omp parallel num_threads(NT)
  {
#pragma omp single
    {
      f = fib(15);
      f0 = fib_if0(12);
      ff = fib_final(12, 0);
      firstprivates(37);
      dependences();
      detached();
      taskloops(29);
      taskgroup_reduction();
      raw_tasks();
    }
  }
  CHECK(f == 610);
  CHECK(f0 == 144);
  CHECK(ff == 144);
  /* Outside any region: libgomp runs the task at once. */
  CHECK(fib(10) == 55);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  if (rounds <= 0 || (argc > 2 && strcmp(argv[2], "no-if0-copy") != 0)) {
    fprintf(stderr, "usage: task_abi [ROUNDS] [no-if0-copy]\n");
    return 2;
  }
  if0_copies = argc <= 2;
  for (int r = 0; r < rounds; r++)
    round_of_tasks();
  printf("task_abi: %d rounds, %d failed checks, %ld copies\n", rounds, failures, copies);
  return failures ? 1 : 0;
}
