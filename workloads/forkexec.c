/* forkexec: a program that forks; the child execs this same program with the
 * argument "child", which does probed work of its own; the parent waits.
 * No OpenMP.
 *
 *   parent: main -> run_parent -> parent_work (1 unit a round), spawn_child
 *           (fork, exec, wait), parent_work (1 unit a round)
 *   child:  main -> run_child -> child_work (2 units)
 *                             -> child_work -> child_leaf (1 unit), per round
 *
 * knit measures both processes, each in its own tree under its own main:
 * the exec'ed child writes into a directory of its own inside the parent's
 * measurement (see docs/design-notes.md, "Processes"). Between fork and
 * exec the child runs no code of the program's and is not measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static uint64_t child_leaf(uint64_t x)
{
  return knit_work(x, 1) + 1;
}

NOINLINE static uint64_t child_work(uint64_t x)
{
  return child_leaf(knit_work(x, 2)) + 2;
}

NOINLINE static uint64_t run_child(int rounds)
{
  uint64_t x = 23;
  for (int r = 0; r < rounds; r++)
    x = child_work(x);
  return x;
}

NOINLINE static uint64_t parent_work(uint64_t x, int rounds)
{
  return knit_work(x, (unsigned)rounds) + 3;
}

/* Runs `self child ROUNDS` in a child process and waits for it; returns
 * whether it succeeded. */
NOINLINE static int spawn_child(const char *self, const char *rounds)
{
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 0;
  }
  if (pid == 0) {
    char *args[] = {(char *)self, "child", (char *)rounds, NULL};
    execv(self, args);
    perror("execv");
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    ;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

NOINLINE static uint64_t run_parent(const char *self, const char *rounds_arg, int *ok)
{
  int rounds = atoi(rounds_arg);
  uint64_t x = 29;
  x = parent_work(x, rounds);
  *ok = spawn_child(self, rounds_arg);
  /* Not in tail position: run_parent's frame stays over the second call. */
  return parent_work(x, rounds) * 3;
}

int main(int argc, char **argv)
{
  if (argc > 2 && strcmp(argv[1], "child") == 0) {
    int rounds = atoi(argv[2]);
    uint64_t x = run_child(rounds);
    printf("forkexec child: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
    return 0;
  }
  const char *rounds = argc > 1 ? argv[1] : "2";
  int ok;
  uint64_t x = run_parent(argv[0], rounds, &ok);
  printf("forkexec: child %s, checksum %016llx\n", ok ? "ok" : "FAILED", (unsigned long long)x);
  return ok ? 0 : 1;
}
