/* The library late_library dlopens: CPU work with no OpenMP or probe call,
 * so that nothing makes knit look at the loaded objects again while it
 * runs. */
#include <time.h>

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Out of line, so that a walk from it steps through two frames of this
 * library before it reaches the program's. */
__attribute__((noinline)) static unsigned long late_library_work(unsigned long x)
{
  for (int i = 0; i < 100000; i++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

__attribute__((visibility("default"), noinline)) unsigned long late_library_spin(double seconds)
{
  double until = cpu_seconds() + seconds;
  unsigned long x = 1;
  while (cpu_seconds() < until)
    x = late_library_work(x);
  return x;
}
