/* Native aarch64 glue: this library's ISA and the registers of a ucontext. */
#include <ucontext.h>

#include "unwind/isa.h"

const knit_isa_ops *knit_isa_native(void) { return &knit_isa_aarch64; }

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out) {
  const ucontext_t *uc = ucontext;
  out->pc = uc->uc_mcontext.pc;
  out->sp = uc->uc_mcontext.sp;
  out->fp = uc->uc_mcontext.regs[29]; /* x29, the frame pointer */
  out->lr = uc->uc_mcontext.regs[30]; /* x30, the link register */
}
