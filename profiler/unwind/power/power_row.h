/* What the POWER rows (ppc64le/, ppc64/) share in their machine table
 * entries: the hooks, given the row's ABI, and the data that do not depend
 * on it. Included by each row's <isa>_ops.c only. */
#ifndef KNIT_UNWIND_POWER_ROW_H
#define KNIT_UNWIND_POWER_ROW_H

#include "unwind/isa.h"
#include "unwind/power/power_analyze.h"
#include "unwind/power/power_call.h"
#include "unwind/power/power_plt_call.h"
#include "unwind/power/power_sigframe.h"

/* The row's analyze, sigreturn_step, call_before and plt_stub_slot: the
 * POWER model's, given the ABI abi (a knit_power_abi of the including
 * file). */
#define KNIT_POWER_HOOKS(abi)                                                                      \
  static int analyze(size_t cs_handle, void *insn, const uint8_t *code, size_t len, uint64_t addr, \
                     knit_recipe *out, int max, knit_analyze_work *work)                           \
  {                                                                                                \
    return knit_power_analyze(&(abi), cs_handle, insn, code, len, addr, out, max, work);           \
  }                                                                                                \
  static bool sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,                       \
                             const knit_regs *here, knit_regs *interrupted)                        \
  {                                                                                                \
    return knit_power_sigreturn_step(&(abi), pc, read, ctx, here, interrupted);                    \
  }                                                                                                \
  static int call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target)            \
  {                                                                                                \
    return knit_power_call_before(&(abi), bytes, n, ra, target);                                   \
  }                                                                                                \
  static uint64_t plt_stub_slot(const uint8_t *code, size_t n, uint64_t addr, uint64_t base)       \
  {                                                                                                \
    return knit_power_plt_stub_slot(&(abi), code, n, addr, base);                                  \
  }

/* The rest of a POWER row beside its data: at a function's first
 * instruction the bl has put the return address in LR and r1 is the
 * caller's stack pointer (the CFA is r1+0); r1, r31 and LR by their DWARF
 * numbers; the hooks of KNIT_POWER_HOOKS; call stubs that load their target
 * from a .plt slot addressed from the TOC pointer. */
#define KNIT_POWER_ROW_COMMON                                                                      \
  .cs_arch = CS_ARCH_PPC, .analyze = analyze,                                                      \
  .entry_recipe = {.start = 0,                                                                     \
                   .end = UINT64_MAX,                                                              \
                   .cfa_base = KNIT_CFA_SP,                                                        \
                   .cfa_offset = 0,                                                                \
                   .ra_rule = KNIT_RA_IN_LR,                                                       \
                   .ra_offset = 0,                                                                 \
                   .fp_rule = KNIT_FP_SAME,                                                        \
                   .fp_offset = 0,                                                                 \
                   .flags = 0},                                                                    \
  .dwarf_sp = 1, .dwarf_fp = 31, .dwarf_ra = 65, .dwarf_lr = 65, .sigreturn_step = sigreturn_step, \
  .call_before = call_before, .plt_stub_base = knit_power_toc_base, .plt_stub_slot = plt_stub_slot

#endif /* KNIT_UNWIND_POWER_ROW_H */
