/* The cheapest sampler there can be, bench_sample_cost's peer: preloaded
 * (LD_PRELOAD), it drives SIGPROF at the main thread with a per-thread
 * timer made exactly as knit makes its REALTIME timer
 * (profiler/core/sampler.c: CLOCK_MONOTONIC, SIGEV_THREAD_ID, the same
 * handler flags), and its handler only counts. What a run costs with it
 * over the program alone is the kernel's part of a sample: the timer, the
 * signal's delivery and the return from the handler. knit's cost over that
 * is what its handler does.
 *
 * At exit it writes the number of signals handled, in decimal, to the file
 * named by BENCH_SIGNALS_OUT (when set), so the driver can divide by it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* 100 us: 10 kHz, knit's REALTIME@f10000. */
#define PERIOD_NS 100000L

/* Only the main thread's timer sends SIGPROF, and the signal is blocked
 * while its handler runs, so a plain increment cannot race. */
static volatile unsigned long signals;
static timer_t timer;
static int armed;

static void on_sigprof(int sig, siginfo_t *info, void *ucontext)
{
  (void)sig;
  (void)info;
  (void)ucontext;
  signals++;
}

__attribute__((constructor)) static void peer_start(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  /* knit's flags: SA_RESTART so that no system call of the program fails. */
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL) != 0)
    return;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = gettid();
  if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
    return;
  struct itimerspec its;
  its.it_interval.tv_sec = 0;
  its.it_interval.tv_nsec = PERIOD_NS;
  its.it_value = its.it_interval;
  if (timer_settime(timer, 0, &its, NULL) != 0) {
    timer_delete(timer);
    return;
  }
  armed = 1;
}

__attribute__((destructor)) static void peer_stop(void)
{
  /* The timer goes first, so that the count written is final. */
  if (armed)
    timer_delete(timer);
  armed = 0;
  const char *out = getenv("BENCH_SIGNALS_OUT");
  if (!out || !*out)
    return;
  FILE *f = fopen(out, "w");
  if (!f)
    return;
  fprintf(f, "%lu\n", signals);
  fclose(f);
}
