/* The registers of a POWER ucontext (ppc64le and ppc64 alike: the kernel's
 * gp_regs, in the pt_regs layout), for each row's native <isa>_context.c. */
#ifndef KNIT_UNWIND_POWER_CONTEXT_H
#define KNIT_UNWIND_POWER_CONTEXT_H

#include <ucontext.h>

#include "unwind/isa.h"

/* Indexes into gp_regs (the kernel's pt_regs layout). */
enum {
  KNIT_POWER_REG_R1 = 1,   /* the stack pointer */
  KNIT_POWER_REG_R31 = 31, /* the frame pointer, when the compiler keeps one */
  KNIT_POWER_REG_NIP = 32, /* the next instruction */
  KNIT_POWER_REG_LINK = 36 /* the link register */
};

static inline void knit_power_regs_from_ucontext(const void *ucontext, knit_regs *out)
{
  const ucontext_t *uc = ucontext;
  out->pc = uc->uc_mcontext.gp_regs[KNIT_POWER_REG_NIP];
  out->sp = uc->uc_mcontext.gp_regs[KNIT_POWER_REG_R1];
  out->fp = uc->uc_mcontext.gp_regs[KNIT_POWER_REG_R31];
  out->lr = uc->uc_mcontext.gp_regs[KNIT_POWER_REG_LINK];
}

#endif /* KNIT_UNWIND_POWER_CONTEXT_H */
