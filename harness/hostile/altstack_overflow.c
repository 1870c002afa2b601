/* altstack_overflow: the usual guard against stack overflow. A thread with
 * a small stack registers an alternate signal stack and a SIGSEGV handler
 * that runs on it (SA_ONSTACK), then recurses until its stack overflows;
 * the handler says so and ends the process with status 0. Without the
 * alternate stack the kernel could not deliver the signal at all. The
 * thread works for a while first, so that there is something to sample. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

static void on_overflow(int sig)
{
  (void)sig;
  static const char msg[] = "caught the stack overflow on the alternate stack\n";
  ssize_t rc = write(1, msg, sizeof msg - 1);
  (void)rc;
  _exit(0);
}

__attribute__((noinline)) static unsigned spin(double how_long)
{
  return hostile_spin(how_long);
}

/* Stops only at a depth no stack holds (the compiler cannot tell). */
static volatile unsigned limit = 0xffffffffu;

__attribute__((noinline)) static unsigned recurse(unsigned depth)
{
  volatile char pad[256];
  pad[0] = (char)depth;
  if (depth >= limit)
    return pad[0];
  return recurse(depth + 1) + pad[0];
}

static void *overflow(void *arg)
{
  (void)arg;
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_size = 64 * 1024;
  ss.ss_sp = malloc(ss.ss_size);
  if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0) {
    perror("sigaltstack");
    exit(1);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_overflow;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, NULL) != 0) {
    perror("sigaction");
    exit(1);
  }
  volatile unsigned sink = spin(0.2);
  (void)sink;
  printf("recursing until the stack overflows\n");
  fflush(stdout);
  sink = recurse(0);
  printf("the recursion returned\n");
  return NULL;
}

int main(void)
{
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t;
  if (pthread_create(&t, &attr, overflow, NULL) != 0)
    return 1;
  pthread_join(t, NULL);
  return 3;
}
