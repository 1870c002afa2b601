/* x86-64 signal trampolines: see sigreturn_step in unwind/isa.h. */
#ifndef KNIT_UNWIND_X86_64_SIGFRAME_H
#define KNIT_UNWIND_X86_64_SIGFRAME_H

#include "unwind/recipe.h"

/* glibc's __restore_rt (natively and under qemu-x86_64). */
bool knit_x86_64_sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,
                                const knit_regs *here, knit_regs *interrupted);

#endif /* KNIT_UNWIND_X86_64_SIGFRAME_H */
