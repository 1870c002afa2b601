/* Native x86-64 glue: this library's ISA, the registers of a ucontext, and
 * the registers of the caller without a ucontext. */
#define _GNU_SOURCE /* REG_RIP and friends */
#include <ucontext.h>

#include "unwind/isa.h"

const knit_isa_ops *knit_isa_native(void)
{
  return &knit_isa_x86_64;
}

uint64_t knit_native_code_of(void (*fn)(void))
{
  return (uint64_t)(uintptr_t)fn;
}

void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out)
{
  const ucontext_t *uc = ucontext;
  out->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  out->sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
  out->fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
  /* x86-64 has no link register: the return address is always in memory. */
  out->lr = 0;
}

/* knit_native_regs_here (isa.h). At entry the return address is at (%rsp)
 * and the caller's sp, once the call returns, is %rsp + 8; %rbp is the
 * caller's own. */
__asm__(KNIT_REGS_HERE_BEGIN "  movq (%rsp), %rax\n"
                             "  movq %rax, 0(%rdi)\n"
                             "  leaq 8(%rsp), %rax\n"
                             "  movq %rax, 8(%rdi)\n"
                             "  movq %rbp, 16(%rdi)\n"
                             "  movq $0, 24(%rdi)\n"
                             "  ret\n" KNIT_REGS_HERE_END);
