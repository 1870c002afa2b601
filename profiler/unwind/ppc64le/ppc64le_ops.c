/* The ppc64le operations table. Capstone's CS_MODE_LITTLE_ENDIAN is 0, so
 * the mode below is 64-bit little-endian (ELFv2) code. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/isa.h"
#include "unwind/step_class.h"
#include "unwind/power/power_analyze.h"
#include "unwind/power/power_call.h"
#include "unwind/power/power_sigframe.h"

/* ELFv2: little-endian words. The model (profiler/unwind/power/) is shared
 * with big-endian ppc64; this row passes it its ABI. */
static const knit_power_abi elfv2 = {.big_endian = false};

static int analyze(size_t cs_handle, void *insn, const uint8_t *code, size_t len, uint64_t addr,
                   knit_recipe *out, int max, knit_analyze_work *work)
{
  return knit_power_analyze(&elfv2, cs_handle, insn, code, len, addr, out, max, work);
}

static bool sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx, const knit_regs *here,
                           knit_regs *interrupted)
{
  return knit_power_sigreturn_step(&elfv2, pc, read, ctx, here, interrupted);
}

static int call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target)
{
  return knit_power_call_before(&elfv2, bytes, n, ra, target);
}

/* Decoded once at start-up (isa.h, warm_code):
 * mflr r0; mtlr r0; blr */
static const uint8_t warm_code[] = {0xa6, 0x02, 0x08, 0x7c, 0xa6, 0x03,
                                    0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e};

/* At a function's first instruction the bl has put the return address in
 * LR and r1 is the caller's stack pointer: the CFA is r1+0. */
const knit_isa_ops knit_isa_ppc64le = {
    .name = "ppc64le",
    .elf_machine = EM_PPC64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2LSB,
    .qemu = "qemu-ppc64le",
    .sysroot = "/usr/powerpc64le-linux-gnu",
    .cs_arch = CS_ARCH_PPC,
    .cs_mode = CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
    .warm_code = warm_code,
    .warm_code_len = sizeof warm_code,
    .analyze = analyze,
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
    .dwarf_sp = 1,
    .dwarf_fp = 31,
    .dwarf_ra = 65,
    .dwarf_lr = 65,
    .sigreturn_step = sigreturn_step,
    .call_before = call_before,
    .call_entry_slack = 8,
};
