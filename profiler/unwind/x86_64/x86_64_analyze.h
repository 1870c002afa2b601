/* The x86-64 recipe analyzer, shared by the ops table and the unit tests. */
#ifndef KNIT_UNWIND_X86_64_ANALYZE_H
#define KNIT_UNWIND_X86_64_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"
#include "unwind/recipe.h"

/* The analyze entry of knit_isa_x86_64; the contract is in unwind/isa.h. */
int knit_x86_64_analyze(size_t cs_handle, void *insn, const uint8_t *code, size_t len,
                        uint64_t addr, knit_recipe *out, int max, knit_analyze_work *work);

/* The analyze_entered entry of knit_isa_x86_64 (unwind/isa.h): a part of a
 * hot/cold split analyzed from its parent's states at the jumps into it. */
int knit_x86_64_analyze_entered(size_t cs_handle, void *insn, const uint8_t *code, size_t len,
                                uint64_t addr, const knit_part_entries *entries, uint64_t into,
                                uint64_t into_end, knit_part_entries *at_jumps, knit_recipe *out,
                                int max, knit_analyze_work *work);

#endif /* KNIT_UNWIND_X86_64_ANALYZE_H */
