/* Native ppc64le glue: this library's ISA, the registers of a ucontext, and
 * the registers of the caller without a ucontext. */
#include "unwind/isa.h"
#include "unwind/power/power_context.h"

const knit_isa_ops *knit_isa_native(void)
{
  return &knit_isa_ppc64le;
}

uint64_t knit_native_code_of(void (*fn)(void))
{
  return (uint64_t)(uintptr_t)fn;
}

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out)
{
  knit_power_regs_from_ucontext(ucontext, out);
}

/* knit_native_regs_here (isa.h). A leaf that needs no TOC (so one entry
 * point serves local and external callers): the link register holds the
 * return address, r1 and r31 are still the caller's (a bl moves neither). */
__asm__(KNIT_REGS_HERE_BEGIN "  mflr 0\n"
                             "  std 0, 0(3)\n"   /* pc */
                             "  std 1, 8(3)\n"   /* sp */
                             "  std 31, 16(3)\n" /* fp */
                             "  std 0, 24(3)\n"  /* lr */
                             "  blr\n" KNIT_REGS_HERE_END);
