/* Starts THREADS short threads (default 20,000), a few at a time, each
 * doing a little work (WORK, argv[3]: iterations, default 20,000, or with
 * an "ms" suffix milliseconds on the clock, for a case that needs every
 * thread sampled however loaded the machine is), as servers with a thread
 * per request do; then writes its peak resident memory (VmHWM, kB) to FILE
 * (argv[2]) for the case to compare. stdout says only how many threads
 * ran. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"

static volatile unsigned long sink;
static double work_seconds; /* > 0: timed work instead of iterations */

static void *request(void *arg)
{
  if (work_seconds > 0) {
    sink += hostile_spin(work_seconds);
    return NULL;
  }
  unsigned long n = (unsigned long)(uintptr_t)arg;
  for (unsigned long i = 0; i < n; i++)
    sink += i;
  return NULL;
}

static long peak_kb(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6))
      kb = atol(line + 6);
  if (f)
    fclose(f);
  return kb;
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : 20000;
  char *unit = NULL;
  unsigned long work = argc > 3 ? strtoul(argv[3], &unit, 10) : 20000;
  if (unit && strcmp(unit, "ms") == 0)
    work_seconds = (double)work / 1000;
  int ran = 0;
  for (int i = 0; i < threads; i += 4) {
    pthread_t th[4];
    int n = 0;
    for (; n < 4 && i + n < threads; n++)
      if (pthread_create(&th[n], NULL, request, (void *)(uintptr_t)work) != 0)
        return 3;
    for (int k = 0; k < n; k++)
      pthread_join(th[k], NULL);
    ran += n;
  }
  if (argc > 2) {
    FILE *f = fopen(argv[2], "w");
    if (f) {
      fprintf(f, "%ld\n", peak_kb());
      fclose(f);
    }
  }
  printf("%d threads ran\n", ran);
  return 0;
}
