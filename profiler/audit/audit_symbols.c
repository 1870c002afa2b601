/* Function names from the symbol tables, by address. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_symbols.h"

static int add_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, knit_audit_symbols *out,
                     size_t *cap)
{
  Elf_Data *data = elf_getdata(scn, NULL);
  if (!data || sh->sh_entsize == 0)
    return 0;
  size_t n = sh->sh_size / sh->sh_entsize;
  for (size_t i = 0; i < n; i++) {
    GElf_Sym sym;
    if (!gelf_getsym(data, (int)i, &sym))
      break;
    int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 ||
        sym.st_shndx == SHN_UNDEF)
      continue;
    const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
    if (!name || !*name)
      continue;
    if (out->count == *cap) {
      size_t c = *cap ? *cap * 2 : 1024;
      knit_audit_symbol *v = realloc(out->items, c * sizeof *v);
      if (!v)
        return -1;
      out->items = v;
      *cap = c;
    }
    out->items[out->count].addr = sym.st_value;
    out->items[out->count].name = name;
    out->count++;
  }
  return 0;
}

static int by_addr(const void *pa, const void *pb)
{
  const knit_audit_symbol *a = pa, *b = pb;
  return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int knit_audit_symbols_read(Elf *elf, knit_audit_symbols *out)
{
  memset(out, 0, sizeof *out);
  size_t cap = 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
      continue;
    if (add_table(elf, scn, &sh, out, &cap) != 0)
      return -1;
  }
  if (out->count)
    qsort(out->items, out->count, sizeof *out->items, by_addr);
  return 0;
}

const char *knit_audit_symbols_find(const knit_audit_symbols *s, uint64_t addr, uint64_t *offset)
{
  size_t lo = 0, hi = s->count;
  while (lo < hi) { /* first symbol above addr */
    size_t mid = lo + (hi - lo) / 2;
    if (s->items[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  *offset = addr - s->items[lo - 1].addr;
  return s->items[lo - 1].name;
}

void knit_audit_symbols_free(knit_audit_symbols *s)
{
  free(s->items);
  memset(s, 0, sizeof *s);
}
