/* Native aarch64 glue: this library's ISA, the registers of a ucontext, and
 * the registers of the caller without a ucontext. */
#include <ucontext.h>

#include "unwind/isa.h"

const knit_isa_ops *knit_isa_native(void)
{
  return &knit_isa_aarch64;
}

uint64_t knit_native_code_of(void (*fn)(void))
{
  return (uint64_t)(uintptr_t)fn;
}

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out)
{
  const ucontext_t *uc = ucontext;
  out->pc = uc->uc_mcontext.pc;
  out->sp = uc->uc_mcontext.sp;
  out->fp = uc->uc_mcontext.regs[29]; /* x29, the frame pointer */
  out->lr = uc->uc_mcontext.regs[30]; /* x30, the link register */
}

/* knit_native_regs_here (isa.h). A leaf: x30 holds the return address, sp
 * and x29 are still the caller's (a bl moves neither). */
__asm__(KNIT_REGS_HERE_BEGIN "  mov x1, sp\n"
                             "  stp x30, x1, [x0]\n"       /* pc, sp */
                             "  stp x29, x30, [x0, #16]\n" /* fp, lr */
                             "  ret\n" KNIT_REGS_HERE_END);
