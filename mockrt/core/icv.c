/*
 * Internal control variables read from the environment once, when the
 * runtime initializes.
 */
#define _GNU_SOURCE
#include "mockrt.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static long mockrt_parse_positive(const char *s, const char **end);

mockrt_icv_t mockrt_icv = {.nthreads = 1,
                           .num_procs = 1,
                           .thread_limit = MOCKRT_MAX_THREADS,
                           .run_sched = MOCKRT_SCHED_DYNAMIC,
                           .run_chunk = 1,
                           .max_active_levels = 1};

static bool mockrt_env_true(const char *s)
{
  return s && (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0);
}

/*
 * OMP_NUM_THREADS=4,2,...: the first entry is the initial task's
 * nthreads-var, entry i that of the implicit tasks at level i.
 */
static void mockrt_icv_num_threads(const char *s)
{
  int n = 0;
  while (s && *s && n < (int)(sizeof mockrt_icv.nthreads_list / sizeof(int))) {
    const char *end;
    long v = mockrt_parse_positive(s, &end);
    if (v <= 0)
      break;
    mockrt_icv.nthreads_list[n++] = v > MOCKRT_MAX_THREADS ? MOCKRT_MAX_THREADS : (int)v;
    while (*end == ' ' || *end == '\t')
      end++;
    if (*end != ',')
      break;
    s = end + 1;
  }
  mockrt_icv.nthreads_levels = n;
  if (n > 0)
    mockrt_icv.nthreads = mockrt_icv.nthreads_list[0];
}

/*
 * max-active-levels as libgomp 12 and libomp 14 set it: 1 by default;
 * OMP_MAX_ACTIVE_LEVELS wins; else OMP_NESTED=true (or a list in
 * OMP_NUM_THREADS) allows every supported level and OMP_NESTED=false one.
 */
static void mockrt_icv_levels(void)
{
  const char *levels = getenv("OMP_MAX_ACTIVE_LEVELS");
  const char *nested = getenv("OMP_NESTED");
  long v;
  if (levels && (v = mockrt_parse_positive(levels, NULL)) > 0)
    mockrt_icv.max_active_levels = v > MOCKRT_SUPPORTED_LEVELS ? MOCKRT_SUPPORTED_LEVELS : (int)v;
  else if (nested)
    mockrt_icv.max_active_levels = mockrt_env_true(nested) ? MOCKRT_SUPPORTED_LEVELS : 1;
  else if (mockrt_icv.nthreads_levels > 1)
    mockrt_icv.max_active_levels = MOCKRT_SUPPORTED_LEVELS;
}

/*
 * OMP_WAIT_POLICY as libgomp reads it: ACTIVE or PASSIVE, in any case,
 * blanks around; anything else leaves the default (mockrt_spin).
 */
static int mockrt_icv_wait_policy(const char *s)
{
  static const struct {
    const char *name;
    int policy;
  } names[] = {{"active", MOCKRT_WAIT_ACTIVE}, {"passive", MOCKRT_WAIT_PASSIVE}};
  if (!s)
    return MOCKRT_WAIT_DEFAULT;
  while (*s == ' ' || *s == '\t')
    s++;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i].name);
    if (strncasecmp(s, names[i].name, n) != 0)
      continue;
    const char *e = s + n;
    while (*e == ' ' || *e == '\t')
      e++;
    if (*e == '\0')
      return names[i].policy;
  }
  return MOCKRT_WAIT_DEFAULT;
}

static int mockrt_count_procs(void)
{
  /* The affinity mask is what the process may really use (taskset, cgroups). */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Parse a positive integer prefix; returns 0 if there is none. */
static long mockrt_parse_positive(const char *s, const char **end)
{
  char *e;
  long v;
  while (*s == ' ' || *s == '\t')
    s++;
  v = strtol(s, &e, 10);
  if (end)
    *end = e;
  return (e == s || v <= 0) ? 0 : v;
}

void mockrt_icv_init(void)
{
  const char *s;
  mockrt_icv.num_procs = mockrt_count_procs();
  mockrt_icv.nthreads = mockrt_icv.num_procs;

  mockrt_icv_num_threads(getenv("OMP_NUM_THREADS"));
  mockrt_icv_levels();
  mockrt_icv.cancellation = mockrt_env_true(getenv("OMP_CANCELLATION"));
  s = getenv("MOCKRT_DETERMINISTIC");
  mockrt_icv.deterministic = s && strcmp(s, "1") == 0;
  s = getenv("OMP_THREAD_LIMIT");
  if (s) {
    long v = mockrt_parse_positive(s, NULL);
    if (v > 0 && v < MOCKRT_MAX_THREADS)
      mockrt_icv.thread_limit = (int)v;
  }
  s = getenv("OMP_DYNAMIC");
  if (mockrt_env_true(s))
    mockrt_icv.dynamic = 1;
  mockrt_icv.wait_policy = mockrt_icv_wait_policy(getenv("OMP_WAIT_POLICY"));

  /*
   * schedule(runtime) honours the kind and chunk of OMP_SCHEDULE (static
   * without a chunk: one block per thread).
   */
  s = getenv("OMP_SCHEDULE");
  if (s) {
    const char *comma = strchr(s, ',');
    if (strncasecmp(s, "static", 6) == 0) {
      mockrt_icv.run_sched = MOCKRT_SCHED_STATIC;
      mockrt_icv.run_chunk = 0;
    }
    if (strncasecmp(s, "guided", 6) == 0 || strncasecmp(s, "nonmonotonic:guided", 19) == 0)
      mockrt_icv.run_sched = MOCKRT_SCHED_GUIDED;
    if (comma) {
      long v = mockrt_parse_positive(comma + 1, NULL);
      if (v > 0)
        mockrt_icv.run_chunk = v;
    }
  }
}
