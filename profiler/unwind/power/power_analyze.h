/* The POWER recipe analyzer, shared by the ppc64le (ELFv2) and ppc64
 * (ELFv1) rows and the unit tests. */
#ifndef KNIT_UNWIND_POWER_ANALYZE_H
#define KNIT_UNWIND_POWER_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"
#include "unwind/power/power_abi.h"
#include "unwind/recipe.h"

/* The analyze entry of the POWER rows; the contract is in unwind/isa.h.
 * Recipes speak of r1 (sp), r31 (fp) and LR, and describe the CFA the way
 * gcc's CFI does (r1+N or r31+N, the return address at CFA+16 once saved),
 * so that knit audit can compare them with the compiler's. */
int knit_power_analyze(const knit_power_abi *abi, size_t cs_handle, void *insn, const uint8_t *code,
                       size_t len, uint64_t addr, knit_recipe *out, int max,
                       knit_analyze_work *work);

#endif /* KNIT_UNWIND_POWER_ANALYZE_H */
