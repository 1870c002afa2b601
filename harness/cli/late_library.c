/* A program that loads a library and then runs in it without any call
 * that makes knit refresh its load map (no OpenMP, no probe, no thread):
 *
 *   late_library LIBRARY SECONDS
 *
 * dlopens LIBRARY and spins in its late_library_spin for SECONDS of CPU
 * time. Its samples there are in code the map does not know until the
 * program ends. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*spin_fn)(double);

__attribute__((noinline)) static unsigned long run_late_library(const char *path, double seconds)
{
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "late_library: %s\n", dlerror());
    exit(1);
  }
  spin_fn spin = (spin_fn)dlsym(lib, "late_library_spin");
  if (!spin) {
    fprintf(stderr, "late_library: no late_library_spin in %s\n", path);
    exit(1);
  }
  return spin(seconds);
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: late_library LIBRARY SECONDS\n");
    return 2;
  }
  unsigned long x = run_late_library(argv[1], atof(argv[2]));
  printf("late_library: %lu\n", x & 1);
  return 0;
}
