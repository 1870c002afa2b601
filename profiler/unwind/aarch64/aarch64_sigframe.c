/* Stepping through the aarch64 signal trampoline.
 *
 * The kernel makes the handler return to the vdso's __kernel_rt_sigreturn;
 * qemu-aarch64, which has no vdso, to an anonymous page of its own with the
 * same code:
 *
 *   d2801168   mov x8, #139    (__NR_rt_sigreturn)
 *   d4000001   svc #0
 *
 * Both enter the handler with sp at the struct rt_sigframe they pushed
 * (arch/arm64/kernel/signal.c; qemu's linux-user/aarch64/signal.c):
 * a 128-byte siginfo, then the ucontext. The handler gives sp back as it
 * found it, so the trampoline sees the same sp. In the ucontext uc_flags,
 * uc_link, the 24-byte uc_stack, the 8-byte uc_sigmask and 120 bytes of
 * room for larger masks come first; uc_mcontext (struct sigcontext) is
 * 16-byte aligned, at 176, and holds fault_address, regs[31], sp, pc.
 * Constants, not offsetof, because this file is built into every tree; the
 * unit test checks them against a real signal frame on every ISA's tree.
 */
#include "unwind/aarch64/aarch64_sigframe.h"

#define A64_MOV_X8_139 0xd2801168u
#define A64_SVC_0      0xd4000001u

#define A64_SIGINFO_SIZE 128u
#define A64_UC_MCONTEXT  176u /* offsetof(ucontext_t, uc_mcontext) */
#define A64_SC_REGS      8u   /* after fault_address */
#define A64_SC_SP        (A64_SC_REGS + 31u * 8u)
#define A64_SC_PC        (A64_SC_SP + 8u)
#define A64_MCONTEXT     (A64_SIGINFO_SIZE + A64_UC_MCONTEXT) /* from sp */

/* Reads the (little-endian) instruction word at a 4-aligned addr through
 * the 8-byte aligned reads the read function accepts. */
static bool read_insn(knit_read_word_fn read, void *ctx, uint64_t addr, uint32_t *out)
{
  uint64_t w;
  if ((addr & 3u) != 0 || !knit_read_word_(read, ctx, addr & ~7ull, &w))
    return false;
  *out = (uint32_t)(w >> (8u * (addr & 4u)));
  return true;
}

bool knit_aarch64_sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,
                                 const knit_regs *here, knit_regs *interrupted)
{
  /* The handler returns to the mov; a timer sample may land between the
   * two instructions, at the svc. A return address never points at that
   * svc (the mov before it is no call), so matching it is safe for any
   * frame. */
  uint32_t insn, other;
  if (!read_insn(read, ctx, pc, &insn))
    return false;
  if (insn == A64_MOV_X8_139) {
    if (!read_insn(read, ctx, pc + 4, &other) || other != A64_SVC_0)
      return false;
  } else if (insn == A64_SVC_0) {
    if (!read_insn(read, ctx, pc - 4, &other) || other != A64_MOV_X8_139)
      return false;
  } else {
    return false;
  }

  uint64_t mc = here->sp + A64_MCONTEXT, x29, x30, sp, npc;
  if (!knit_read_word_(read, ctx, mc + A64_SC_REGS + 29u * 8u, &x29) ||
      !knit_read_word_(read, ctx, mc + A64_SC_REGS + 30u * 8u, &x30) ||
      !knit_read_word_(read, ctx, mc + A64_SC_SP, &sp) ||
      !knit_read_word_(read, ctx, mc + A64_SC_PC, &npc))
    return false;
  interrupted->pc = npc;
  interrupted->sp = sp;
  interrupted->fp = x29;
  /* A leaf interrupted before it saved x30 still has its return address
   * there: the next step may need it. */
  interrupted->lr = x30;
  return true;
}
