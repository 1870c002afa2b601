/* A program whose code comes from a file that is gone by the report's
 * time, as LLVM's offloading plugin for the host does with each target
 * image (writes it to a temporary file, dlopens it, deletes it):
 *
 *   temp_module LIBRARY DIR MODE
 *
 * copies LIBRARY to a new file in DIR, dlopens it from there and runs its
 * temp_module_spin under probes. MODE says what becomes of the file:
 *   unseen    deleted right after dlopen, before knit can have looked
 *   seen      deleted after a first probe (knit saw the module while the
 *             file was there)
 *   replaced  as seen, then another ELF file (this program) written under
 *             the same name, left there for the report to find
 * The copy's path is printed, and its absence checked at the end. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int copy_file(const char *from, int to_fd)
{
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return -1;
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(to_fd, buf, (size_t)n) != n) {
      n = -1;
      break;
    }
  close(in);
  return n < 0 ? -1 : 0;
}

static int fail(const char *what)
{
  fprintf(stderr, "temp_module: %s\n", what);
  return 1;
}

int main(int argc, char **argv)
{
  if (argc != 4)
    return fail("usage: temp_module LIBRARY DIR unseen|seen|replaced");
  const char *mode = argv[3];
  int seen = strcmp(mode, "seen") == 0, replaced = strcmp(mode, "replaced") == 0;
  if (!seen && !replaced && strcmp(mode, "unseen") != 0)
    return fail("MODE is unseen, seen or replaced");
  char path[4096];
  snprintf(path, sizeof path, "%s/temp-module-XXXXXX", argv[2]);
  int fd = mkstemp(path);
  if (fd < 0 || copy_file(argv[1], fd) != 0 || close(fd) != 0)
    return fail("cannot copy the library");
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib)
    return fail(dlerror());
  void (*touch)(void) = (void (*)(void))dlsym(lib, "temp_module_touch");
  unsigned long (*spin)(unsigned) = (unsigned long (*)(unsigned))dlsym(lib, "temp_module_spin");
  if (!touch || !spin)
    return fail("the library lacks temp_module_touch or temp_module_spin");
  if (seen || replaced)
    touch();
  unlink(path);
  if (replaced) {
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || copy_file("/proc/self/exe", fd) != 0 || close(fd) != 0)
      return fail("cannot write the other file");
  }
  unsigned long x = spin(200);
  printf("temp_module: %s, %s, checksum %lx\n", path, mode, x);
  if (!replaced && access(path, F_OK) == 0)
    return fail("the copy is still there");
  return 0;
}
