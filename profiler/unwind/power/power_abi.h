/* What the POWER model (profiler/unwind/power/) needs to know of the ABI it
 * runs under: ppc64le's ELFv2 and big-endian ppc64's ELFv1 share the
 * instruction set, the frame layout (back chain at 0(r1), LR saved at
 * 16(r1) of the caller's frame) and the kernel's signal frame; they differ in
 * the byte order of instruction words and in what a call's neighbourhood
 * looks like (ELFv2's local entry points, ELFv1's function descriptors). Each
 * ISA's row (ppc64le/, ppc64/) passes its own. */
#ifndef KNIT_UNWIND_POWER_ABI_H
#define KNIT_UNWIND_POWER_ABI_H

#include <stdbool.h>
#include <stdint.h>

typedef struct knit_power_abi {
  bool big_endian; /* instruction words (and data) are big-endian */
} knit_power_abi;

/* The instruction word at p, in the ABI's byte order. */
static inline uint32_t knit_power_word(const knit_power_abi *abi, const uint8_t *p)
{
  if (abi->big_endian)
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* KNIT_UNWIND_POWER_ABI_H */
