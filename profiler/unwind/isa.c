/* Choosing the per-ISA operations by ELF machine. */
#include <elf.h>

#include "isa.h"

const knit_isa_ops *knit_isa_for_machine(uint16_t elf_machine) {
  switch (elf_machine) {
  case EM_X86_64:
    return &knit_isa_x86_64;
  case EM_AARCH64:
    return &knit_isa_aarch64;
  case EM_PPC64:
    /* EM_PPC64 also names big-endian ELFv1; knit supports only ppc64le, and
     * the caller that cares checks EI_DATA. */
    return &knit_isa_ppc64le;
  default:
    return 0;
  }
}
