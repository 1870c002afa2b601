/* A vfork child that leaves with _exit at once (what a failed exec does,
 * and posix_spawn's child on error): it runs in the parent's memory until
 * then, so nothing it does on the way out may end the parent's measurement.
 * The parent works on afterwards, in work_after. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"

/* Timed work (hostile.h): a fixed count of iterations took 30 ms on a fast
 * machine, fewer samples than the case asks for. */
static volatile unsigned sink;

__attribute__((noinline)) static void work_before(void)
{
  sink += hostile_spin(0.03);
}

__attribute__((noinline)) static void work_after(void)
{
  sink += hostile_spin(0.12);
}

int main(void)
{
  work_before();
  pid_t pid = vfork();
  if (pid == 0)
    _exit(5);
  int status = 0;
  waitpid(pid, &status, 0);
  work_after();
  printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
