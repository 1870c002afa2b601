/* ppc64 (ELFv1) function descriptors: a function symbol names a three-
 * doubleword descriptor in .opd (code address, TOC, environment), not the
 * code. The bounds reader asks the row (symbol_code in unwind/isa.h) for the
 * code address: the descriptor's first doubleword, big-endian, as the file
 * holds it (the link-time address, relative to the module like every other
 * address the bounds keep). */
#include <gelf.h>
#include <string.h>

#include "unwind/ppc64/ppc64_descriptors.h"

bool knit_ppc64_symbol_code(Elf *elf, size_t shndx, uint64_t value, uint64_t *code)
{
  size_t shstrndx;
  Elf_Scn *scn = elf_getscn(elf, shndx);
  GElf_Shdr sh;
  if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return false;
  const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
  if (!name || strcmp(name, ".opd") != 0) {
    /* A symbol outside .opd (assembler-local code, or a linker stub) is
     * its own code address. */
    *code = value;
    return (sh.sh_flags & SHF_EXECINSTR) != 0;
  }
  Elf_Data *data = elf_getdata(scn, NULL);
  if (!data || !data->d_buf || value < sh.sh_addr || value - sh.sh_addr > data->d_size ||
      data->d_size - (value - sh.sh_addr) < 8)
    return false;
  const uint8_t *p = (const uint8_t *)data->d_buf + (value - sh.sh_addr);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  *code = v;
  return true;
}
