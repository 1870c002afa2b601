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

mockrt_icv_t mockrt_icv = { 0, 1, 1, 0, MOCKRT_MAX_THREADS, MOCKRT_SCHED_DYNAMIC, 1 };

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

  /* OMP_NUM_THREADS may be a list for nested levels; the first entry counts. */
  s = getenv("OMP_NUM_THREADS");
  if (s) {
    long v = mockrt_parse_positive(s, NULL);
    if (v > 0)
      mockrt_icv.nthreads = v > MOCKRT_MAX_THREADS ? MOCKRT_MAX_THREADS : (int)v;
  }
  s = getenv("MOCKRT_DETERMINISTIC");
  mockrt_icv.deterministic = s && strcmp(s, "1") == 0;
  s = getenv("OMP_THREAD_LIMIT");
  if (s) {
    long v = mockrt_parse_positive(s, NULL);
    if (v > 0 && v < MOCKRT_MAX_THREADS)
      mockrt_icv.thread_limit = (int)v;
  }
  s = getenv("OMP_DYNAMIC");
  if (s && (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0))
    mockrt_icv.dynamic = 1;

  /*
   * schedule(runtime) honours the kind and chunk of OMP_SCHEDULE; static is
   * served by the dynamic dispatcher, which is a legal (if unordered)
   * distribution for this first version.
   */
  s = getenv("OMP_SCHEDULE");
  if (s) {
    const char *comma = strchr(s, ',');
    if (strncasecmp(s, "guided", 6) == 0 || strncasecmp(s, "nonmonotonic:guided", 19) == 0)
      mockrt_icv.run_sched = MOCKRT_SCHED_GUIDED;
    if (comma) {
      long v = mockrt_parse_positive(comma + 1, NULL);
      if (v > 0)
        mockrt_icv.run_chunk = v;
    }
  }
}
