/* Native ppc64 (ELFv1) glue: this library's ISA, the registers of a
 * ucontext, and the registers of the caller without a ucontext. */
#include "unwind/isa.h"
#include "unwind/power/power_context.h"

const knit_isa_ops *knit_isa_native(void)
{
  return &knit_isa_ppc64;
}

/* A function pointer is the address of its descriptor, whose first
 * doubleword is the code's address. */
uint64_t knit_native_code_of(void (*fn)(void))
{
  return fn ? *(const uint64_t *)(const void *)fn : 0;
}

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out)
{
  knit_power_regs_from_ucontext(ucontext, out);
}

/* knit_native_regs_here (isa.h). Under ELFv1 a function's symbol names its
 * descriptor in .opd (code address, TOC, environment), which callers load
 * through, and the code begins at a local label: isa.h's plain-label
 * wrapper does not fit, so this one spells the descriptor out. A leaf that
 * needs no TOC: the link register holds the return address, r1 and r31 are
 * still the caller's (a bl moves neither). */
__asm__(".pushsection .opd, \"aw\"\n"
        ".p2align 3\n"
        ".globl knit_native_regs_here\n"
        ".hidden knit_native_regs_here\n"
        ".type knit_native_regs_here, @function\n"
        "knit_native_regs_here:\n"
        "  .quad .L.knit_native_regs_here, .TOC.@tocbase, 0\n"
        ".popsection\n"
        ".pushsection .text\n"
        ".p2align 4\n"
        ".L.knit_native_regs_here:\n"
        ".cfi_startproc\n"
        "  mflr 0\n"
        "  std 0, 0(3)\n"   /* pc */
        "  std 1, 8(3)\n"   /* sp */
        "  std 31, 16(3)\n" /* fp */
        "  std 0, 24(3)\n"  /* lr */
        "  blr\n"
        ".cfi_endproc\n"
        ".size knit_native_regs_here, .-.L.knit_native_regs_here\n"
        ".popsection\n");
