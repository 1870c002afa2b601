/* A vfork child that leaves with _exit at once (what a failed exec does,
 * and posix_spawn's child on error): it runs in the parent's memory until
 * then, so nothing it does on the way out may end the parent's measurement.
 * The parent works on afterwards, in work_after. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work_before(void)
{
  for (unsigned long i = 0; i < 20000000; i++)
    sink += i;
}

__attribute__((noinline)) static void work_after(void)
{
  for (unsigned long i = 0; i < 80000000; i++)
    sink += i * 3;
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
