/* POWER: the call instruction that ends at a return address. Every
 * instruction is 4 bytes; a call is a branch with the link bit (LK) set, at
 * ra-4: `bl` (opcode 18), `bcl` (opcode 16, conditional), `bctrl` (opcode
 * 19, xo 528) and `blrl` (opcode 19, xo 16). After `bl f` to another
 * module's function the return address is the TOC restore (`ld r2,24(r1)`
 * under ELFv2, `ld r2,40(r1)` under ELFv1) that follows the bl, so ra-4 is
 * still the bl. Plain bit tests: pure. */
#include "unwind/power/power_call.h"
#include "unwind/step_class.h"

int knit_power_call_before(const knit_power_abi *abi, const uint8_t *bytes, size_t n, uint64_t ra,
                           uint64_t *target)
{
  if (n < 4)
    return KNIT_CALL_NONE;
  const uint8_t *p = bytes + n - 4;
  uint32_t insn = knit_power_word(abi, p);
  if (!(insn & 1)) /* LK clear: a branch that saves no return address */
    return KNIT_CALL_NONE;
  uint32_t opcode = insn >> 26;
  bool absolute = (insn & 2) != 0; /* AA: the target is not pc-relative */
  uint64_t here = ra - 4;
  if (opcode == 18) { /* bl, bla: 24-bit word displacement */
    int64_t disp = (int64_t)(int32_t)((insn & 0x03fffffcu) << 6) >> 6;
    *target = (absolute ? 0 : here) + (uint64_t)disp;
    return KNIT_CALL_DIRECT;
  }
  if (opcode == 16) { /* bcl, bcla: 14-bit word displacement */
    int64_t disp = (int64_t)(int16_t)(insn & 0xfffcu);
    *target = (absolute ? 0 : here) + (uint64_t)disp;
    return KNIT_CALL_DIRECT;
  }
  if (opcode == 19) {
    uint32_t xo = (insn >> 1) & 0x3ff;
    if (xo == 528 || xo == 16 || xo == 560) /* bcctrl, bclrl, bctarl */
      return KNIT_CALL_INDIRECT;
  }
  return KNIT_CALL_NONE;
}
