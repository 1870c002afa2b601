/* Calls through the PLT named by their relocation; see plt_callee.h. */
#include "report/plt_callee.h"

#include <string.h>

#include "unwind/step_class.h"

/* The section of elf whose addresses hold addr, with its header. */
static Elf_Scn *section_at(Elf *elf, uint64_t addr, GElf_Shdr *sh)
{
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn))
    if (gelf_getshdr(scn, sh) != NULL && (sh->sh_flags & SHF_ALLOC) && addr >= sh->sh_addr &&
        addr - sh->sh_addr < sh->sh_size)
      return scn;
  return NULL;
}

static Elf_Scn *section_named(Elf *elf, size_t names, const char *name, GElf_Shdr *sh)
{
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
    const char *n = gelf_getshdr(scn, sh) != NULL ? elf_strptr(elf, names, sh->sh_name) : NULL;
    if (n != NULL && strcmp(n, name) == 0)
      return scn;
  }
  return NULL;
}

/* The kind of call (knit_call_kind) that ends at ra, and in *target a
 * direct call's target. */
static int call_kind(Elf *elf, const knit_isa_ops *isa, uint64_t ra, uint64_t *target)
{
  GElf_Shdr sh;
  Elf_Scn *scn = section_at(elf, ra - 1, &sh);
  if (scn == NULL || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS)
    return 0;
  Elf_Data *d = elf_getdata(scn, NULL);
  if (d == NULL || d->d_buf == NULL || d->d_size < sh.sh_size)
    return 0;
  uint64_t from = ra - sh.sh_addr < KNIT_CALL_BYTES ? sh.sh_addr : ra - KNIT_CALL_BYTES;
  *target = 0;
  return isa->call_before((const uint8_t *)d->d_buf + (from - sh.sh_addr), (size_t)(ra - from), ra,
                          target);
}

/* The target of the direct call that ends at ra, or 0. */
static uint64_t call_target(Elf *elf, const knit_isa_ops *isa, uint64_t ra)
{
  uint64_t target = 0;
  return call_kind(elf, isa, ra, &target) == KNIT_CALL_DIRECT ? target : 0;
}

int knit_call_ends_at(Elf *elf, const knit_isa_ops *isa, uint64_t addr)
{
  uint64_t target;
  return elf != NULL && isa != NULL && isa->call_before != NULL && addr != 0 &&
         call_kind(elf, isa, addr, &target) != KNIT_CALL_NONE;
}

const char *knit_plt_callee(Elf *elf, const knit_isa_ops *isa, uint64_t ra)
{
  size_t names;
  if (elf == NULL || isa == NULL || isa->call_before == NULL || ra == 0 ||
      elf_getshdrstrndx(elf, &names) != 0)
    return NULL;
  uint64_t target = call_target(elf, isa, ra);
  if (target == 0)
    return NULL;
  GElf_Shdr plt;
  Elf_Scn *scn = section_at(elf, target, &plt);
  const char *plt_name = scn != NULL ? elf_strptr(elf, names, plt.sh_name) : NULL;
  if (plt_name == NULL || (strcmp(plt_name, ".plt") != 0 && strcmp(plt_name, ".plt.sec") != 0))
    return NULL;
  GElf_Shdr rel;
  Elf_Scn *rel_scn = section_named(elf, names, ".rela.plt", &rel);
  if (rel_scn == NULL)
    rel_scn = section_named(elf, names, ".rel.plt", &rel);
  if (rel_scn == NULL || rel.sh_entsize == 0 || rel.sh_size < rel.sh_entsize)
    return NULL;
  uint64_t count = rel.sh_size / rel.sh_entsize;
  /* .plt.sec holds the stubs alone; .plt a header first, as long as the
   * machine table says (plt0_size; 0 for one stub's length). A linker that
   * leaves sh_entsize 0 (aarch64's) leaves the stubs' length to the
   * section's: what the header leaves, shared. */
  uint64_t header = 0, stub = plt.sh_entsize;
  if (strcmp(plt_name, ".plt") == 0) {
    if (stub != 0)
      header = plt.sh_size > count * stub ? plt.sh_size - count * stub : 0;
    else
      header = isa->plt0_size != 0 ? isa->plt0_size : plt.sh_size / (count + 1);
  }
  if (stub == 0)
    stub = plt.sh_size > header ? (plt.sh_size - header) / count : 0;
  if (stub == 0 || header + count * stub != plt.sh_size || target - plt.sh_addr < header ||
      (target - plt.sh_addr - header) % stub != 0)
    return NULL;
  uint64_t index = (target - plt.sh_addr - header) / stub;
  if (index >= count)
    return NULL;
  Elf_Data *d = elf_getdata(rel_scn, NULL);
  size_t sym_index;
  if (d == NULL)
    return NULL;
  if (rel.sh_type == SHT_RELA) {
    GElf_Rela r;
    if (gelf_getrela(d, (int)index, &r) == NULL)
      return NULL;
    sym_index = GELF_R_SYM(r.r_info);
  } else {
    GElf_Rel r;
    if (gelf_getrel(d, (int)index, &r) == NULL)
      return NULL;
    sym_index = GELF_R_SYM(r.r_info);
  }
  Elf_Scn *symtab = elf_getscn(elf, rel.sh_link);
  GElf_Shdr sym_sh;
  Elf_Data *syms = symtab != NULL ? elf_getdata(symtab, NULL) : NULL;
  GElf_Sym sym;
  if (syms == NULL || gelf_getshdr(symtab, &sym_sh) == NULL ||
      gelf_getsym(syms, (int)sym_index, &sym) == NULL || sym.st_name == 0)
    return NULL;
  return elf_strptr(elf, sym_sh.sh_link, sym.st_name);
}
