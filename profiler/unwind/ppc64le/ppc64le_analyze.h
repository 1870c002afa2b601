/* The ppc64le (ELFv2) recipe analyzer, shared by the ops table and the unit
 * tests. */
#ifndef KNIT_UNWIND_PPC64LE_ANALYZE_H
#define KNIT_UNWIND_PPC64LE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"
#include "unwind/recipe.h"

/* The analyze entry of knit_isa_ppc64le; the contract is in unwind/isa.h.
 * Recipes speak of r1 (sp), r31 (fp) and LR, and describe the CFA the way
 * gcc's CFI does (r1+N or r31+N, the return address at CFA+16 once saved),
 * so that knit audit can compare them with the compiler's. */
int knit_ppc64le_analyze(size_t cs_handle, void *insn, const uint8_t *code,
                         size_t len, uint64_t addr, knit_recipe *out, int max,
                         knit_analyze_work *work);

#endif /* KNIT_UNWIND_PPC64LE_ANALYZE_H */
