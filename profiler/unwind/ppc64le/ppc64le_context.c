/* Native ppc64le glue: this library's ISA and the registers of a ucontext. */
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
