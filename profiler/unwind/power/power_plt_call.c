/* POWER: the linker's call stubs. A `bl` to a function of another module
 * goes to a stub that ld put among the code (not in .plt, which holds only
 * the slots the dynamic linker fills), and the stub loads the function's
 * address from its .plt slot. The slot is named by an R_PPC64_JMP_SLOT
 * relocation at its address, so the stub's one fact worth having is that
 * address. GNU ld's stubs (elf64-ppc.c, build_plt_stub), in their shapes
 * for both ABIs:
 *
 *   ELFv2:  std r2,24(r1); [addis r12,r2,HA]; ld r12,LO(r12|r2);
 *           mtctr r12; bctr
 *   ELFv1:  std r2,40(r1); [addis r11,r2,HA]; ld r12,LO(r11|r2);
 *           [addi r11,r11,LO]; mtctr r12; [xor/add for thread safety];
 *           ld r2,LO+8(r11|r2); [ld r11,LO+16(..)]; bctr | bnectr+; b glink
 *   notoc (code without a TOC pointer): mflr r12; bcl 20,31,.+4; mflr r11;
 *           mtlr r12; [addis r12,r11,HA]; ld r12,LO(r12|r11); mtctr r12; bctr
 *   POWER10: pld r12,slot@pcrel; mtctr r12; bctr
 *
 * So the decoder follows the registers those instructions set, from r2 =
 * the TOC pointer, up to the `ld r12` (or `pld r12`) and takes its address
 * when `mtctr r12` follows. Anything else, such as the __tls_get_addr_opt
 * stub, is no stub it knows: 0. Plain bit tests, as power_call.c's. */
#include <gelf.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/power/power_plt_call.h"

/* The TOC pointer sits 0x8000 past the start of the TOC (so that 16-bit
 * signed offsets reach 64 KiB of it), and the TOC starts at the first of
 * these sections the file has, aligned down to 256 bytes: ld's rule
 * (ppc64_elf_set_toc), by which it defines the symbol .TOC. too. The rule
 * reads section headers alone, which a stripped file keeps; the symbol,
 * which costs a pass over the symbol table, is the answer only where the
 * file has none of the sections. */
#define TOC_BIAS  0x8000u
#define TOC_ALIGN 256u
static const char *const toc_sections[] = {".got", ".toc", ".tocbss", ".plt"};

/* The value of the symbol .TOC. among elf's local symbols, or 0. */
static uint64_t toc_symbol(Elf *elf)
{
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t count = sh.sh_size / sh.sh_entsize;
    /* Local symbols come first; sh_info is the first global's index. */
    if (sh.sh_info < count)
      count = sh.sh_info;
    for (size_t i = 0; d != NULL && i < count; i++) {
      GElf_Sym sym;
      const char *name = gelf_getsym(d, (int)i, &sym) != NULL && sym.st_name != 0
                             ? elf_strptr(elf, sh.sh_link, sym.st_name)
                             : NULL;
      if (name != NULL && strcmp(name, ".TOC.") == 0)
        return sym.st_value;
    }
  }
  return 0;
}

uint64_t knit_power_toc_base(Elf *elf)
{
  size_t names;
  if (elf == NULL || elf_getshdrstrndx(elf, &names) != 0)
    return 0;
  for (size_t k = 0; k < sizeof toc_sections / sizeof toc_sections[0]; k++)
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      const char *name = gelf_getshdr(scn, &sh) != NULL ? elf_strptr(elf, names, sh.sh_name) : NULL;
      if (name != NULL && strcmp(name, toc_sections[k]) == 0 && sh.sh_size != 0)
        return (sh.sh_addr & ~(uint64_t)(TOC_ALIGN - 1)) + TOC_BIAS;
    }
  return toc_symbol(elf);
}

/* The instructions the stubs are made of. */
#define OP(w)         ((w) >> 26)
#define RT(w)         (((w) >> 21) & 31)
#define RA(w)         (((w) >> 16) & 31)
#define SIMM(w)       ((int64_t)(int16_t)((w)&0xffff))
#define MTCTR_R12     0x7d8903a6u
#define MFLR(r)       (0x7c0802a6u | (uint32_t)(r) << 21)
#define MTLR(r)       (0x7c0803a6u | (uint32_t)(r) << 21)
#define BCL_NEXT      0x429f0005u /* bcl 20,31,.+4: LR = the next instruction */
#define OP_ADDI       14
#define OP_ADDIS      15
#define OP_LD         58 /* DS form: ld when the low two bits are 0 */
#define OP_STD        62 /* DS form: std when the low two bits are 0 */
#define OP_PREFIX     1
#define OP_PLD        57          /* the suffix of pld */
#define PREFIX_MLS_R  0x00100000u /* an 8LS/MLS prefix's R bit: pc-relative */
#define PREFIX_TYPE   0x03000000u /* the prefix's type field (0 for 8LS:D) */
#define WORDS_TO_LOAD 6           /* the longest lead-in: the notoc stub's */
#define WORDS_TO_CTR  3           /* ELFv1's addi, xor and add come between */

/* Whether mtctr r12 is among the words past the load. */
static bool moves_to_ctr(const knit_power_abi *abi, const uint8_t *code, size_t words)
{
  for (size_t i = 0; i < words && i < WORDS_TO_CTR; i++)
    if (knit_power_word(abi, code + 4 * i) == MTCTR_R12)
      return true;
  return false;
}

uint64_t knit_power_plt_stub_slot(const knit_power_abi *abi, const uint8_t *code, size_t n,
                                  uint64_t addr, uint64_t toc)
{
  uint64_t reg[32] = {0}, lr = 0;
  uint32_t known = 0, lr_known = 0; /* known: a bit a register */
  if (toc != 0) {
    reg[2] = toc;
    known |= 1u << 2;
  }
  size_t words = n / 4;
  for (size_t i = 0; i < words && i < WORDS_TO_LOAD + 1; i++) {
    uint32_t w = knit_power_word(abi, code + 4 * i);
    uint64_t here = addr + 4 * i;
    uint32_t rt = RT(w), ra = RA(w);
    bool base_known = ra != 0 && (known >> ra & 1);
    if (OP(w) == OP_LD && (w & 3) == 0 && rt == 12 && base_known) {
      uint64_t slot = reg[ra] + (uint64_t)(SIMM(w) & ~(int64_t)3);
      return moves_to_ctr(abi, code + 4 * (i + 1), words - i - 1) ? slot : 0;
    }
    if (OP(w) == OP_PREFIX && i + 1 < words && (w & PREFIX_TYPE) == 0 && (w & PREFIX_MLS_R)) {
      uint32_t s = knit_power_word(abi, code + 4 * (i + 1));
      if (OP(s) != OP_PLD || RT(s) != 12 || RA(s) != 0)
        return 0;
      /* A 34-bit displacement: 18 bits in the prefix, 16 in the suffix. */
      int64_t d = (int64_t)((uint64_t)(w & 0x3ffff) << 46 | (uint64_t)(s & 0xffff) << 30) >> 30;
      return moves_to_ctr(abi, code + 4 * (i + 2), words - i - 2) ? here + (uint64_t)d : 0;
    }
    if (OP(w) == OP_STD && (w & 3) == 0 && rt == 2 && ra == 1)
      continue; /* the caller's TOC pointer saved for its restore */
    if ((OP(w) == OP_ADDIS || OP(w) == OP_ADDI) && base_known) {
      reg[rt] = reg[ra] + (uint64_t)(OP(w) == OP_ADDIS ? SIMM(w) * 65536 : SIMM(w));
      known |= 1u << rt;
      continue;
    }
    if (w == BCL_NEXT) {
      lr = here + 4;
      lr_known = 1;
      continue;
    }
    if ((w & ~(31u << 21)) == MFLR(0)) {
      reg[rt] = lr;
      known = lr_known ? known | 1u << rt : known & ~(1u << rt);
      continue;
    }
    if ((w & ~(31u << 21)) == MTLR(0)) {
      lr = reg[rt];
      lr_known = known >> rt & 1;
      continue;
    }
    return 0;
  }
  return 0;
}
