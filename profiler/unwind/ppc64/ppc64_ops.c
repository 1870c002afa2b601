/* The ppc64 operations table: big-endian 64-bit POWER under the ELFv1 ABI
 * (function descriptors in .opd, the TOC pointer saved at 40(r1)). The
 * frame model, call decoding and signal frames are POWER's
 * (profiler/unwind/power/), shared with ppc64le, given this ABI. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/power/power_row.h"
#include "unwind/ppc64/ppc64_descriptors.h"

static const knit_power_abi elfv1 = {.big_endian = true};

KNIT_POWER_HOOKS(elfv1)

/* Decoded once at start-up (isa.h, warm_code):
 * mflr r0; mtlr r0; blr */
static const uint8_t warm_code[] = {0x7c, 0x08, 0x02, 0xa6, 0x7c, 0x08,
                                    0x03, 0xa6, 0x4e, 0x80, 0x00, 0x20};

/* A bl enters a function at its first instruction: ELFv1 has no local
 * entry points. */
const knit_isa_ops knit_isa_ppc64 = {
    .name = "ppc64",
    .elf_machine = EM_PPC64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2MSB,
    .qemu = "qemu-ppc64",
    .sysroot = "/usr/powerpc64-linux-gnu",
    .cs_mode = CS_MODE_64 | CS_MODE_BIG_ENDIAN,
    .symbol_code = knit_ppc64_symbol_code,
    .warm_code = warm_code,
    .warm_code_len = sizeof warm_code,
    .call_entry_slack = 0,
    KNIT_POWER_ROW_COMMON,
};
