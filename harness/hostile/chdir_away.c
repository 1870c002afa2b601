/* Changes its working directory before it works, in the main thread and in
 * a thread of its own, then starts a child process there: the measurement
 * stays where `knit record` put it, whole. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"

static volatile unsigned long sink;

/* Work for a time on the clock (hostile.h): a count of iterations gave
 * too few samples on a fast or loaded machine. */
static void work(double seconds)
{
  sink += hostile_spin(seconds);
}

static void *worker(void *arg)
{
  (void)arg;
  work(0.1);
  return NULL;
}

int main(int argc, char **argv)
{
  const char *away = argc > 1 ? argv[1] : "/";
  if (chdir(away) != 0)
    return 3;
  pthread_t th;
  if (pthread_create(&th, NULL, worker, NULL) != 0)
    return 4;
  work(0.1);
  pthread_join(th, NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* The child re-runs this program with no work: its own measurement goes
     * in the first one's directory, wherever its cwd is. */
    execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
