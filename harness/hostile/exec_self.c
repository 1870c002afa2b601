/* Replaces its own image without forking, as launcher scripts and
 * self-re-executing programs do: the first image works in work_first, then
 * execs this program again with "second", which works in work_second. Both
 * images are measured: the first in a directory of its own. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work_first(void)
{
  for (unsigned long i = 0; i < 60000000; i++)
    sink += i ^ 5;
}

__attribute__((noinline)) static void work_second(void)
{
  for (unsigned long i = 0; i < 60000000; i++)
    sink += i ^ 9;
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "second")) {
    work_second();
    printf("second image\n");
    return 0;
  }
  work_first();
  printf("first image\n");
  fflush(stdout);
  execl(argv[0], argv[0], "second", (char *)NULL);
  perror("execl");
  return 3;
}
