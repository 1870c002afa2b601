/* Parents of the parts of hot/cold split functions (bounds.h, parent).
 *
 * gcc -O2 moves a function's unlikely blocks into a separate part, foo.cold
 * (.text.unlikely), entered by jumps from foo with foo's frame in place. Its
 * bounds (a symbol, or only an FDE in a stripped library) make it look like
 * a function of its own, which the analyzer would take as entered by a call.
 *
 * The parts are found by their jumps rather than paired by name: the
 * system's libraries are stripped (libc, libstdc++ and libgomp have no
 * foo.cold symbols, only FDEs), and a jump is what the analysis needs
 * anyway. The scan reads the code bytes once, without decoding: every
 * jmp rel32 (e9) and jcc rel32 (0f 80..8f) whose target is a function's
 * start names the function it lies in as a jumper, every call rel32 (e8)
 * marks its target as called. A function that is never called and is
 * jumped to from exactly one other function gets that one as its parent.
 * Bytes that only look like such an instruction (inside another one) can
 * add a wrong candidate; that is harmless, since the parent's analysis must
 * then see the jump (knit_isa_ops.analyze_entered reports whether it did),
 * and otherwise the part is analyzed as entered by a call, as before. A
 * function reached only by tail calls from one function gets that one as
 * its parent too; the state at a tail call is the entry state, so its
 * recipes do not change.
 *
 * Read with the bounds, when a module is loaded: reading all of libc's
 * bounds, this scan included, takes about 8 ms on the project's VM. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "core/arena.h"
#include "bounds_source.h"

/* A jumper that is not the only one. */
#define MANY UINT64_MAX

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* The index of the function starting exactly at vaddr, or t->count. */
static size_t start_index(const knit_func_table *t, uint64_t vaddr) {
  if (t->count == 0 || vaddr < t->start[0] || vaddr > t->start[t->count - 1])
    return t->count;
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

typedef struct scan {
  const knit_func_table *t;
  uint64_t *jumper; /* per function: 0, the one jumping function, or MANY */
  uint8_t *called;  /* per function: a call rel32 targets its start */
  size_t cursor;    /* the function of the previous jump site (sites come
                       in address order, so most look-ups are one step) */
} scan;

/* The start of the function holding the site, or 0. */
static uint64_t site_function(scan *s, uint64_t site) {
  const knit_func_table *t = s->t;
  size_t i = s->cursor;
  if (!(i < t->count && t->start[i] <= site && site < t->end[i])) {
    uint64_t start;
    if (!knit_bounds_lookup(t, site, &start, NULL))
      return 0;
    i = start_index(t, start);
    s->cursor = i;
  }
  return t->start[i];
}

static void scan_section(scan *s, const uint8_t *code, size_t size, uint64_t addr) {
  const knit_func_table *t = s->t;
  for (size_t i = 0; i + 5 <= size; i++) {
    uint8_t op = code[i];
    size_t insn_len;
    if (op == 0xe8 || op == 0xe9)
      insn_len = 5;
    else if (op == 0x0f && i + 6 <= size && (code[i + 1] & 0xf0) == 0x80)
      insn_len = 6;
    else
      continue;
    int32_t rel = (int32_t)le32(code + i + insn_len - 4);
    uint64_t target = addr + i + insn_len + (uint64_t)(int64_t)rel;
    size_t f = start_index(t, target);
    if (f == t->count)
      continue;
    if (op == 0xe8) {
      s->called[f] = 1;
      continue;
    }
    uint64_t from = site_function(s, addr + i);
    if (from == 0 || from == target)
      continue; /* outside every function, or a loop back to the start */
    if (s->jumper[f] == 0)
      s->jumper[f] = from;
    else if (s->jumper[f] != from)
      s->jumper[f] = MANY;
  }
}

static bool is_plt_section(const char *name) {
  return strncmp(name, ".plt", 4) == 0 || strcmp(name, ".iplt") == 0;
}

int knit_bounds_find_parts(Elf *elf, uint16_t machine, knit_func_table *t) {
  t->parent = NULL;
  size_t shstrndx;
  if (machine != EM_X86_64 || t->count == 0 ||
      elf_getshdrstrndx(elf, &shstrndx) != 0)
    return 0;
  scan s = {.t = t};
  s.jumper = knit_pages_alloc(t->count * sizeof *s.jumper);
  s.called = knit_pages_alloc(t->count);
  if (!s.jumper || !s.called) {
    knit_pages_free(s.jumper);
    knit_pages_free(s.called);
    return -1;
  }
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
        !(sh.sh_flags & SHF_EXECINSTR))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (name && is_plt_section(name))
      continue; /* stubs jump to resolved targets, never to a part */
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (d && d->d_buf && d->d_size >= sh.sh_size)
      scan_section(&s, d->d_buf, (size_t)sh.sh_size, sh.sh_addr);
  }
  size_t parts = 0;
  for (size_t i = 0; i < t->count; i++) {
    if (s.called[i] || s.jumper[i] == MANY)
      s.jumper[i] = 0;
    parts += s.jumper[i] != 0;
  }
  knit_pages_free(s.called);
  if (parts == 0)
    knit_pages_free(s.jumper);
  else
    t->parent = s.jumper;
  return 0;
}
