/*
 * Deterministic mode (MOCKRT_DETERMINISTIC=1): an in-program OMPT tool
 * records, per implicit task (region number, thread number), the sequence
 * of work, dispatch (with chunk bounds) and single events, while the
 * program perturbs its timing with uneven work.  At exit it prints the
 * sequences in a fixed order; the test runs it twice and compares the
 * outputs, which must be equal.  It also checks that omp_control_tool
 * returns the tool's answer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REGIONS 16
#define NT          4
#define LOG         8192

static char logs[MAX_REGIONS][NT][LOG];
static int region_count;
static __thread int my_region = -1, my_thread = -1;

static void note(const char *fmt, long a, long b)
{
  if (my_region < 0 || my_region >= MAX_REGIONS || my_thread < 0 || my_thread >= NT)
    return;
  char *l = logs[my_region][my_thread];
  size_t n = strlen(l);
  if (n + 64 < LOG)
    snprintf(l + n, LOG - n, fmt, a, b);
}

static void on_parallel_begin(ompt_data_t *etd, const ompt_frame_t *ef, ompt_data_t *pd,
                              unsigned req, int flags, const void *ra)
{
  (void)etd, (void)ef, (void)req, (void)flags, (void)ra;
  pd->value = (uint64_t)__atomic_fetch_add(&region_count, 1, __ATOMIC_RELAXED);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *pd, ompt_data_t *td,
                             unsigned actual, unsigned index, int flags)
{
  (void)td, (void)actual;
  if (flags & ompt_task_initial)
    return;
  if (ep == ompt_scope_begin) {
    my_region = (int)pd->value;
    my_thread = (int)index;
  } else {
    my_region = my_thread = -1;
  }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t ep, ompt_data_t *pd, ompt_data_t *td,
                    uint64_t count, const void *ra)
{
  (void)pd, (void)td, (void)ra;
  note(ep == ompt_scope_begin ? "W%ld+%ld " : "W%ld-%ld ", (long)wstype, (long)count);
}

static void on_dispatch(ompt_data_t *pd, ompt_data_t *td, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
  (void)pd, (void)td;
  note("D%ld:%ld ", (long)kind, (long)instance.value);
}

/* omp_control_tool reaches the tool, whose answer the program gets back. */
static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra)
{
  (void)arg, (void)ra;
  return (int)(command * 100 + modifier);
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
  (void)dev, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
  set(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
  return 1;
}

static void tool_fini(ompt_data_t *data)
{
  (void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned v, const char *rt)
{
  static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
  (void)v, (void)rt;
  return &r;
}

/* Uneven, thread- and run-dependent work, so timing differs between runs. */
static void busy(int i)
{
  struct timespec ts = {
      0, (long)((i * 7919 + omp_get_thread_num() * 104729 + (int)(clock() & 0xff)) % 200) * 1000L};
  nanosleep(&ts, NULL);
}

int main(void)
{
  static int chunks[NT][64];
  int bounds[3][NT];
  long sum = 0;
  memset(bounds, 0, sizeof bounds);
  for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel num_threads(NT) reduction(+ : sum)
    {
#pragma omp for schedule(dynamic, 3)
      for (int i = 0; i < 50; i++) {
        busy(i);
        sum += i;
      }
#pragma omp for schedule(guided, 2) nowait
      for (int i = 0; i < 70; i++) {
        busy(i + 3);
        sum += i;
      }
#pragma omp sections
      {
#pragma omp section
        busy(1);
#pragma omp section
        busy(2);
#pragma omp section
        busy(3);
      }
#pragma omp single
      bounds[rep][omp_get_thread_num()]++;
    }
  }
  (void)chunks;
  /* Looked up: gcc's libgomp does not have it, so a direct call would not link. */
  int (*control)(int, int, void *) =
      (int (*)(int, int, void *))dlsym(RTLD_DEFAULT, "omp_control_tool");
  if (!control || control(3 /* flush */, 7, NULL) != 307) {
    fprintf(stderr, "ompt_determinism: omp_control_tool did not return the tool's answer\n");
    return 1;
  }
  if (sum != 3 * (50 * 49 / 2 + 70 * 69 / 2)) {
    fprintf(stderr, "ompt_determinism: wrong sum %ld\n", sum);
    return 1;
  }
  /* Deterministic mode: the single of every region ran on thread 0. */
  for (int rep = 0; rep < 3; rep++)
    if (bounds[rep][0] != 1) {
      fprintf(stderr, "ompt_determinism: single not on thread 0\n");
      return 1;
    }
  for (int r = 0; r < region_count && r < MAX_REGIONS; r++)
    for (int t = 0; t < NT; t++)
      printf("region %d thread %d: %s\n", r, t, logs[r][t]);
  return 0;
}
