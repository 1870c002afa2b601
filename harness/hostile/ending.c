/* Ends by a signal whose default action ends the process, after working in
 * two threads; MODE says how:
 *   term-self   the program sends itself SIGTERM
 *   abort       abort(), as a failed assertion does
 *   pipe        writes to a pipe nobody reads any more (SIGPIPE)
 *   wait FILE   writes its pid to FILE, says "ready" and works until a
 *               signal from outside ends it (20 s at most, then exit 9)
 *   own-handler sets, asks for and resets its own SIGINT action, raising
 *               SIGINT under each, and prints what it saw
 * Everything it prints is the same under knit as without it. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

static volatile unsigned long sink;
static volatile sig_atomic_t caught;

/* Work for a time on the clock (hostile.h): a count of iterations gave
 * too few samples on a fast or loaded machine. */
static void work(double seconds)
{
  sink += hostile_spin(seconds);
}

static void *worker(void *arg)
{
  (void)arg;
  for (;;)
    work(0.001);
  return NULL;
}

static void on_int(int sig)
{
  (void)sig;
  caught++;
}

static const char *disposition(int sig)
{
  struct sigaction now;
  sigaction(sig, NULL, &now);
  return now.sa_handler == SIG_DFL ? "default" : now.sa_handler == SIG_IGN ? "ignored" : "handler";
}

static int own_handler(void)
{
  printf("at start: %s\n", disposition(SIGINT));
  void (*old)(int) = signal(SIGINT, on_int);
  printf("signal returned %s\n", old == SIG_DFL ? "default" : "other");
  raise(SIGINT);
  printf("caught %d, now: %s\n", (int)caught, disposition(SIGINT));
  signal(SIGINT, SIG_IGN);
  raise(SIGINT);
  printf("ignored, caught %d, now: %s\n", (int)caught, disposition(SIGINT));
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  struct sigaction was;
  sigaction(SIGINT, &dfl, &was);
  printf("was %s, now: %s\n", was.sa_handler == SIG_IGN ? "ignored" : "other", disposition(SIGINT));
  fflush(stdout);
  work(0.1);
  raise(SIGINT); /* ends the program, by the default action */
  printf("not reached\n");
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "term-self";
  if (!strcmp(mode, "own-handler"))
    return own_handler();
  pthread_t th;
  if (pthread_create(&th, NULL, worker, NULL) != 0)
    return 4;
  work(0.1);
  if (!strcmp(mode, "term-self")) {
    printf("sending SIGTERM\n");
    fflush(stdout);
    kill(getpid(), SIGTERM);
  } else if (!strcmp(mode, "abort")) {
    printf("aborting\n");
    fflush(stdout);
    abort();
  } else if (!strcmp(mode, "pipe")) {
    for (int i = 0;; i++) {
      printf("line %d\n", i);
      fflush(stdout);
    }
  } else if (!strcmp(mode, "wait") && argc > 2) {
    FILE *f = fopen(argv[2], "w");
    if (!f)
      return 5;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    printf("ready\n");
    fflush(stdout);
    time_t end = time(NULL) + 20;
    while (time(NULL) < end)
      work(0.001);
    return 9;
  }
  printf("not ended\n");
  return 8;
}
