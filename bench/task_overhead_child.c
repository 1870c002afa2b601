/* The program bench_task_overhead times: recursive tasks, fib-like (each
 * call with two or more tasks to make creates two children with
 * `#pragma omp task` and waits for them with `taskwait`), built by gcc
 * -fopenmp (the GOMP ABI) and run on whichever libgomp.so.1
 * LD_LIBRARY_PATH names, with or without knit preloaded.
 *
 *   bench_task_overhead_child TASKS
 *
 * Makes exactly TASKS explicit tasks, after a warm-up, from one thread of
 * the team (the others steal), and prints the nanoseconds per task and a
 * checksum line, the number of task bodies that ran, which must be TASKS
 * on every runtime with or without a tool. A fib(n) would make a number
 * of tasks fixed by n (2 fib(n+1) - 2); splitting a count between the two
 * children instead makes any number, so the driver can compare costs per
 * task at round counts. The tree is balanced, about log2(TASKS) deep, and
 * made from two creation sites: every task's creation path (which site at
 * each level) is its own, so a tool that keeps one context per distinct
 * path keeps one per task, and its memory shows whether it keeps them
 * only as long as they are needed.
 *
 * BENCH_LAYOUT=N (the driver's round) moves the heap's next blocks and the
 * stack as bench_region_overhead_child does, and for the same reason: where
 * the runtime's hot words lie decides which of them share a cache line, and
 * a setup measured in one layout only carries that layout's luck.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "layout.h"

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Makes n tasks below the calling one: two children that share n - 2
 * between them (one child when n is 1). Returns the number of task bodies
 * that ran below, n when the runtime ran every task once. Recursion
 * through the tasks themselves, so that each task's creation context is
 * its parent task's plus one segment, as in any recursive task program. */
__attribute__((noinline)) static long spawn(long n)
{
  if (n == 0)
    return 0;
  long first = n >= 2 ? (n - 2) / 2 : 0;
  long second = n >= 2 ? n - 2 - first : 0;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(first)
  a = spawn(first) + 1;
  if (n >= 2) {
#pragma omp task shared(b) firstprivate(second)
    b = spawn(second) + 1;
  }
#pragma omp taskwait
  return a + b;
}

/* n tasks made by one thread of a team; the count of bodies that ran. */
__attribute__((noinline)) static long tasks(long n)
{
  long ran = 0;
#pragma omp parallel shared(ran)
#pragma omp single
  ran = spawn(n);
  return ran;
}

int main(int argc, char **argv)
{
  if (argc != 2 || atol(argv[1]) < 1) {
    fprintf(stderr, "usage: bench_task_overhead_child TASKS\n");
    return 2;
  }
  long n = atol(argv[1]);
  if (BENCH_APPLY_LAYOUT() != 0)
    return 1;
  /* Warm: threads started, pages touched, the runtime's task pools grown. */
  if (tasks(n / 10 + 1) != n / 10 + 1)
    return 1;
  double t0 = now_ns();
  long ran = tasks(n);
  double ns = (now_ns() - t0) / (double)n;
  printf("%.3f\nchecksum %ld\n", ns, ran);
  return 0;
}
