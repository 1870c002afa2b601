/* The aarch64 operations table. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/isa.h"
#include "unwind/step_class.h"
#include "unwind/aarch64/aarch64_analyze.h"
#include "unwind/aarch64/aarch64_sigframe.h"

/* Decoded once at start-up (isa.h, warm_code):
 * stp x29, x30, [sp, #-16]!; ldp x29, x30, [sp], #16; ret */
static const uint8_t warm_code[] = {0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x7b,
                                    0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6};

/* At a function's first instruction the bl has put the return address in
 * x30 (LR) and left sp untouched: the CFA is sp+0. */
const knit_isa_ops knit_isa_aarch64 = {
    .name = "aarch64",
    .elf_machine = EM_AARCH64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2LSB,
    .qemu = "qemu-aarch64",
    .sysroot = "/usr/aarch64-linux-gnu",
    .plt0_size = 32,
    .cs_arch = CS_ARCH_ARM64,
    .cs_mode = CS_MODE_ARM, /* little-endian A64 */
    .warm_code = warm_code,
    .warm_code_len = sizeof warm_code,
    .analyze = knit_aarch64_analyze,
    .entry_recipe =
        {
            .start = 0,
            .end = UINT64_MAX,
            .cfa_base = KNIT_CFA_SP,
            .cfa_offset = 0,
            .ra_rule = KNIT_RA_IN_LR,
            .ra_offset = 0,
            .fp_rule = KNIT_FP_SAME,
            .fp_offset = 0,
            .flags = 0,
        },
    .dwarf_sp = 31,
    .dwarf_fp = 29,
    .dwarf_ra = 30,
    .dwarf_lr = 30,
    .sigreturn_step = knit_aarch64_sigreturn_step,
    .call_before = knit_aarch64_call_before,
};
