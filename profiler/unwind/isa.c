/* The machine table's rows, and finding one. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

const knit_isa_ops *const knit_isas[] = {&knit_isa_x86_64, &knit_isa_aarch64, &knit_isa_ppc64le,
                                         &knit_isa_ppc64, NULL};

const knit_isa_ops *knit_isa_for_elf(uint16_t machine, uint8_t elf_class, uint8_t elf_data)
{
  for (size_t i = 0; knit_isas[i]; i++)
    if (knit_isas[i]->elf_machine == machine && knit_isas[i]->elf_class == elf_class &&
        knit_isas[i]->elf_data == elf_data)
      return knit_isas[i];
  return NULL;
}

/* By machine alone: the first row of that machine (callers that have no
 * ELF header at hand; the byte order is checked where a file is read). */
const knit_isa_ops *knit_isa_for_machine(uint16_t elf_machine)
{
  for (size_t i = 0; knit_isas[i]; i++)
    if (knit_isas[i]->elf_machine == elf_machine)
      return knit_isas[i];
  return NULL;
}

const knit_isa_ops *knit_isa_named(const char *name)
{
  for (size_t i = 0; name && knit_isas[i]; i++)
    if (strcmp(knit_isas[i]->name, name) == 0)
      return knit_isas[i];
  return NULL;
}

void knit_isa_names(char *out, size_t len)
{
  size_t used = 0;
  if (len == 0)
    return;
  out[0] = '\0';
  for (size_t i = 0; knit_isas[i] && used < len; i++) {
    const char *sep = i == 0 ? "" : knit_isas[i + 1] ? ", " : " or ";
    int n = snprintf(out + used, len - used, "%s%s", sep, knit_isas[i]->name);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}
