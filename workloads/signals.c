/* signals: a program that does work in its own signal handler, to test
 * unwinding through the signal trampoline (no OpenMP).
 *
 * run's loop works a few units, then calls interrupted_here, which sends
 * SIGALRM to its own thread. The signal arrives as the system call returns,
 * inside the C library's syscall(), and the handler on_alarm works there
 * (itself and in a callee). A debugger shows the handler called from the
 * interrupted code, through the trampoline; knit shows the same path, the
 * trampoline as <signal>:
 *
 *   main -> run                                              3 units a round
 *        -> run -> interrupted_here -> syscall -> <signal>
 *                -> on_alarm                                 1 unit a round
 *                -> on_alarm -> alarm_callee                 2 units a round
 *
 * The signal is sent from fixed places, so the counts are exact. knit's own
 * sampling signal (SIGPROF) is left alone.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t alarms;
static uint64_t alarm_state = 7;

NOINLINE static uint64_t alarm_callee(uint64_t x)
{
  return knit_work(x, 2) + 3;
}

/* The handler: its probes are samples taken inside a signal handler, whose
 * path must go on through the trampoline into the interrupted code. */
NOINLINE static void on_alarm(int sig)
{
  (void)sig;
  uint64_t x = knit_work(alarm_state, 1);
  alarm_state = alarm_callee(x);
  alarms++;
}

/* Sends SIGALRM to this thread; it is delivered before syscall() returns,
 * so the interrupted frames are syscall's (a leaf of the C library whose
 * return address may still be in the link register) and this function's. */
NOINLINE static void interrupted_here(void)
{
  syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), (long)SIGALRM);
  /* Keeps the call out of tail position: this frame must stay. */
  __asm__ __volatile__("" ::: "memory");
}

NOINLINE static uint64_t run(uint64_t x, int rounds)
{
  for (int r = 0; r < rounds; r++) {
    x = knit_work(x, 3);
    interrupted_here();
  }
  return x;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) != 0) {
    perror("sigaction");
    return 1;
  }
  uint64_t x = run(42u + (uint64_t)argc, rounds);
  printf("signals: %d rounds, %d alarms, checksum %016llx\n", rounds, (int)alarms,
         (unsigned long long)(x ^ alarm_state));
  /* Every signal must have been handled where it was sent. */
  return alarms == rounds ? 0 : 1;
}
