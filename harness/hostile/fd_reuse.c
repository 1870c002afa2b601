/* Closes every descriptor from 3 up (as daemons and shells do before they
 * run something), then writes a file of its own through the lowest free
 * descriptor while it works, and prints what the file holds: exactly the
 * lines it wrote. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

static void work(unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    sink += i * i;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: fd_reuse FILE\n");
    return 2;
  }
  for (int fd = 3; fd < 1024; fd++)
    close(fd);
  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return 3;
  for (int i = 0; i < 5; i++) {
    char line[64];
    int n = snprintf(line, sizeof line, "line %d\n", i);
    work(20000000);
    if (write(fd, line, (size_t)n) != n)
      return 4;
  }
  char buf[4096];
  ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
  if (got < 0)
    return 5;
  buf[got] = '\0';
  fputs(buf, stdout);
  printf("fd %d, %zd bytes\n", fd, got);
  close(fd);
  return 0;
}
