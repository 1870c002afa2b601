/* The x86-64 operations table. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/isa.h"
#include "unwind/step_class.h"
#include "unwind/x86_64/x86_64_analyze.h"
#include "unwind/x86_64/x86_64_parts.h"
#include "unwind/x86_64/x86_64_sigframe.h"

/* Decoded once at start-up (isa.h, warm_code):
 * push rbp; mov rbp, rsp; add eax, 1; pop rbp; ret */
static const uint8_t warm_code[] = {0x55, 0x48, 0x89, 0xe5, 0x05, 0x01,
                                    0x00, 0x00, 0x00, 0x5d, 0xc3};

/* At a function's first instruction the call has just pushed the return
 * address: the CFA is rsp+8 and the return address sits at CFA-8. */
const knit_isa_ops knit_isa_x86_64 = {
    .name = "x86_64",
    .elf_machine = EM_X86_64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2LSB,
    .qemu = "qemu-x86_64",
    .sysroot = "",
    .find_parts = knit_x86_64_find_parts,
    .cs_arch = CS_ARCH_X86,
    .cs_mode = CS_MODE_64,
    .warm_code = warm_code,
    .warm_code_len = sizeof warm_code,
    .analyze = knit_x86_64_analyze,
    .entry_recipe =
        {
            .start = 0,
            .end = UINT64_MAX,
            .cfa_base = KNIT_CFA_SP,
            .cfa_offset = 8,
            .ra_rule = KNIT_RA_AT_CFA,
            .ra_offset = -8,
            .fp_rule = KNIT_FP_SAME,
            .fp_offset = 0,
            .flags = 0,
        },
    .dwarf_sp = 7,
    .dwarf_fp = 6,
    .dwarf_ra = 16,
    .dwarf_lr = -1,
    .sigreturn_step = knit_x86_64_sigreturn_step,
    .call_before = knit_x86_64_call_before,
    .analyze_entered = knit_x86_64_analyze_entered,
};
