/* POWER signal trampolines: see sigreturn_step in unwind/isa.h. */
#ifndef KNIT_UNWIND_POWER_SIGFRAME_H
#define KNIT_UNWIND_POWER_SIGFRAME_H

#include "unwind/power/power_abi.h"
#include "unwind/recipe.h"

/* The vdso's __kernel_sigtramp_rt64 natively; QEMU's trampoline page under
 * QEMU. */
bool knit_power_sigreturn_step(const knit_power_abi *abi, uint64_t pc, knit_read_word_fn read,
                               void *ctx, const knit_regs *here, knit_regs *interrupted);

#endif /* KNIT_UNWIND_POWER_SIGFRAME_H */
