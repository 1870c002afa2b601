/* sleeps: the waits the kernel does not restart after a signal handler
 * (nanosleep, sleep, usleep, poll, select, sigtimedwait) must last as long
 * as asked, and end early exactly when a signal of the program's comes
 * (here SIGALRM, handled without SA_RESTART). Prints each wait's result
 * and whether it lasted. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

static void said(const char *what, long rc, int err, double start, double wanted)
{
  double took = hostile_seconds() - start;
  printf("%-12s rc=%ld%s, %s\n", what, rc, rc < 0 && err == EINTR ? " EINTR" : "",
         took >= wanted * 0.95 ? "lasted" : "ended early");
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
  (void)sig;
  alarms++;
}

int main(void)
{
  double t = hostile_seconds();
  struct timespec req = {0, 200000000};
  int rc = nanosleep(&req, NULL);
  said("nanosleep", rc, errno, t, 0.2);
  t = hostile_seconds();
  unsigned left = sleep(1);
  said("sleep", (long)left, 0, t, 1.0);
  t = hostile_seconds();
  rc = usleep(200000);
  said("usleep", rc, errno, t, 0.2);
  t = hostile_seconds();
  rc = poll(NULL, 0, 200);
  said("poll", rc, errno, t, 0.2);
  t = hostile_seconds();
  struct timeval tv = {0, 200000};
  rc = select(0, NULL, NULL, NULL, &tv);
  said("select", rc, errno, t, 0.2);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, NULL);
  t = hostile_seconds();
  struct timespec wait = {0, 200000000};
  rc = sigtimedwait(&usr1, NULL, &wait);
  said("sigtimedwait", rc, errno, t, 0.2);

  /* The program's own signal still ends a sleep. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 0}, {0, 100000}};
  setitimer(ITIMER_REAL, &it, NULL);
  t = hostile_seconds();
  struct timespec longer = {2, 0};
  rc = nanosleep(&longer, NULL);
  said("alarmed", rc, errno, t, 2.0);
  printf("alarms: %d\n", (int)alarms);
  return 0;
}
