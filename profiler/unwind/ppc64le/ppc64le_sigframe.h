/* ppc64le signal trampolines: see sigreturn_step in unwind/isa.h. */
#ifndef KNIT_UNWIND_PPC64LE_SIGFRAME_H
#define KNIT_UNWIND_PPC64LE_SIGFRAME_H

#include "unwind/recipe.h"

/* The vdso's __kernel_sigtramp_rt64 natively; qemu-ppc64le's trampoline
 * page under QEMU. */
bool knit_ppc64le_sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,
                                 const knit_regs *here, knit_regs *interrupted);

#endif /* KNIT_UNWIND_PPC64LE_SIGFRAME_H */
