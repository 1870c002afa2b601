/* The aarch64 recipe analyzer, shared by the ops table and the unit tests. */
#ifndef KNIT_UNWIND_AARCH64_ANALYZE_H
#define KNIT_UNWIND_AARCH64_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"
#include "unwind/recipe.h"

/* The analyze entry of knit_isa_aarch64; the contract is in unwind/isa.h.
 * Recipes keep the return address in LR (KNIT_RA_IN_LR) until x30 is
 * stored, and give the CFA from sp, or from x29 in functions whose stack
 * pointer moves by amounts only the frame pointer can undo (alloca, VLAs),
 * as gcc's CFI does. */
int knit_aarch64_analyze(size_t cs_handle, void *insn, const uint8_t *code, size_t len,
                         uint64_t addr, knit_recipe *out, int max, knit_analyze_work *work);

#endif /* KNIT_UNWIND_AARCH64_ANALYZE_H */
