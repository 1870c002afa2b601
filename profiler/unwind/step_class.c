/* Reading the call before a return address: see step_class.h. */
#include "unwind/step_class.h"

#include <elf.h>

#include "unwind/isa.h"

void knit_step_read_call(const knit_isa_ops *isa, knit_read_word_fn read, void *ctx,
                         const knit_module *m, uint64_t ra, knit_step_facts *out)
{
  out->call = KNIT_CALL_NONE;
  out->target = 0;
  if (!isa->call_before || ra <= m->text_lo)
    return;
  /* Whole aligned words, as the read function wants them, covering the
   * bytes before ra; none before the module's code starts: a mapping is
   * page-granular, so the aligned word that holds text_lo is mapped too,
   * while what lies further below may not be. */
  uint64_t from = ra - m->text_lo < KNIT_CALL_BYTES ? m->text_lo : ra - KNIT_CALL_BYTES;
  uint64_t first = from & ~7ull, last = (ra - 1) & ~7ull;
  uint8_t buf[KNIT_CALL_BYTES + 16];
  size_t got = 0;
  /* A word as the ISA reads it: the byte at the lowest address is its low
   * byte on the little-endian ISAs, its high byte on ppc64. */
  bool big_endian = isa->elf_data == ELFDATA2MSB;
  for (uint64_t at = first; at <= last; at += 8) {
    uint64_t word;
    if (!knit_read_word_(read, ctx, at, &word))
      return;
    for (int b = 0; b < 8; b++)
      buf[got++] = (uint8_t)(word >> (8 * (big_endian ? 7 - b : b)));
  }
  size_t skip = (size_t)(from - first);
  size_t n = (size_t)(ra - from);
  uint64_t target = 0;
  int kind = isa->call_before(buf + skip, n, ra, &target);
  if (kind == KNIT_CALL_DIRECT) {
    uint64_t vaddr = target - m->base;
    if (vaddr >= m->funcs.plt_lo && vaddr < m->funcs.plt_hi)
      kind = KNIT_CALL_DIRECT_PLT;
  }
  out->call = (uint8_t)kind;
  out->target = target;
}
