/* aarch64 signal trampolines: see sigreturn_step in unwind/isa.h. */
#ifndef KNIT_UNWIND_AARCH64_SIGFRAME_H
#define KNIT_UNWIND_AARCH64_SIGFRAME_H

#include "unwind/recipe.h"

/* The vdso's __kernel_rt_sigreturn natively; qemu-aarch64's trampoline
 * page (the same two instructions) under QEMU. */
bool knit_aarch64_sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,
                                 const knit_regs *here, knit_regs *interrupted);

#endif /* KNIT_UNWIND_AARCH64_SIGFRAME_H */
