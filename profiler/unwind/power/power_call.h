/* POWER: the call before a return address (call_before in unwind/isa.h),
 * in the byte order of the ABI's instruction words. */
#ifndef KNIT_UNWIND_POWER_CALL_H
#define KNIT_UNWIND_POWER_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/power/power_abi.h"

int knit_power_call_before(const knit_power_abi *abi, const uint8_t *bytes, size_t n, uint64_t ra,
                           uint64_t *target);

#endif /* KNIT_UNWIND_POWER_CALL_H */
