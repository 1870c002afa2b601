/* Unit tests of the signal-trampoline steps (sigreturn_step in
 * profiler/unwind/isa.h).
 *
 * Fixtures: for each ISA, the trampoline's recorded code bytes and a
 * synthetic stack holding a signal frame at the layout the kernel (and
 * QEMU) write, in the ISA's byte order, read through a read function over
 * those bytes only that gives the words a read on that ISA gives (so each
 * row is tested on any host, big-endian ppc64's on x86-64 and the
 * little-endian rows' on ppc64). The offsets in the fixtures are worked out
 * here from the structures (not taken from the code under test).
 *
 * Live: on the tree's own ISA (natively, or under QEMU in a cross tree) a
 * real signal: the handler steps through its own trampoline and compares
 * the result with the ucontext the kernel (or QEMU) gave it; and a full
 * walk with knit_unwind from inside a handler must go through the
 * trampoline into the interrupted function and on to the stack's root.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "unwind/decoder.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/recipe_cache.h"
#include "unwind/unwinder.h"

/* --- a fake address space: a few regions of bytes --------------------- */

typedef struct region {
  uint64_t base;
  uint8_t bytes[1024];
  size_t len;
} region;

typedef struct memory {
  region code;
  region stack;
  bool big_endian; /* the ISA's byte order */
} memory;

static uint64_t word_from(const uint8_t *p, size_t n, bool big_endian)
{
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8u * (big_endian ? n - 1 - i : i));
  return v;
}

static void word_to(uint8_t *p, size_t n, uint64_t v, bool big_endian)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8u * (big_endian ? n - 1 - i : i)));
}

static bool read_fake(void *ctx, uint64_t addr, uint64_t *out)
{
  const memory *m = ctx;
  const region *rs[2] = {&m->code, &m->stack};
  if (addr & 7)
    return false; /* as knit_read_own_memory: aligned words only */
  for (int i = 0; i < 2; i++) {
    const region *r = rs[i];
    if (addr >= r->base && addr + 8 <= r->base + r->len) {
      *out = word_from(&r->bytes[addr - r->base], 8, m->big_endian);
      return true;
    }
  }
  return false;
}

static void put_bytes(region *r, uint64_t addr, const void *bytes, size_t n)
{
  assert_true(addr >= r->base && addr + n <= r->base + r->len);
  memcpy(&r->bytes[addr - r->base], bytes, n);
}

/* Instruction words and data words, in the memory's byte order. */
static void put_insns(memory *m, uint64_t addr, int n, ...)
{
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    uint8_t b[4];
    word_to(b, 4, va_arg(ap, uint32_t), m->big_endian);
    put_bytes(&m->code, addr + 4u * (unsigned)i, b, 4);
  }
  va_end(ap);
}

static void put_word(memory *m, uint64_t addr, uint64_t v)
{
  uint8_t b[8];
  word_to(b, 8, v, m->big_endian);
  put_bytes(&m->stack, addr, b, 8);
}

static memory *new_memory(const knit_isa_ops *isa, uint64_t code_base, uint64_t stack_base)
{
  memory *m = calloc(1, sizeof *m);
  assert_non_null(m);
  m->big_endian = isa->elf_data == ELFDATA2MSB;
  m->code.base = code_base;
  m->code.len = sizeof m->code.bytes;
  m->stack.base = stack_base;
  m->stack.len = sizeof m->stack.bytes;
  return m;
}

static const knit_isa_ops *isa_of(uint16_t machine)
{
  const knit_isa_ops *isa = knit_isa_for_machine(machine);
  assert_non_null(isa);
  assert_non_null(isa->sigreturn_step);
  return isa;
}

/* --- x86-64: glibc's __restore_rt ------------------------------------- */

/* rt_sigframe after the handler's ret popped pretcode: the ucontext is at
 * sp. uc_mcontext at 8 + 8 + 24 = 40; gregs r8..r15 (0-7), rdi, rsi, rbp
 * (10), rbx, rdx, rax, rcx, rsp (15), rip (16). */
#define X86_RBP_AT 120u
#define X86_RSP_AT 160u
#define X86_RIP_AT 168u

static const uint8_t RESTORE_RT[] = {0x90, 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

static memory *x86_fixture(uint64_t *tramp, uint64_t *sp)
{
  memory *m = new_memory(&knit_isa_x86_64, 0x401000, 0x7ff000);
  /* An odd address, so the 9 bytes straddle aligned words. */
  put_bytes(&m->code, 0x401103, RESTORE_RT, sizeof RESTORE_RT);
  *tramp = 0x401104; /* after glibc's nop */
  *sp = 0x7ff100;
  put_word(m, *sp + X86_RIP_AT, 0x401234);
  put_word(m, *sp + X86_RSP_AT, 0x7ff3f0);
  put_word(m, *sp + X86_RBP_AT, 0x7ff3f8);
  return m;
}

static void test_x86_64_restore_rt(void **state)
{
  (void)state;
  const knit_isa_ops *isa = isa_of(EM_X86_64);
  uint64_t tramp, sp;
  memory *m = x86_fixture(&tramp, &sp);
  knit_regs here = {.pc = tramp, .sp = sp, .fp = 1, .lr = 0};
  knit_regs out = {0};
  /* Where the handler returns, and between mov and syscall. */
  uint64_t pcs[] = {tramp, tramp + 7};
  for (int i = 0; i < 2; i++) {
    here.pc = pcs[i];
    memset(&out, 0, sizeof out);
    assert_true(isa->sigreturn_step(pcs[i], read_fake, m, &here, &out));
    assert_int_equal(out.pc, 0x401234);
    assert_int_equal(out.sp, 0x7ff3f0);
    assert_int_equal(out.fp, 0x7ff3f8);
    assert_int_equal(out.lr, 0);
  }
  /* Not the trampoline: the nop before it, the middle of the mov, and a
   * different system call number. */
  assert_false(isa->sigreturn_step(tramp - 1, read_fake, m, &here, &out));
  assert_false(isa->sigreturn_step(tramp + 2, read_fake, m, &here, &out));
  uint8_t other = 0x0e;
  put_bytes(&m->code, tramp + 3, &other, 1);
  assert_false(isa->sigreturn_step(tramp, read_fake, m, &here, &out));
  free(m);
}

static void test_x86_64_unreadable(void **state)
{
  (void)state;
  const knit_isa_ops *isa = isa_of(EM_X86_64);
  uint64_t tramp, sp;
  memory *m = x86_fixture(&tramp, &sp);
  knit_regs out;
  /* Code that cannot be read, and a frame outside the stack. */
  knit_regs here = {.pc = 0x10, .sp = sp, .fp = 0, .lr = 0};
  assert_false(isa->sigreturn_step(0x10, read_fake, m, &here, &out));
  here.sp = 0x100000;
  assert_false(isa->sigreturn_step(tramp, read_fake, m, &here, &out));
  free(m);
}

/* --- aarch64: the vdso's __kernel_rt_sigreturn, qemu's page ------------ */

/* rt_sigframe at sp: siginfo (128), then the ucontext; its uc_mcontext at
 * 8 + 8 + 24 + 8 (sigmask) + 120 (room) = 168, aligned to 16: 176;
 * sigcontext: fault_address, regs[31], sp, pc. From sp: regs[i] at
 * 128 + 176 + 8 + 8 i. */
#define A64_X29_AT 544u
#define A64_X30_AT 552u
#define A64_SP_AT  560u
#define A64_PC_AT  568u

static void test_aarch64_rt_sigreturn(void **state)
{
  (void)state;
  const knit_isa_ops *isa = isa_of(EM_AARCH64);
  memory *m = new_memory(isa, 0x5500000000, 0x5500800000);
  uint64_t tramp = 0x5500000104; /* after the vdso's nop */
  put_insns(m, tramp - 4, 3, 0xd503201fu, 0xd2801168u, 0xd4000001u);
  uint64_t sp = 0x5500800010;
  put_word(m, sp + A64_PC_AT, 0x5500000400);
  put_word(m, sp + A64_SP_AT, 0x55008003a0);
  put_word(m, sp + A64_X29_AT, 0x55008003b0);
  put_word(m, sp + A64_X30_AT, 0x5500000888);
  knit_regs here = {.pc = tramp, .sp = sp, .fp = 0, .lr = 0};
  knit_regs out;
  uint64_t pcs[] = {tramp, tramp + 4};
  for (int i = 0; i < 2; i++) {
    memset(&out, 0, sizeof out);
    assert_true(isa->sigreturn_step(pcs[i], read_fake, m, &here, &out));
    assert_int_equal(out.pc, 0x5500000400);
    assert_int_equal(out.sp, 0x55008003a0);
    assert_int_equal(out.fp, 0x55008003b0);
    /* A leaf's return address may still be in x30: it must come along. */
    assert_int_equal(out.lr, 0x5500000888);
  }
  assert_false(isa->sigreturn_step(tramp - 4, read_fake, m, &here, &out));
  assert_false(isa->sigreturn_step(tramp + 2, read_fake, m, &here, &out));
  /* svc #0 after some other instruction is an ordinary system call. */
  put_insns(m, tramp, 1, 0xd2800ba8u); /* mov x8, #93 (exit) */
  assert_false(isa->sigreturn_step(tramp + 4, read_fake, m, &here, &out));
  free(m);
}

/* --- ppc64le and ppc64: the vdso's __kernel_sigtramp_rt64, qemu's page --
 * Each test runs on both POWER rows (its state), in their byte orders. */

/* The ucontext: uc_mcontext at 8 + 8 + 24 + 128 (masks) = 168, its gp_regs
 * 64 bytes in: 232; gp_regs r1 (1), r31 (31), nip (32), link (36). */
#define PPC_R1_AT   (232u + 8u * 1u)
#define PPC_R31_AT  (232u + 8u * 31u)
#define PPC_NIP_AT  (232u + 8u * 32u)
#define PPC_LINK_AT (232u + 8u * 36u)

static void put_ppc_ucontext(memory *stack, uint64_t uc)
{
  put_word(stack, uc + PPC_NIP_AT, 0x10000500);
  put_word(stack, uc + PPC_R1_AT, 0x7fff0400);
  put_word(stack, uc + PPC_R31_AT, 0x7fff0480);
  put_word(stack, uc + PPC_LINK_AT, 0x10000777);
}

static void expect_ppc_interrupted(const knit_regs *out)
{
  assert_int_equal(out->pc, 0x10000500);
  assert_int_equal(out->sp, 0x7fff0400);
  assert_int_equal(out->fp, 0x7fff0480);
  assert_int_equal(out->lr, 0x10000777);
}

static void test_power_vdso(void **state)
{
  const knit_isa_ops *isa = *state;
  memory *m = new_memory(isa, 0x10000000, 0x7fff0000);
  /* The vdso: the handler was called by bctrl and returns to the addi;
   * r1 is 128 bytes below the ucontext, a back chain there. */
  uint64_t tramp = 0x10000104;
  put_insns(m, tramp - 4, 4, 0x4e800421u, 0x38210080u, 0x380000acu, 0x44000002u);
  uint64_t sp = 0x7fff0000;
  put_word(m, sp, 0x7fff0400);
  put_ppc_ucontext(m, sp + 128);
  knit_regs here = {.pc = tramp, .sp = sp, .fp = 0, .lr = 0};
  knit_regs out;
  assert_true(isa->sigreturn_step(tramp, read_fake, m, &here, &out));
  expect_ppc_interrupted(&out);
  /* A timer sample after the addi ran: r1 is at the ucontext. */
  here.sp = sp + 128;
  for (uint64_t pc = tramp + 4; pc <= tramp + 8; pc += 4) {
    memset(&out, 0, sizeof out);
    assert_true(isa->sigreturn_step(pc, read_fake, m, &here, &out));
    expect_ppc_interrupted(&out);
  }
  /* The bctrl before it is the call, not the trampoline. */
  assert_false(isa->sigreturn_step(tramp - 4, read_fake, m, &here, &out));
  free(m);
}

static void test_power_qemu(void **state)
{
  const knit_isa_ops *isa = *state;
  memory *m = new_memory(isa, 0x4000000000, 0x4000800000);
  /* qemu-ppc64le and qemu-ppc64 7.2: li; sc at the start of its page, and r1 144 bytes
   * (its SIGNAL_FRAMESIZE + 16) below the ucontext, with the back chain. */
  uint64_t tramp = 0x4000000000;
  put_insns(m, tramp, 2, 0x380000acu, 0x44000002u);
  uint64_t sp = 0x4000800010;
  put_word(m, sp, 0x7fff0400);
  put_ppc_ucontext(m, sp + 144);
  knit_regs here = {.pc = tramp, .sp = sp, .fp = 0, .lr = 0};
  knit_regs out;
  for (uint64_t pc = tramp; pc <= tramp + 4; pc += 4) {
    memset(&out, 0, sizeof out);
    assert_true(isa->sigreturn_step(pc, read_fake, m, &here, &out));
    expect_ppc_interrupted(&out);
  }
  /* li r0, 172 followed by something other than sc. */
  put_insns(m, tramp + 4, 1, 0x4e800020u); /* blr */
  assert_false(isa->sigreturn_step(tramp, read_fake, m, &here, &out));
  free(m);
}

/* --- live: this tree's own ISA, a real signal --------------------------- */

static volatile sig_atomic_t live_ran;
static bool live_found;
static knit_regs live_out, live_uc;

/* Steps through the handler's own trampoline: its return address is the
 * trampoline's entry and its CFA the sp the trampoline starts with, on
 * every ISA (the handler gives sp back as it found it). */
__attribute__((noinline)) static void live_handler(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  knit_regs here = {.pc = (uint64_t)(uintptr_t)__builtin_return_address(0),
                    .sp = (uint64_t)(uintptr_t)__builtin_dwarf_cfa(),
                    .fp = 0,
                    .lr = 0};
  live_found =
      knit_isa_native()->sigreturn_step(here.pc, knit_read_own_memory, NULL, &here, &live_out);
  knit_native_regs_from_ucontext(uc, &live_uc);
  live_ran = 1;
}

static inline __attribute__((always_inline)) void raise_self(int sig)
{
  syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), (long)sig);
}

static void test_live_trampoline(void **state)
{
  (void)state;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = live_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
  live_ran = 0;
  raise_self(SIGUSR1);
  sigaction(SIGUSR1, &old, NULL);
  assert_true(live_ran);
  assert_true(live_found);
  assert_int_equal(live_out.pc, live_uc.pc);
  assert_int_equal(live_out.sp, live_uc.sp);
  assert_int_equal(live_out.fp, live_uc.fp);
  assert_int_equal(live_out.lr, live_uc.lr);
}

/* A full walk from inside a handler, as the sampler walks: through the
 * trampoline into the C library's syscall(), the interrupted leaf (whose
 * return address is in the link register on aarch64 and ppc64le), then
 * walk_interrupted, and on to the root. */
static knit_unwinder walker;
static knit_frame walk_frames[128];
static int walk_n;
static knit_unwind_end walk_end;
static uint64_t walk_uc_pc;

__attribute__((noinline)) static void walk_handler(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  ucontext_t here;
  getcontext(&here);
  knit_regs regs;
  knit_native_regs_from_ucontext(&here, &regs);
  walk_n = knit_unwind(&walker, &regs, walk_frames, 128, &walk_end);
  knit_regs interrupted;
  knit_native_regs_from_ucontext(uc, &interrupted);
  walk_uc_pc = interrupted.pc;
  __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) static void walk_interrupted(void)
{
  raise_self(SIGUSR2);
  __asm__ __volatile__("" ::: "memory");
}

/* Whether the frame's pc lies in func's code: the functions here are
 * small, and their code ends well within this bound. */
static int frame_in(const knit_frame *f, void (*func)(void))
{
  uint64_t start = knit_native_code_of(func);
  return f->pc > start && f->pc < start + 256;
}

static void test_live_walk(void **state)
{
  (void)state;
  knit_decoder_setup();
  knit_loadmap_refresh((const void *)test_live_walk);
  if (!knit_decoder_open(&walker.decoder, knit_isa_native()))
    skip();
  walker.scratch = malloc(sizeof *walker.scratch);
  walker.cache = calloc(KNIT_STEP_CACHE_SIZE, sizeof *walker.cache);
  walker.read = knit_read_own_memory;
  assert_non_null(walker.scratch);
  assert_non_null(walker.cache);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = walk_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
  /* Twice: the second walk runs from the step cache. */
  for (int round = 0; round < 2; round++) {
    walk_n = 0;
    walk_interrupted();
    assert_int_equal(walk_end, KNIT_UNWIND_COMPLETE);
    int sig = -1;
    for (int i = 0; i < walk_n; i++)
      if (walk_frames[i].flags & KNIT_FRAME_SIGNAL)
        sig = i;
    assert_true(sig >= 1);
    assert_true(sig + 2 < walk_n);
    assert_true(frame_in(&walk_frames[sig - 1], (void (*)(void))walk_handler));
    const knit_frame *f = &walk_frames[sig + 1];
    assert_true(f->flags & KNIT_FRAME_INTERRUPTED);
    assert_int_equal(f->pc, walk_uc_pc);
    /* Past the C library's syscall(), a leaf, lies the function that
     * called it. */
    assert_true(frame_in(&walk_frames[sig + 2], walk_interrupted));
  }
  sigaction(SIGUSR2, &old, NULL);
}

int main(void)
{
  /* The sanitizer runs (ci/check-sanitized.sh) say which one is on. */
  const char *sanitized = getenv("KNIT_SANITIZED");
  if (sanitized && strcmp(sanitized, "tsan") == 0) {
    printf(
        "skip: under ThreadSanitizer %s\n",
        "its live tests take a signal sent to the thread itself, which ThreadSanitizer holds back "
        "until a point of its own choosing, so the handler does not run where the test sent it");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_x86_64_restore_rt),
      cmocka_unit_test(test_x86_64_unreadable),
      cmocka_unit_test(test_aarch64_rt_sigreturn),
      cmocka_unit_test_prestate(test_power_vdso, (void *)&knit_isa_ppc64le),
      cmocka_unit_test_prestate(test_power_qemu, (void *)&knit_isa_ppc64le),
      cmocka_unit_test_prestate(test_power_vdso, (void *)&knit_isa_ppc64),
      cmocka_unit_test_prestate(test_power_qemu, (void *)&knit_isa_ppc64),
      cmocka_unit_test(test_live_trampoline),
      cmocka_unit_test(test_live_walk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
