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

/* The name of the symbol relocation index of rel_scn (whose header is rel)
 * refers to, or NULL. */
static const char *relocation_symbol(Elf *elf, Elf_Scn *rel_scn, const GElf_Shdr *rel,
                                     uint64_t index)
{
  Elf_Data *d = elf_getdata(rel_scn, NULL);
  size_t sym_index;
  if (d == NULL || index > INT32_MAX)
    return NULL;
  if (rel->sh_type == SHT_RELA) {
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
  Elf_Scn *symtab = elf_getscn(elf, rel->sh_link);
  GElf_Shdr sym_sh;
  Elf_Data *syms = symtab != NULL ? elf_getdata(symtab, NULL) : NULL;
  GElf_Sym sym;
  if (syms == NULL || gelf_getshdr(symtab, &sym_sh) == NULL ||
      gelf_getsym(syms, (int)sym_index, &sym) == NULL || sym.st_name == 0)
    return NULL;
  return elf_strptr(elf, sym_sh.sh_link, sym.st_name);
}

/* The index of the relocation of rel_scn at address slot, or -1. */
static int64_t relocation_at(Elf_Scn *rel_scn, const GElf_Shdr *rel, uint64_t slot)
{
  Elf_Data *d = elf_getdata(rel_scn, NULL);
  uint64_t count = rel->sh_size / rel->sh_entsize;
  for (uint64_t i = 0; d != NULL && i < count && i <= INT32_MAX; i++) {
    GElf_Rela ra;
    GElf_Rel r;
    uint64_t offset;
    if (rel->sh_type == SHT_RELA && gelf_getrela(d, (int)i, &ra) != NULL)
      offset = ra.r_offset;
    else if (rel->sh_type != SHT_RELA && gelf_getrel(d, (int)i, &r) != NULL)
      offset = r.r_offset;
    else
      return -1;
    if (offset == slot)
      return (int64_t)i;
  }
  return -1;
}

/* The PLT slot the stub at target, among the code outside .plt, loads its
 * target from, as the machine table decodes it; 0 when it is no stub the
 * table knows (or the ISA has none there). */
static uint64_t stub_slot(Elf *elf, const knit_isa_ops *isa, Elf_Scn *scn, const GElf_Shdr *sh,
                          uint64_t target)
{
  if (isa->plt_stub_slot == NULL || scn == NULL || !(sh->sh_flags & SHF_EXECINSTR) ||
      sh->sh_type != SHT_PROGBITS)
    return 0;
  Elf_Data *d = elf_getdata(scn, NULL);
  if (d == NULL || d->d_buf == NULL || d->d_size < sh->sh_size)
    return 0;
  /* Enough for the longest stub's way to its load. */
  uint64_t at = target - sh->sh_addr;
  size_t n = sh->sh_size - at < 64 ? (size_t)(sh->sh_size - at) : 64;
  uint64_t base = isa->plt_stub_base != NULL ? isa->plt_stub_base(elf) : 0;
  return isa->plt_stub_slot((const uint8_t *)d->d_buf + at, n, target, base);
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
  GElf_Shdr rel;
  Elf_Scn *rel_scn = section_named(elf, names, ".rela.plt", &rel);
  if (rel_scn == NULL)
    rel_scn = section_named(elf, names, ".rel.plt", &rel);
  if (rel_scn == NULL || rel.sh_entsize == 0 || rel.sh_size < rel.sh_entsize)
    return NULL;
  if (plt_name == NULL || (strcmp(plt_name, ".plt") != 0 && strcmp(plt_name, ".plt.sec") != 0)) {
    /* A stub among the code: the relocation at the slot it loads. */
    uint64_t slot = stub_slot(elf, isa, scn, &plt, target);
    int64_t index = slot != 0 ? relocation_at(rel_scn, &rel, slot) : -1;
    return index >= 0 ? relocation_symbol(elf, rel_scn, &rel, (uint64_t)index) : NULL;
  }
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
  return relocation_symbol(elf, rel_scn, &rel, index);
}
