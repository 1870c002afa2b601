/* The ppc64 operations table: big-endian 64-bit POWER under the ELFv1 ABI
 * (function descriptors in .opd, the TOC pointer saved at 40(r1)). The
 * frame model, call decoding and signal frames are POWER's
 * (profiler/unwind/power/), given this ABI. */
#include <capstone/capstone.h>
#include <elf.h>

#include "unwind/isa.h"
#include "unwind/power/power_analyze.h"
#include "unwind/power/power_call.h"
#include "unwind/power/power_sigframe.h"
#include "unwind/ppc64/ppc64_descriptors.h"

static const knit_power_abi elfv1 = {.big_endian = true};

static int analyze(size_t cs_handle, void *insn, const uint8_t *code, size_t len, uint64_t addr,
                   knit_recipe *out, int max, knit_analyze_work *work)
{
  return knit_power_analyze(&elfv1, cs_handle, insn, code, len, addr, out, max, work);
}

static bool sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx, const knit_regs *here,
                           knit_regs *interrupted)
{
  return knit_power_sigreturn_step(&elfv1, pc, read, ctx, here, interrupted);
}

static int call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target)
{
  return knit_power_call_before(&elfv1, bytes, n, ra, target);
}

/* Decoded once at start-up (isa.h, warm_code):
 * mflr r0; mtlr r0; blr */
static const uint8_t warm_code[] = {0x7c, 0x08, 0x02, 0xa6, 0x7c, 0x08,
                                    0x03, 0xa6, 0x4e, 0x80, 0x00, 0x20};

/* At a function's first instruction the bl has put the return address in
 * LR and r1 is the caller's stack pointer: the CFA is r1+0. A bl enters a
 * function at its first instruction (ELFv1 has no local entry points). */
const knit_isa_ops knit_isa_ppc64 = {
    .name = "ppc64",
    .elf_machine = EM_PPC64,
    .elf_class = ELFCLASS64,
    .elf_data = ELFDATA2MSB,
    .qemu = "qemu-ppc64",
    .sysroot = "/usr/powerpc64-linux-gnu",
    .cs_arch = CS_ARCH_PPC,
    .cs_mode = CS_MODE_64 | CS_MODE_BIG_ENDIAN,
    .symbol_code = knit_ppc64_symbol_code,
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
    .call_entry_slack = 0,
};
