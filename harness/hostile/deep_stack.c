/* Works at the bottom of a recursion DEPTH calls deep (default 400), deeper
 * than knit's 256-frame walk: the samples there are cut, and the
 * measurement must say so rather than pass them off as whole. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long descend(int depth)
{
  if (depth == 0) {
    for (unsigned long i = 0; i < 150000000; i++)
      sink += i;
    return sink & 1;
  }
  unsigned long r = descend(depth - 1);
  sink += r;
  return r + 1;
}

int main(int argc, char **argv)
{
  int depth = argc > 1 ? atoi(argv[1]) : 400;
  printf("descended %lu\n", descend(depth) - (sink & 1));
  return 0;
}
