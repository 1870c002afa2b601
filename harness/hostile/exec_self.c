/* Replaces its own image without forking, as launcher scripts and
 * self-re-executing programs do: the first image works in work_first, then
 * execs this program again with "second", which works in work_second. Both
 * images are measured: the first in a directory of its own.
 * With "bad FILE", the exec is of FILE, made executable but not a program
 * (the kernel refuses it): the image goes on, into work_second. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
  if (argc > 2 && !strcmp(argv[1], "bad")) {
    FILE *f = fopen(argv[2], "w");
    if (!f)
      return 4;
    fputs("\x01\x02 not a program\n", f);
    fclose(f);
    chmod(argv[2], 0755);
    work_first();
    execl(argv[2], argv[2], (char *)NULL);
    printf("exec refused\n");
    work_second();
    return 0;
  }
  work_first();
  printf("first image\n");
  fflush(stdout);
  execl(argv[0], argv[0], "second", (char *)NULL);
  perror("execl");
  return 3;
}
