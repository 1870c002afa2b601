/*
 * OMP_TOOL_LIBRARIES discovery: the program defines no tool; the runtime
 * must load the library named by the environment and initialize it.
 *
 * Usage: ompt_discovery TOOL.so [--disabled]
 *   without --disabled: the tool must be loaded and have seen every region;
 *   with --disabled (OMP_TOOL=disabled): the tool must not even be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s TOOL.so [--disabled]\n", argv[0]);
    return 2;
  }
  int disabled = argc > 2 && strcmp(argv[2], "--disabled") == 0;
  int n = 0;
  for (int r = 0; r < 3; r++) {
#pragma omp parallel num_threads(2)
    __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
  }
  if (n != 6) {
    fprintf(stderr, "ompt_discovery: regions ran %d threads, want 6\n", n);
    return 1;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  if (disabled) {
    if (h) {
      fprintf(stderr, "ompt_discovery: tool loaded although OMP_TOOL=disabled\n");
      return 1;
    }
    printf("ompt_discovery: no tool, as wanted\n");
    return 0;
  }
  if (!h) {
    fprintf(stderr, "ompt_discovery: %s was not loaded\n", argv[1]);
    return 1;
  }
  int (*regions)(void) = (int (*)(void))dlsym(h, "mockrt_test_tool_regions");
  int got = regions ? regions() : -2;
  if (got != 3) {
    fprintf(stderr, "ompt_discovery: tool saw %d regions, want 3\n", got);
    return 1;
  }
  printf("ompt_discovery: tool loaded and saw 3 regions\n");
  return 0;
}
