/* Stepping through the x86-64 signal trampoline.
 *
 * On x86-64 the kernel has no trampoline of its own: the C library passes
 * one as sa_restorer (glibc's __restore_rt), and qemu-x86_64 uses the same
 * one. The kernel (and qemu) push a struct rt_sigframe whose first word,
 * pretcode, is the restorer's address; the handler's `ret` pops it, so at
 * the trampoline sp points at the ucontext that follows it:
 *
 *   __restore_rt:  48 c7 c0 0f 00 00 00   mov $0xf, %rax   (rt_sigreturn)
 *                  0f 05                  syscall
 *
 * The offsets below are those of the kernel's struct ucontext and struct
 * sigcontext (arch/x86/include/uapi/asm/sigcontext.h), which glibc's
 * ucontext_t mirrors: uc_flags, uc_link and the 24-byte uc_stack come
 * before uc_mcontext, whose gregs are r8..r15, rdi, rsi, rbp, rbx, rdx,
 * rax, rcx, rsp, rip. They are constants rather than offsetof(ucontext_t)
 * because this file is built into every tree, whatever its ISA; the unit
 * test checks them against the native ucontext_t and a real signal frame.
 */
#include "unwind/x86_64/x86_64_sigframe.h"

#define X86_UC_MCONTEXT 40u /* offsetof(ucontext_t, uc_mcontext) */
#define X86_GREG(i)     (X86_UC_MCONTEXT + 8u * (i))
#define X86_REG_RBP     10u /* glibc's REG_RBP */
#define X86_REG_RSP     15u /* REG_RSP */
#define X86_REG_RIP     16u /* REG_RIP */

#define X86_MOV_RAX_15_LEN 7u /* 48 c7 c0 0f 00 00 00 */

/* Reads the byte at addr through aligned words (the read function accepts
 * only 8-byte aligned addresses). */
static bool read_byte(knit_read_word_fn read, void *ctx, uint64_t addr, uint8_t *out)
{
  uint64_t w;
  if (!knit_read_word_(read, ctx, addr & ~7ull, &w))
    return false;
  *out = (uint8_t)(w >> (8u * (addr & 7u)));
  return true;
}

static bool code_matches(knit_read_word_fn read, void *ctx, uint64_t addr, const uint8_t *want,
                         unsigned len)
{
  for (unsigned i = 0; i < len; i++) {
    uint8_t b;
    if (!read_byte(read, ctx, addr + i, &b) || b != want[i])
      return false;
  }
  return true;
}

static const uint8_t RESTORE_RT[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

bool knit_x86_64_sigreturn_step(uint64_t pc, knit_read_word_fn read, void *ctx,
                                const knit_regs *here, knit_regs *interrupted)
{
  /* The handler returns to the mov; a timer sample may also land between
   * the two instructions, at the syscall. The first byte decides cheaply
   * which to compare (most code is neither). */
  uint8_t first;
  if (!read_byte(read, ctx, pc, &first))
    return false;
  uint64_t start;
  if (first == RESTORE_RT[0])
    start = pc;
  else if (first == RESTORE_RT[X86_MOV_RAX_15_LEN])
    start = pc - X86_MOV_RAX_15_LEN;
  else
    return false;
  if (!code_matches(read, ctx, start, RESTORE_RT, sizeof RESTORE_RT))
    return false;

  /* pretcode is popped in both positions: the ucontext is at sp. */
  uint64_t uc = here->sp, rip, rsp, rbp;
  if (!knit_read_word_(read, ctx, uc + X86_GREG(X86_REG_RIP), &rip) ||
      !knit_read_word_(read, ctx, uc + X86_GREG(X86_REG_RSP), &rsp) ||
      !knit_read_word_(read, ctx, uc + X86_GREG(X86_REG_RBP), &rbp))
    return false;
  interrupted->pc = rip;
  interrupted->sp = rsp;
  interrupted->fp = rbp;
  interrupted->lr = 0; /* no link register */
  return true;
}
