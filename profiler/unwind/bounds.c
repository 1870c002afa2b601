/* Function bounds of one ELF file.
 *
 * Candidates come from four places, ranked by how much their end can be
 * trusted: symbols with a size, .eh_frame FDEs (start and range), PLT stubs
 * (one per entry of the section), and starts without an end (symbols of size
 * 0 and the .eh_frame_hdr search table). The merge keeps one entry per start,
 * the best-ranked one, and clips every function at the start of the next, so
 * that a lookup is a plain binary search.
 *
 * The .eh_frame parsing lives in bounds_eh_frame.c; this file owns the
 * candidate list, the symbol and PLT sources, the merge and the lookup.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "base/arena.h"
#include "bounds_source.h"
#include "isa.h"

int knit_bounds_add(knit_bounds_candidates *c, uint64_t start, uint64_t end, int rank)
{
  if (start == 0 || (end != 0 && end <= start))
    return 0; /* undefined, or a function of no size: nothing to find */
  if (c->count == c->capacity) {
    size_t cap = c->capacity ? c->capacity * 2 : 1024;
    knit_bounds_candidate *v = knit_pages_resize(c->items, cap * sizeof *v);
    if (!v)
      return -1;
    c->items = v;
    c->capacity = cap;
  }
  c->items[c->count].start = start;
  c->items[c->count].end = end;
  c->items[c->count].rank = rank;
  c->count++;
  return 0;
}

/* Where a symbol of size 0 must end at the latest: the end of its section. */
static uint64_t section_end(Elf *elf, size_t shndx)
{
  Elf_Scn *scn = elf_getscn(elf, shndx);
  GElf_Shdr sh;
  if (!scn || !gelf_getshdr(scn, &sh))
    return 0;
  return sh.sh_addr + sh.sh_size;
}

/* The end of the executable section that holds addr, or 0. */
static uint64_t code_section_end(Elf *elf, uint64_t addr)
{
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while ((scn = elf_nextscn(elf, scn)) != NULL)
    if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && addr >= sh.sh_addr &&
        addr < sh.sh_addr + sh.sh_size)
      return sh.sh_addr + sh.sh_size;
  return 0;
}

static int add_symbols(Elf *elf, const knit_isa_ops *isa, Elf_Scn *scn, const GElf_Shdr *sh,
                       knit_bounds_candidates *c)
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
    if (type != STT_FUNC && type != STT_GNU_IFUNC)
      continue;
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
      continue;
    int rc;
    if (isa && isa->symbol_code) {
      /* A descriptor: its size is the code's; when unknown, the end of
       * the code's own section bounds it (_init's descriptor names .init,
       * which must not reach into the linker's call stubs at the start of
       * .text). */
      uint64_t code;
      if (!isa->symbol_code(elf, sym.st_shndx, sym.st_value, &code) || code == 0)
        continue;
      rc = sym.st_size > 0
               ? knit_bounds_add(c, code, code + sym.st_size, KNIT_RANK_SIZED_SYMBOL)
               : knit_bounds_add(c, code, code_section_end(elf, code), KNIT_RANK_OPEN_START);
    } else if (sym.st_size > 0) {
      rc = knit_bounds_add(c, sym.st_value, sym.st_value + sym.st_size, KNIT_RANK_SIZED_SYMBOL);
    } else {
      /* The end is the next start; the section end bounds the last one. */
      uint64_t limit = section_end(elf, sym.st_shndx);
      rc = knit_bounds_add(c, sym.st_value, limit > sym.st_value ? limit : 0, KNIT_RANK_OPEN_START);
    }
    if (rc != 0)
      return -1;
  }
  return 0;
}

/* The code-carrying PLT sections. ppc64's .plt is a data table (its stubs
 * are in .text and named by symbols), which the SHF_EXECINSTR test skips. */
static bool is_plt_name(const char *name)
{
  return strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
         strcmp(name, ".plt.got") == 0 || strcmp(name, ".iplt") == 0;
}

static int add_plt(uint16_t machine, const char *name, const GElf_Shdr *sh,
                   knit_bounds_candidates *c)
{
  uint64_t entry = sh->sh_entsize;
  if (entry == 0 || entry > sh->sh_size)
    entry = 16;
  /* The resolver stub PLT0 heads .plt: one entry, or the machine table's
   * size for it (aarch64's takes two). */
  uint64_t first = entry;
  const knit_isa_ops *isa = knit_isa_for_machine(machine);
  if (strcmp(name, ".plt") == 0 && isa && isa->plt0_size)
    first = isa->plt0_size;
  uint64_t at = sh->sh_addr, end = sh->sh_addr + sh->sh_size;
  if (c->plt_lo == c->plt_hi || at < c->plt_lo)
    c->plt_lo = at;
  if (end > c->plt_hi)
    c->plt_hi = end;
  for (uint64_t size = first; at + size <= end; at += size, size = entry)
    if (knit_bounds_add(c, at, at + size, KNIT_RANK_PLT) != 0)
      return -1;
  return 0;
}

static int collect(Elf *elf, const knit_isa_ops *isa, uint16_t machine, knit_bounds_candidates *c)
{
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return 0; /* no section headers: nothing to read */
  knit_eh_sections eh = {0};
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name)
      name = "";
    if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
      if (add_symbols(elf, isa, scn, &sh, c) != 0)
        return -1;
    } else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && is_plt_name(name)) {
      if (add_plt(machine, name, &sh, c) != 0)
        return -1;
    } else if ((sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND) &&
               strcmp(name, ".eh_frame") == 0) {
      /* LLVM's linker types x86-64 unwind tables SHT_X86_64_UNWIND; the
       * contents are the same. */
      eh.eh_frame = scn;
      eh.eh_frame_addr = sh.sh_addr;
    } else if ((sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND) &&
               strcmp(name, ".eh_frame_hdr") == 0) {
      eh.eh_frame_hdr = scn;
      eh.eh_frame_hdr_addr = sh.sh_addr;
    }
  }
  return knit_bounds_add_eh_frame(elf, &eh, c);
}

static int by_start_then_rank(const void *pa, const void *pb)
{
  const knit_bounds_candidate *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->rank != b->rank)
    return a->rank - b->rank;
  /* Among aliases of one rank, the longest first. */
  return a->end > b->end ? -1 : a->end < b->end;
}

/* Sorts the candidates and writes one function per start into t, each
 * clipped at the next start. */
static int merge(knit_bounds_candidates *c, knit_func_table *t)
{
  qsort(c->items, c->count, sizeof *c->items, by_start_then_rank);
  t->start = knit_pages_alloc((c->count ? c->count : 1) * sizeof *t->start);
  t->end = knit_pages_alloc((c->count ? c->count : 1) * sizeof *t->end);
  if (!t->start || !t->end)
    return -1;
  size_t n = 0;
  for (size_t i = 0; i < c->count;) {
    uint64_t start = c->items[i].start;
    /* The best-ranked candidate of this start comes first; when its end is
     * open, the next one of the same start with a known end supplies it. */
    uint64_t end = 0;
    size_t j = i;
    for (; j < c->count && c->items[j].start == start; j++)
      if (end == 0 && c->items[j].rank != KNIT_RANK_OPEN_START)
        end = c->items[j].end;
    uint64_t limit = 0; /* a section end, from an open start */
    for (size_t k = i; k < j; k++)
      if (c->items[k].rank == KNIT_RANK_OPEN_START && c->items[k].end != 0)
        limit = limit ? (c->items[k].end < limit ? c->items[k].end : limit) : c->items[k].end;
    uint64_t next = j < c->count ? c->items[j].start : 0;
    if (end == 0)
      end = next ? (limit && limit < next ? limit : next) : limit;
    else if (next && end > next)
      end = next; /* overlaps the next function: clip */
    i = j;
    if (end <= start)
      continue; /* an open start at the very end: no known extent */
    t->start[n] = start;
    t->end[n] = end;
    n++;
  }
  t->count = n;
  return 0;
}

/* The bounds of an open ELF handle; what names it in messages. */
static int read_elf(Elf *elf, const char *what, knit_func_table *out, char *err, size_t errlen)
{
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
    snprintf(err, errlen, "%s: not an ELF file", what);
    return -1;
  }
  out->elf_machine = eh.e_machine;
  const knit_isa_ops *isa =
      knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
  knit_bounds_candidates c = {0};
  int rc = collect(elf, isa, eh.e_machine, &c);
  if (rc == 0)
    rc = merge(&c, out);
  if (rc == 0 && isa && isa->find_parts)
    rc = isa->find_parts(elf, out);
  else
    out->parent = NULL;
  out->plt_lo = c.plt_lo;
  out->plt_hi = c.plt_hi;
  if (rc != 0) {
    snprintf(err, errlen, "%s: out of memory", what);
    knit_bounds_free(out);
  }
  knit_pages_free(c.items);
  return rc;
}

static bool libelf_ready(char *err, size_t errlen)
{
  if (elf_version(EV_CURRENT) != EV_NONE)
    return true;
  snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
  return false;
}

int knit_bounds_read(const char *path, knit_func_table *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (!libelf_ready(err, errlen))
    return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open", path);
    return -1;
  }
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  int rc = read_elf(elf, path, out, err, errlen);
  if (elf)
    elf_end(elf);
  close(fd);
  return rc;
}

int knit_bounds_read_image(const void *image, size_t size, knit_func_table *out, char *err,
                           size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (!libelf_ready(err, errlen))
    return -1;
  /* A copy: libelf may write into the memory it is given, and the image
   * (the vdso) is mapped read-only. */
  char *copy = knit_pages_alloc(size);
  if (!copy) {
    snprintf(err, errlen, "an ELF image in memory: out of memory");
    return -1;
  }
  memcpy(copy, image, size);
  Elf *elf = elf_memory(copy, size);
  int rc = read_elf(elf, "an ELF image in memory", out, err, errlen);
  if (elf)
    elf_end(elf);
  knit_pages_free(copy);
  return rc;
}

bool knit_bounds_lookup(const knit_func_table *t, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
  /* The last function starting at or below vaddr is the only candidate. */
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->start[mid] <= vaddr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || vaddr >= t->end[lo - 1])
    return false;
  if (start)
    *start = t->start[lo - 1];
  if (end)
    *end = t->end[lo - 1];
  return true;
}

size_t knit_bounds_index_of_start(const knit_func_table *t, uint64_t vaddr)
{
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->start[mid] < vaddr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->count && t->start[lo] == vaddr ? lo : t->count;
}

bool knit_bounds_parent(const knit_func_table *t, uint64_t start, uint64_t *parent_start,
                        uint64_t *parent_end)
{
  if (!t->parent)
    return false;
  size_t i = knit_bounds_index_of_start(t, start);
  if (i == t->count || t->parent[i] == 0)
    return false;
  return knit_bounds_lookup(t, t->parent[i], parent_start, parent_end);
}

void knit_bounds_free(knit_func_table *t)
{
  knit_pages_free(t->start);
  knit_pages_free(t->end);
  knit_pages_free(t->parent);
  t->start = NULL;
  t->end = NULL;
  t->parent = NULL;
  t->count = 0;
}
