/* Stepping through the POWER (ppc64le and ppc64) signal trampoline.
 *
 * The kernel makes the handler return into the vdso's
 * __kernel_sigtramp_rt64; qemu-ppc64le and qemu-ppc64, which have no vdso,
 * to an anonymous
 * page of its own:
 *
 *   vdso:  38210080   addi r1, r1, 128   (pop the handler's minimal frame)
 *          380000ac   li r0, 172         (__NR_rt_sigreturn)
 *          44000002   sc
 *   qemu:  380000ac   li r0, 172
 *          44000002   sc
 *
 * Both push a struct rt_sigframe that begins with the ucontext
 * (arch/powerpc/kernel/signal_64.c, qemu's linux-user/ppc/signal.c) and
 * enter the handler with r1 below it, a back chain to the interrupted r1
 * stored there: 128 bytes below (__SIGNAL_FRAMESIZE) natively, where the
 * vdso's addi pops exactly that before sigreturn reads the ucontext at r1;
 * 144 bytes below under qemu-ppc64le 7.2, whose sigreturn reads it at
 * r1 + 128 + 16 (measured: the ucontext a handler is given is 144 bytes
 * above its CFA). The handler gives r1 back as it found it. In the ucontext uc_flags, uc_link, the 24-byte uc_stack and 128
 * bytes of signal masks come first; uc_mcontext (struct sigcontext) is at
 * 168 and its gp_regs (the pt_regs layout: r0..r31, nip, msr, orig_r3,
 * ctr, link) 64 bytes into it. Constants, not offsetof, because this file
 * is built into every tree; the unit test checks them against a real
 * signal frame on every ISA's tree.
 */
#include "unwind/power/power_sigframe.h"

#define PPC_ADDI_R1_R1_128 0x38210080u
#define PPC_LI_R0_172      0x380000acu
#define PPC_SC             0x44000002u

#define PPC_SIGNAL_FRAMESIZE 128u
#define PPC_QEMU_FRAMESIZE   (PPC_SIGNAL_FRAMESIZE + 16u)
#define PPC_UC_GP_REGS       (168u + 64u) /* offsetof(ucontext_t, uc_mcontext.gp_regs) */
#define PPC_GPR(i)           (PPC_UC_GP_REGS + 8u * (i))
#define PPC_REG_R1           1u
#define PPC_REG_R31          31u
#define PPC_REG_NIP          32u
#define PPC_REG_LINK         36u

/* Reads the instruction word at a 4-aligned addr through the 8-byte
 * aligned reads the read function accepts: a word in the ABI's byte order,
 * so the word at the lower address is the low half on little-endian and the
 * high half on big-endian. */
static bool read_insn(const knit_power_abi *abi, knit_read_word_fn read, void *ctx, uint64_t addr,
                      uint32_t *out)
{
  uint64_t w;
  if ((addr & 3u) != 0 || !knit_read_word_(read, ctx, addr & ~7ull, &w))
    return false;
  unsigned high = abi->big_endian ? !(addr & 4u) : (addr & 4u) != 0;
  *out = (uint32_t)(w >> (high ? 32u : 0u));
  return true;
}

/* The address of the ucontext, from the code at pc and the stack; 0 when
 * pc is not a trampoline. A real frame is never at address 0. */
static uint64_t find_ucontext(const knit_power_abi *abi, uint64_t pc, knit_read_word_fn read,
                              void *ctx, uint64_t sp)
{
  uint32_t insn, next;
  if (!read_insn(abi, read, ctx, pc, &insn))
    return 0;
  if (insn == PPC_ADDI_R1_R1_128) {
    /* The vdso, where the handler returns to: r1 still has the frame. */
    uint32_t last;
    if (!read_insn(abi, read, ctx, pc + 4, &next) || next != PPC_LI_R0_172 ||
        !read_insn(abi, read, ctx, pc + 8, &last) || last != PPC_SC)
      return 0;
    return sp + PPC_SIGNAL_FRAMESIZE;
  }
  if (insn == PPC_SC) {
    /* A timer sample between li and sc: decide as for li, from there. */
    if (!read_insn(abi, read, ctx, pc - 4, &next) || next != PPC_LI_R0_172)
      return 0;
  } else if (insn != PPC_LI_R0_172 || !read_insn(abi, read, ctx, pc + 4, &next) || next != PPC_SC) {
    return 0;
  }
  /* At li: qemu's trampoline, where r1 still has its 144-byte frame, or the
   * vdso's after its addi, where r1 is at the ucontext. Reading the word
   * before li could fault (qemu's trampoline may start its page), so the
   * stack decides: with the frame still there, r1 points at the back chain,
   * which is the interrupted r1 that the ucontext also holds. Without it r1
   * points at uc_flags, a small number, never a 16-byte aligned stack
   * address, which rules out a chance match (the slot compared with it is
   * then some saved register, often 0). */
  uint64_t chain, saved_r1;
  if (knit_read_word_(read, ctx, sp, &chain) && chain != 0 && (chain & 15u) == 0 &&
      knit_read_word_(read, ctx, sp + PPC_QEMU_FRAMESIZE + PPC_GPR(PPC_REG_R1), &saved_r1) &&
      chain == saved_r1)
    return sp + PPC_QEMU_FRAMESIZE;
  return sp;
}

bool knit_power_sigreturn_step(const knit_power_abi *abi, uint64_t pc, knit_read_word_fn read,
                               void *ctx, const knit_regs *here, knit_regs *interrupted)
{
  uint64_t uc = find_ucontext(abi, pc, read, ctx, here->sp);
  if (uc == 0)
    return false;
  uint64_t nip, r1, r31, link;
  if (!knit_read_word_(read, ctx, uc + PPC_GPR(PPC_REG_NIP), &nip) ||
      !knit_read_word_(read, ctx, uc + PPC_GPR(PPC_REG_R1), &r1) ||
      !knit_read_word_(read, ctx, uc + PPC_GPR(PPC_REG_R31), &r31) ||
      !knit_read_word_(read, ctx, uc + PPC_GPR(PPC_REG_LINK), &link))
    return false;
  interrupted->pc = nip;
  interrupted->sp = r1;
  interrupted->fp = r31;
  /* A leaf interrupted before it saved LR still has its return address
   * there: the next step may need it. */
  interrupted->lr = link;
  return true;
}
