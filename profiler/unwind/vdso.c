/* The vdso's image: see vdso.h. */
#include "unwind/vdso.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

const void *knit_vdso_image(size_t *size)
{
  uintptr_t at = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
  if (!at)
    return NULL;
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)at;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
    return NULL;
  /* The section table ends the image; the loadable segment, read from the
   * file's start, may reach further. */
  size_t end = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(at + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
      end = (size_t)(ph[i].p_offset + ph[i].p_filesz);
  *size = end;
  return eh;
}
