/* Native ppc64le glue: this library's ISA, the registers of a ucontext, and
 * the registers of the caller without a ucontext. */
#include <ucontext.h>

#include "unwind/isa.h"

/* Indexes into gp_regs (the kernel's pt_regs layout). */
enum {
  PPC_REG_R1 = 1,   /* the stack pointer */
  PPC_REG_R31 = 31, /* the frame pointer, when the compiler keeps one */
  PPC_REG_NIP = 32, /* the next instruction */
  PPC_REG_LINK = 36 /* the link register */
};

const knit_isa_ops *knit_isa_native(void) { return &knit_isa_ppc64le; }

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out) {
  const ucontext_t *uc = ucontext;
  out->pc = uc->uc_mcontext.gp_regs[PPC_REG_NIP];
  out->sp = uc->uc_mcontext.gp_regs[PPC_REG_R1];
  out->fp = uc->uc_mcontext.gp_regs[PPC_REG_R31];
  out->lr = uc->uc_mcontext.gp_regs[PPC_REG_LINK];
}

/* knit_native_regs_here (isa.h). A leaf that needs no TOC (so one entry
 * point serves local and external callers): the link register holds the
 * return address, r1 and r31 are still the caller's (a bl moves neither). */
__asm__(KNIT_REGS_HERE_BEGIN
        "  mflr 0\n"
        "  std 0, 0(3)\n"   /* pc */
        "  std 1, 8(3)\n"   /* sp */
        "  std 31, 16(3)\n" /* fp */
        "  std 0, 24(3)\n"  /* lr */
        "  blr\n"
        KNIT_REGS_HERE_END);
