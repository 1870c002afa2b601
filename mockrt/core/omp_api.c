/*
 * The omp_* query and ICV routines of the OpenMP API, the same under every
 * ABI (gcc's and LLVM's binaries call them by the same names).  The lock
 * routines are not here: their types differ between the ABIs.
 */
#include "mockrt.h"
#include "task.h"

#include <time.h>

/* A pool worker may call these from a tool callback outside any region. */
static mockrt_task_t *mockrt_api_task(void)
{
  return mockrt_self()->task;
}

MOCKRT_EXPORT int omp_get_thread_num(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t ? t->thread_num : 0;
}

MOCKRT_EXPORT int omp_get_num_threads(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t ? (int)t->team->nthreads : 1;
}

MOCKRT_EXPORT int omp_get_max_threads(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t ? t->nthreads_var : mockrt_icv.nthreads;
}

MOCKRT_EXPORT void omp_set_num_threads(int n)
{
  mockrt_task_t *t = mockrt_api_task();
  if (t && n > 0)
    t->nthreads_var = n > MOCKRT_MAX_THREADS ? MOCKRT_MAX_THREADS : n;
}

MOCKRT_EXPORT int omp_get_num_procs(void)
{
  mockrt_self();
  return mockrt_icv.num_procs;
}

MOCKRT_EXPORT int omp_in_parallel(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t && t->team->active_level > 0;
}

MOCKRT_EXPORT int omp_get_level(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t ? t->team->level : 0;
}

MOCKRT_EXPORT int omp_get_active_level(void)
{
  mockrt_task_t *t = mockrt_api_task();
  return t ? t->team->active_level : 0;
}

/* The task of the region at a nesting level, walking out from the current one. */
static mockrt_task_t *mockrt_api_task_at_level(int level)
{
  mockrt_task_t *t = mockrt_api_task();
  if (!t || level < 0 || level > t->team->level)
    return NULL;
  while (t && t->team->level > level)
    t = t->parent;
  return t;
}

MOCKRT_EXPORT int omp_get_ancestor_thread_num(int level)
{
  mockrt_task_t *t = mockrt_api_task_at_level(level);
  return t ? t->thread_num : -1;
}

MOCKRT_EXPORT int omp_get_team_size(int level)
{
  mockrt_task_t *t = mockrt_api_task_at_level(level);
  return t ? (int)t->team->nthreads : -1;
}

MOCKRT_EXPORT void omp_set_dynamic(int on)
{
  mockrt_self();
  mockrt_icv.dynamic = on != 0;
}

MOCKRT_EXPORT int omp_get_dynamic(void)
{
  mockrt_self();
  return mockrt_icv.dynamic;
}

/*
 * Nested parallelism is max-active-levels > 1 (OpenMP 5.0 deprecates
 * nest-var): switching it on allows every supported level, off allows one,
 * as libgomp and libomp do.
 */
MOCKRT_EXPORT void omp_set_nested(int on)
{
  mockrt_self();
  mockrt_icv.max_active_levels = on ? MOCKRT_SUPPORTED_LEVELS : 1;
}

MOCKRT_EXPORT int omp_get_nested(void)
{
  mockrt_self();
  return mockrt_icv.max_active_levels > 1;
}

MOCKRT_EXPORT int omp_get_max_active_levels(void)
{
  mockrt_self();
  return mockrt_icv.max_active_levels;
}

/* Negative values are ignored; larger ones are clipped to what is supported. */
MOCKRT_EXPORT void omp_set_max_active_levels(int n)
{
  mockrt_self();
  if (n >= 0)
    mockrt_icv.max_active_levels = n > MOCKRT_SUPPORTED_LEVELS ? MOCKRT_SUPPORTED_LEVELS : n;
}

MOCKRT_EXPORT int omp_get_supported_active_levels(void)
{
  return MOCKRT_SUPPORTED_LEVELS;
}

MOCKRT_EXPORT int omp_get_cancellation(void)
{
  mockrt_self();
  return mockrt_icv.cancellation;
}

/* Inside a teams construct with a thread_limit clause, the clause's value. */
MOCKRT_EXPORT int omp_get_thread_limit(void)
{
  mockrt_task_t *t = mockrt_api_task();
  if (t && t->team->cg_thread_limit_var)
    return (int)t->team->cg_thread_limit_var;
  return mockrt_icv.thread_limit;
}

MOCKRT_EXPORT double omp_get_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

MOCKRT_EXPORT double omp_get_wtick(void)
{
  struct timespec ts;
  if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
    return 1e-9;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

MOCKRT_EXPORT int omp_in_final(void)
{
  return mockrt_task_in_final();
}

/* OMP_MAX_TASK_PRIORITY, 0 without it (task.c). */
MOCKRT_EXPORT int omp_get_max_task_priority(void)
{
  return mockrt_task_max_priority();
}

/*
 * The handle of a detach clause's event is the task itself (omp.h's
 * omp_event_handle_t is an integer as wide as a pointer in both ABIs).
 */
MOCKRT_EXPORT void omp_fulfill_event(uintptr_t event)
{
  mockrt_task_fulfill((mockrt_xtask_t *)event);
}

MOCKRT_EXPORT int omp_is_initial_device(void)
{
  return 1;
}

/* The mock device's, when its library is loaded (libomp 14 likewise asks
 * libomptarget). */
MOCKRT_EXPORT int omp_get_num_devices(void)
{
  return mockrt_target_num_devices();
}

/* OpenMP 5.0: the host's number follows the devices' (libomp 14 asks
 * libomptarget for their count too). */
MOCKRT_EXPORT int omp_get_initial_device(void)
{
  return mockrt_target_num_devices();
}

MOCKRT_EXPORT int omp_get_default_device(void)
{
  return 0;
}
