/* POWER: calls into other modules through the linker's call stubs
 * (plt_stub_base and plt_stub_slot in unwind/isa.h). */
#ifndef KNIT_UNWIND_POWER_PLT_CALL_H
#define KNIT_UNWIND_POWER_PLT_CALL_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/power/power_abi.h"

/* The TOC pointer (r2) of the code of elf, where the linker puts it (the
 * value of its .TOC. symbol, which a stripped file lacks); 0 when the file
 * does not say. */
uint64_t knit_power_toc_base(Elf *elf);

/* The .plt slot the call stub whose code is the n bytes at addr loads its
 * target from, with r2 = toc; 0 when the code is no such stub. Pure. */
uint64_t knit_power_plt_stub_slot(const knit_power_abi *abi, const uint8_t *code, size_t n,
                                  uint64_t addr, uint64_t toc);

#endif /* KNIT_UNWIND_POWER_PLT_CALL_H */
