/* own_sigprof: a program that profiles itself the old way, with its own
 * SIGPROF handler and setitimer(ITIMER_PROF), counting ticks while it
 * works; a thread started before and one after it takes SIGPROF work too.
 * Then it puts SIGPROF back to the default and works on: a SIGPROF now
 * would kill it. It prints what it asked of sigaction and the ticks in a
 * bucket (their exact count depends on the machine). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "hostile.h"

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
  (void)sig;
  ticks++;
}

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned spin(double how_long)
{
  return hostile_spin(how_long);
}

static void *worker(void *arg)
{
  volatile unsigned sink = spin(*(double *)arg);
  (void)sink;
  return NULL;
}

int main(void)
{
  double before = 0.3, after = 0.3;
  pthread_t early, late;
  pthread_create(&early, NULL, worker, &before);

  struct sigaction sa, old;
  sigaction(SIGPROF, NULL, &old);
  printf("SIGPROF at start: %s\n", old.sa_handler == SIG_DFL ? "default" : "something else");
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, &old);
  printf("SIGPROF replaced: %s\n", old.sa_handler == SIG_DFL ? "default" : "something else");
  sigaction(SIGPROF, NULL, &old);
  printf("SIGPROF now: %s\n", old.sa_handler == on_tick ? "the program's" : "something else");
  pthread_create(&late, NULL, worker, &after);

  /* 10 ms of the process's CPU time a tick; about 40 over 0.4 s of it. */
  struct itimerval it = {{0, 10000}, {0, 10000}};
  setitimer(ITIMER_PROF, &it, NULL);
  double start = cpu_seconds();
  volatile unsigned sink = 1;
  while (cpu_seconds() - start < 0.4)
    sink = sink * 1103515245u + 12345u;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  int n = ticks;
  printf("ticks: %s\n", n < 20 ? "under 20" : n <= 60 ? "20 to 60" : "over 60");
  pthread_join(early, NULL);
  pthread_join(late, NULL);

  signal(SIGPROF, SIG_DFL);
  sink = spin(0.2);
  printf("worked on with SIGPROF at its default\n");
  return 0;
}
