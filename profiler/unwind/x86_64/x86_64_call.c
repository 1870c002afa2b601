/* x86-64: the call instruction that ends at a return address.
 *
 * Instructions have variable length, so the bytes before a return address
 * are tried as each length a call can have: `call rel32` (e8, 5 bytes) and
 * `call r/m64` (ff /2: 2 to 7 bytes, 8 with a REX prefix), which covers
 * calls through a register, through memory and the rip-relative
 * `call *x(%rip)` of -fno-plt code. A prefix before the opcode (notrack,
 * bnd) leaves the opcode where it is, so suffix matching needs no prefix
 * list. Plain bit tests rather than Capstone: they need no handle, so the
 * function is pure and cheap, and it runs only when a step is not cached. */
#include "unwind/step_class.h"

/* The length of `ff /2` with this ModRM and (when it has one) SIB byte,
 * counting from the ModRM byte: the ModRM, a SIB byte, a displacement. */
static size_t modrm_length(uint8_t modrm, const uint8_t *sib, size_t left)
{
  unsigned mod = modrm >> 6, rm = modrm & 7;
  size_t len = 1;
  if (mod == 3)
    return len;
  if (rm == 4) {
    if (left < 2)
      return 0;
    len++;
    /* A SIB base of 5 without a ModRM displacement means disp32, no base. */
    if (mod == 0 && (sib[0] & 7) == 5)
      len += 4;
  } else if (mod == 0 && rm == 5) {
    len += 4; /* rip-relative */
  }
  if (mod == 1)
    len += 1;
  else if (mod == 2)
    len += 4;
  return len;
}

int knit_x86_64_call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target)
{
  /* A direct call first: it is by far the most common, and when the same
   * bytes could also end an indirect call, the direct reading says more. */
  if (n >= 5 && bytes[n - 5] == 0xe8) {
    int32_t rel = (int32_t)((uint32_t)bytes[n - 4] | (uint32_t)bytes[n - 3] << 8 |
                            (uint32_t)bytes[n - 2] << 16 | (uint32_t)bytes[n - 1] << 24);
    *target = ra + (uint64_t)(int64_t)rel;
    return KNIT_CALL_DIRECT;
  }
  for (size_t len = 2; len <= 8 && len <= n; len++) {
    const uint8_t *p = bytes + n - len;
    size_t opcode = (p[0] & 0xf0) == 0x40 ? 1 : 0; /* a REX prefix */
    if (len < opcode + 2 || p[opcode] != 0xff)
      continue;
    uint8_t modrm = p[opcode + 1];
    if (((modrm >> 3) & 7) != 2)
      continue;
    if (opcode + 1 + modrm_length(modrm, p + opcode + 2, len - opcode - 1) == len)
      return KNIT_CALL_INDIRECT;
  }
  return KNIT_CALL_NONE;
}
