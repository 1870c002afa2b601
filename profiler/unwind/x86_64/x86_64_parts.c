/* x86-64: parents of the parts of hot/cold split functions (bounds.h,
 * parent; the machine table's find_parts).
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
 * Read with the bounds, when a module is loaded, at every start of a
 * program: libc's bounds, this scan included, take about 20 million
 * instructions (33 million with a byte-by-byte scan and a binary search
 * per target; the parents found are the same). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "unwind/bounds.h"
#include "unwind/x86_64/x86_64_parts.h"

/* A jumper that is not the only one. */
#define MANY UINT64_MAX

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Function starts and called starts as bits, one per byte from the first
 * start to the last: most rel32 look-alikes land in the module but on no
 * start, and a bit test turns them away where a binary search over
 * thousands of starts cost a third of knit's start-up (libc, libstdc++ and
 * libomp together: about 5 ms of 16). Calls, the bulk of what does land on
 * a start, only set a bit. */
typedef struct scan {
  const knit_func_table *t;
  uint64_t *jumper;     /* per function: 0, the one jumping function, or MANY */
  uint8_t *is_start;    /* bit per byte from t->start[0]: a function starts */
  uint8_t *called;      /* bit per byte from t->start[0]: a call rel32 targets it */
  uint64_t first, last; /* t->start[0] and t->start[t->count - 1] */
  size_t cursor;        /* the function of the previous jump site (sites come
                       in address order, so most look-ups are one step) */
} scan;

static bool bit(const uint8_t *bits, uint64_t offset)
{
  return bits[offset >> 3] >> (offset & 7) & 1;
}

static void set_bit(uint8_t *bits, uint64_t offset)
{
  bits[offset >> 3] |= (uint8_t)(1u << (offset & 7));
}

/* The start of the function holding the site, or 0. */
static uint64_t site_function(scan *s, uint64_t site)
{
  const knit_func_table *t = s->t;
  size_t i = s->cursor;
  if (!(i < t->count && t->start[i] <= site && site < t->end[i])) {
    uint64_t start;
    if (!knit_bounds_lookup(t, site, &start, NULL))
      return 0;
    i = knit_bounds_index_of_start(t, start);
    s->cursor = i;
  }
  return t->start[i];
}

/* The rel32 call, jmp or jcc that may start at code[i] (section offset):
 * its target noted when it is a function's start. */
static void consider(scan *s, const uint8_t *code, size_t size, uint64_t addr, size_t i)
{
  uint8_t op = code[i];
  size_t insn_len;
  if (op == 0xe8 || op == 0xe9)
    insn_len = 5;
  else if (op == 0x0f && i + 6 <= size && (code[i + 1] & 0xf0) == 0x80)
    insn_len = 6;
  else
    return;
  if (i + insn_len > size)
    return;
  int32_t rel = (int32_t)le32(code + i + insn_len - 4);
  uint64_t target = addr + i + insn_len + (uint64_t)(int64_t)rel;
  if (target < s->first || target > s->last || !bit(s->is_start, target - s->first))
    return;
  if (op == 0xe8) {
    set_bit(s->called, target - s->first);
    return;
  }
  size_t f = knit_bounds_index_of_start(s->t, target);
  uint64_t from = site_function(s, addr + i);
  if (from == 0 || from == target)
    return; /* outside every function, or a loop back to the start */
  if (s->jumper[f] == 0)
    s->jumper[f] = from;
  else if (s->jumper[f] != from)
    s->jumper[f] = MANY;
}

#define BYTES(b) (0x0101010101010101ull * (b))

/* 0x80 in each byte of v that is zero, 0 in the others. */
static uint64_t zero_bytes(uint64_t v)
{
  return ~(((v & BYTES(0x7f)) + BYTES(0x7f)) | v | BYTES(0x7f));
}

/* 0x80 in each byte of the (little-endian) word that may open a rel32
 * call or jmp (e8, e9: the bytes whose value | 1 is e9) or jcc (0f
 * followed by 8x; the word's last byte is kept when it is 0f, its second
 * byte being in the next word). */
static uint64_t opcode_bytes(uint64_t w)
{
  uint64_t calls = zero_bytes((w | BYTES(0x01)) ^ BYTES(0xe9));
  uint64_t escapes = zero_bytes(w ^ BYTES(0x0f));
  uint64_t jcc_second = zero_bytes((w & BYTES(0xf0)) ^ BYTES(0x80)) >> 8;
  return calls | (escapes & (jcc_second | 0x80ull << 56));
}

/* Every byte offset is a possible instruction start (the scan does not
 * decode). Eight bytes are tested at once and only the offsets holding an
 * opcode byte are looked at: byte by byte, the scan was two thirds of
 * reading libc's bounds. */
static void scan_section(scan *s, const uint8_t *code, size_t size, uint64_t addr)
{
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    memcpy(&w, code + i, sizeof w);
    for (uint64_t hits = opcode_bytes(w); hits; hits &= hits - 1)
      consider(s, code, size, addr, i + (size_t)__builtin_ctzll(hits) / 8);
  }
  for (; i < size; i++)
    consider(s, code, size, addr, i);
}

static bool is_plt_section(const char *name)
{
  return strncmp(name, ".plt", 4) == 0 || strcmp(name, ".iplt") == 0;
}

int knit_x86_64_find_parts(Elf *elf, knit_func_table *t)
{
  t->parent = NULL;
  size_t shstrndx;
  if (t->count == 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return 0;
  scan s = {.t = t, .first = t->start[0], .last = t->start[t->count - 1]};
  size_t bitmap_bytes = (size_t)((s.last - s.first) / 8 + 1);
  s.jumper = knit_pages_alloc(t->count * sizeof *s.jumper);
  s.is_start = knit_pages_alloc(bitmap_bytes);
  s.called = knit_pages_alloc(bitmap_bytes);
  if (!s.jumper || !s.is_start || !s.called) {
    knit_pages_free(s.jumper);
    knit_pages_free(s.is_start);
    knit_pages_free(s.called);
    return -1;
  }
  for (size_t i = 0; i < t->count; i++)
    set_bit(s.is_start, t->start[i] - s.first);
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
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
    if (bit(s.called, t->start[i] - s.first) || s.jumper[i] == MANY)
      s.jumper[i] = 0;
    parts += s.jumper[i] != 0;
  }
  knit_pages_free(s.is_start);
  knit_pages_free(s.called);
  if (parts == 0)
    knit_pages_free(s.jumper);
  else
    t->parent = s.jumper;
  return 0;
}
