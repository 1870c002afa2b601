/* The ppc64le operations table: little-endian 64-bit POWER under the ELFv2
 * ABI (Capstone's CS_MODE_LITTLE_ENDIAN is 0). The frame model, call
 * decoding and signal frames are POWER's (profiler/unwind/power/), shared
 * with big-endian ppc64, given this ABI. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/power/power_row.h"

static const knit_power_abi elfv2 = {.big_endian = false};

KNIT_POWER_HOOKS(elfv2)

/* Decoded once at start-up (isa.h, warm_code):
 * mflr r0; mtlr r0; blr */
static const uint8_t warm_code[] = {0xa6, 0x02, 0x08, 0x7c, 0xa6, 0x03,
                                    0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e};

/* A direct call may enter 8 bytes in: the local entry point skips the TOC
 * set-up of the global one. */
const knit_isa_ops knit_isa_ppc64le = {
    .name = "ppc64le",
    .elf_machine = EM_PPC64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2LSB,
    .qemu = "qemu-ppc64le",
    .sysroot = "/usr/powerpc64le-linux-gnu",
    .cs_mode = CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
    .warm_code = warm_code,
    .warm_code_len = sizeof warm_code,
    .call_entry_slack = 8,
    KNIT_POWER_ROW_COMMON,
};
