/* Prints how many arguments it got and the last one: a program run over
 * thousands of files (find | xargs style) must get them all. */
#include <stdio.h>

int main(int argc, char **argv)
{
  printf("%d arguments, last %s\n", argc - 1, argv[argc - 1]);
  return 0;
}
