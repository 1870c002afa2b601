/* aarch64: the call instruction that ends at a return address. Every
 * instruction is 4 bytes, so the call is the word at ra-4: `bl imm26`, or
 * `blr xN` and its pointer-authenticating forms (blraa, blrab, blraaz,
 * blrabz). Plain bit tests: pure, no decoder handle needed. */
#include "unwind/step_class.h"

int knit_aarch64_call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target)
{
  if (n < 4)
    return KNIT_CALL_NONE;
  const uint8_t *p = bytes + n - 4;
  uint32_t insn =
      (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  if ((insn & 0xfc000000u) == 0x94000000u) { /* bl */
    /* imm26 counts words from the bl itself; shifting it to the top and
     * back sign-extends it. */
    int64_t words = (int64_t)(int32_t)(insn << 6) >> 6;
    *target = ra - 4 + (uint64_t)(words * 4);
    return KNIT_CALL_DIRECT;
  }
  if ((insn & 0xfffffc1fu) == 0xd63f0000u) /* blr xN */
    return KNIT_CALL_INDIRECT;
  /* blraa/blrab (bit 24 set, Rm in bits 0-4) and blraaz/blrabz (bit 24
   * clear, Rm = 11111); bit 10 picks key A or B. */
  if ((insn & 0xfefff800u) == 0xd63f0800u)
    return KNIT_CALL_INDIRECT;
  return KNIT_CALL_NONE;
}
