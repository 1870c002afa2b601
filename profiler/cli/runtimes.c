/* Runtimes and ABIs: see runtimes.h. */
#include "cli/runtimes.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const knit_runtime runtimes[] = {
    {"system", NULL, NULL, 0, "whatever the program links, as found by the system"},
    {"mock-gomp", "mock-gomp", "libgomp.so.1", KNIT_ABI_GOMP,
     "knit's GNU-layout mock (GOMP ABI: gcc-built programs)"},
    {"mock-intel", "mock-intel", "libomp.so.5", KNIT_ABI_KMPC,
     "knit's Intel-layout mock, with a shepherd thread (__kmpc ABI: clang-built programs)"},
    {"mock-pgi", "mock-pgi", "libomp.so.5", KNIT_ABI_KMPC,
     "knit's PGI-layout mock, with cactus stacks (__kmpc ABI: clang-built programs)"},
    {"libomp", "real-libomp", "libomp.so.5", KNIT_ABI_GOMP | KNIT_ABI_KMPC,
     "LLVM's libomp, which speaks both ABIs and has OMPT"},
    {"libgomp", NULL, NULL, KNIT_ABI_GOMP, "GNU libgomp (GOMP ABI; no OMPT)"},
};

const knit_runtime *knit_runtime_find(const char *name)
{
  for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
    if (strcmp(runtimes[i].name, name) == 0)
      return &runtimes[i];
  return NULL;
}

void knit_runtime_names(char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++) {
    int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", runtimes[i].name);
    if (n < 0 || (size_t)n >= len - used)
      break;
    used += (size_t)n;
  }
}

unsigned knit_program_abis(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  unsigned abis = 0;
  Elf_Scn *scn = NULL;
  while (elf && (scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; data && i < n; i++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
        continue;
      const char *lib = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
      if (lib && strcmp(lib, "libgomp.so.1") == 0)
        abis |= KNIT_ABI_GOMP;
      else if (lib && (strcmp(lib, "libomp.so.5") == 0 || strcmp(lib, "libomp.so") == 0 ||
                       strcmp(lib, "libiomp5.so") == 0))
        abis |= KNIT_ABI_KMPC;
    }
  }
  if (elf)
    elf_end(elf);
  close(fd);
  return abis;
}
