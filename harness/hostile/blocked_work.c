/* blocked_work: the program blocks every signal around its main work
 * (pthread_sigmask with a full set), then unblocks them and works a little
 * more. While blocked it asks for its mask (SIGPROF must show as blocked),
 * starts a thread (which inherits the mask) and forks a child (which runs
 * without knit): both look at theirs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

__attribute__((noinline)) static unsigned work_while_blocked(double how_long)
{
  return hostile_spin(how_long);
}

__attribute__((noinline)) static unsigned work_unblocked(double how_long)
{
  return hostile_spin(how_long);
}

static const char *prof_blocked(void)
{
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  return sigismember(&now, SIGPROF) ? "blocked" : "not blocked";
}

static void *look(void *arg)
{
  (void)arg;
  printf("thread: SIGPROF %s\n", prof_blocked());
  return NULL;
}

int main(void)
{
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  printf("main: SIGPROF %s\n", prof_blocked());
  fflush(stdout);
  pthread_t t;
  pthread_create(&t, NULL, look, NULL);
  pthread_join(t, NULL);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    sigset_t real;
    sigprocmask(SIG_BLOCK, NULL, &real);
    printf("child: SIGPROF %s\n", sigismember(&real, SIGPROF) ? "blocked" : "not blocked");
    return 0;
  }
  waitpid(child, NULL, 0);
  volatile unsigned sink = work_while_blocked(0.4);
  sigset_t got;
  pthread_sigmask(SIG_SETMASK, &before, &got);
  printf("SIGPROF was %s, is %s\n", sigismember(&got, SIGPROF) ? "blocked" : "not blocked",
         prof_blocked());
  sink = work_unblocked(0.1);
  (void)sink;
  return 0;
}
