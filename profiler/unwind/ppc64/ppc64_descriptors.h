/* ppc64 (ELFv1) function descriptors: symbol_code of the ppc64 row. */
#ifndef KNIT_UNWIND_PPC64_DESCRIPTORS_H
#define KNIT_UNWIND_PPC64_DESCRIPTORS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool knit_ppc64_symbol_code(Elf *elf, size_t shndx, uint64_t value, uint64_t *code);

#endif /* KNIT_UNWIND_PPC64_DESCRIPTORS_H */
