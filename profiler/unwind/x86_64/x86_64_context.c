/* Native x86-64 glue: this library's ISA and the registers of a ucontext. */
#define _GNU_SOURCE /* REG_RIP and friends */
#include <ucontext.h>

#include "unwind/isa.h"

const knit_isa_ops *knit_isa_native(void) { return &knit_isa_x86_64; }

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out) {
  const ucontext_t *uc = ucontext;
  out->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  out->sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
  out->fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
  /* x86-64 has no link register: the return address is always in memory. */
  out->lr = 0;
}
