/* The checks of the mock runtimes' test programs: a check that fails is
 * reported with its place and counted (from any thread); a program exits
 * with status 0 only when none failed. */
#ifndef KNIT_HARNESS_MOCKRT_CHECK_H
#define KNIT_HARNESS_MOCKRT_CHECK_H

#include <stdio.h>
#include <time.h>

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                          \
    }                                                                                              \
  } while (0)

/* Sleeps us microseconds (under a second): lets other threads get ahead. */
static inline void pause_us(long us)
{
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

#endif /* KNIT_HARNESS_MOCKRT_CHECK_H */
