/* dlopen: a program that loads a module of its own at run time (dlopen, not
 * linked) and runs the module's parallel region. The program itself is
 * serial and does not link the OpenMP runtime: the module brings it in.
 *
 *   main -> run_dlopen -> load_module (dlopen + dlsym, once)
 *                      -> [each round] dlmod_run (in the module) -> ...
 *                      -> main_work (1 unit a round)
 *
 * The module (dlopen_mod.c) is found next to the program, so the program
 * runs from its build directory, natively or under QEMU.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

#ifndef KNIT_DLMOD
#define KNIT_DLMOD "libknit_wl_dlmod.so"
#endif

typedef uint64_t (*dlmod_fn)(uint64_t);

/* The module's path: the program's directory (from argv[0], which knit and
 * the harness give as a path) and the module's name. */
NOINLINE static void *load_module(const char *argv0)
{
  char path[PATH_MAX];
  const char *slash = strrchr(argv0, '/');
  int dirlen = slash ? (int)(slash - argv0) : 1;
  snprintf(path, sizeof path, "%.*s/%s", dirlen, slash ? argv0 : ".", KNIT_DLMOD);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    fprintf(stderr, "dlopen: %s\n", dlerror());
  return h;
}

NOINLINE static uint64_t main_work(uint64_t x)
{
  return knit_work(x, 1) + 7;
}

NOINLINE static uint64_t run_dlopen(const char *argv0, int rounds, int *ok)
{
  void *h = load_module(argv0);
  dlmod_fn run = h ? (dlmod_fn)dlsym(h, "dlmod_run") : NULL;
  if (!run) {
    *ok = 0;
    return 0;
  }
  uint64_t x = 5;
  for (int r = 0; r < rounds; r++)
    x = main_work(run(x));
  /* No dlclose: the module brought the OpenMP runtime in, and closing it
   * would unmap the runtime under its idle pool threads (under QEMU that
   * crashed about one run in ten, with or without knit). */
  *ok = 1;
  return x;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 2;
  int ok;
  uint64_t x = run_dlopen(argv[0], rounds, &ok);
  if (!ok)
    return 1;
  printf("dlopen: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
