/* The aarch64 analyzer on recorded code bytes (each fixture with the source
 * it came from and the recipe expected at chosen offsets), and against the
 * CFI the compiler wrote, at every instruction of every function of the
 * subject functions of test_aarch64_audit_subjects.c (cross-compiled at
 * build time in several flavours, see aarch64.cmake) and of the aarch64
 * libc. It runs on any host because the code is only decoded.
 *
 * The audit itself is knit audit's (profiler/audit), built for the host
 * only: in a cross tree the recorded fixtures run (under QEMU) and the
 * audit tests skip. */
#include <capstone/capstone.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"
#ifdef KNIT_HAVE_AUDIT
#include "profiler/audit/audit.h"
#endif

#define FIXTURE_ADDR 0x400000u
#define MAX_RECIPES  256

/* The recipe expected at one offset: CFA = base + cfa; ra 0 means the
 * return address is in LR, else at CFA+ra; fp 0 means x29 is unchanged,
 * else the caller's x29 is at CFA+fp. */
typedef struct expect {
  uint32_t offset;
  uint8_t cfa_base;
  int32_t cfa_offset;
  int32_t ra_offset;
  int32_t fp_offset;
  uint8_t flags;
} expect;

enum { SP = KNIT_CFA_SP, FP = KNIT_CFA_FP, UNC = KNIT_RECIPE_UNCERTAIN };

static void check_fixture(const uint8_t *code, size_t len, const expect *e, size_t ne)
{
  knit_recipe r[MAX_RECIPES];
  int n = knit_fixture_analyze(code, len, FIXTURE_ADDR, r, MAX_RECIPES);
  for (size_t i = 0; i < ne; i++) {
    const knit_recipe *got = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + e[i].offset);
    assert_non_null(got);
    bool ra_ok = e[i].ra_offset ? got->ra_rule == KNIT_RA_AT_CFA && got->ra_offset == e[i].ra_offset
                                : got->ra_rule == KNIT_RA_IN_LR;
    bool fp_ok = e[i].fp_offset ? got->fp_rule == KNIT_FP_AT_CFA && got->fp_offset == e[i].fp_offset
                                : got->fp_rule == KNIT_FP_SAME;
    if (got->cfa_base != e[i].cfa_base || got->cfa_offset != e[i].cfa_offset || !ra_ok || !fp_ok ||
        (got->flags & KNIT_RECIPE_UNCERTAIN) != e[i].flags) {
      fail_msg("offset %#x: got %s%+d ra %s%+d fp %s%+d flags %d; "
               "expected %s%+d ra %+d fp %+d flags %d",
               e[i].offset, got->cfa_base == FP ? "x29" : "sp", got->cfa_offset,
               got->ra_rule == KNIT_RA_IN_LR ? "lr" : "cfa", got->ra_offset,
               got->fp_rule == KNIT_FP_SAME ? "same" : "cfa", got->fp_offset, got->flags,
               e[i].cfa_base == FP ? "x29" : "sp", e[i].cfa_offset, e[i].ra_offset, e[i].fp_offset,
               e[i].flags);
    }
  }
}

#define CHECK(code, ...)                                                                           \
  do {                                                                                             \
    const expect e_[] = {__VA_ARGS__};                                                             \
    check_fixture((const uint8_t *)code, sizeof code, e_, sizeof e_ / sizeof e_[0]);               \
  } while (0)

/* Fixtures are A64 words as the disassembler prints them; the analyzer
 * reads bytes, so they are laid out little-endian. */
#define W(x) (uint8_t)(x), (uint8_t)((x) >> 8), (uint8_t)((x) >> 16), (uint8_t)((x) >> 24)

/* gcc 12 -O2: knit_a64_leaf (above)
 *   0: mul w0, w0, w1   4: add w0, w0, #0x3   8: ret
 * A leaf: the return address stays in LR and sp is the CFA throughout. */
static const uint8_t leaf_o2[] = {W(0x1b017c00), W(0x11000c00), W(0xd65f03c0)};

static void test_leaf(void **state)
{
  (void)state;
  CHECK(leaf_o2, {0, SP, 0, 0, 0, 0}, {4, SP, 0, 0, 0, 0}, {8, SP, 0, 0, 0, 0});
  knit_recipe r[4];
  assert_int_equal(knit_fixture_analyze(leaf_o2, sizeof leaf_o2, FIXTURE_ADDR, r, 4), 1);
}

/* gcc 12 -O2: knit_a64_multi_exit (above). A frame record pushed with
 * the frame (CFA stays on sp after mov x29, sp, as in gcc's CFI); two
 * epilogues, the second reached by the b.le; padding after the last ret.
 *   0: stp x29, x30, [sp, #-64]!   4: mov x29, sp
 *   8: stp x19, x20, [sp, #16]   c: mov w19, w0  10: add x20, sp, #0x20
 *  14: mov x0, x20  18: mov w1, w19  1c: bl work@plt  20: cmp w0, #0xa
 *  24: b.le 44  28: and x19, x19, #0x7  2c: mov w2, w0
 *  30: ldr w0, [x20, x19, lsl #2]  34: ldp x19, x20, [sp, #16]
 *  38: add w0, w2, w0  3c: ldp x29, x30, [sp], #64  40: ret  44: bl other@plt
 *  48: ldr w1, [sp, #32]  4c: ldp x19, x20, [sp, #16]  50: add w0, w0, w1
 *  54: ldp x29, x30, [sp], #64  58: ret  5c: nop */
static const uint8_t multi_exit_o2[] = {
    W(0xa9bc7bfd), W(0x910003fd), W(0xa90153f3), W(0x2a0003f3), W(0x910083f4), W(0xaa1403e0),
    W(0x2a1303e1), W(0x97fffff1), W(0x7100281f), W(0x5400010d), W(0x92400a73), W(0x2a0003e2),
    W(0xb8737a80), W(0xa94153f3), W(0x0b000040), W(0xa8c47bfd), W(0xd65f03c0), W(0x97ffffdf),
    W(0xb94023e1), W(0xa94153f3), W(0x0b010000), W(0xa8c47bfd), W(0xd65f03c0), W(0xd503201f),
};

/* gcc 12 -O0: knit_a64_multi_exit (above); one epilogue, reached by a b.
 *   0: stp x29, x30, [sp, #-80]!   4: mov x29, sp   8: str w0, [sp, #28]
 *   c: add x0, sp, #0x28  10: ldr w1, [sp, #28]  14: bl work@plt
 *  18: str w0, [sp, #76]  1c: ldr w0, [sp, #76]  20: cmp w0, #0xa
 *  24: b.le 4c  28: ldr w0, [sp, #28]  2c: and w0, w0, #0x7  30: sxtw x0, w0
 *  34: lsl x0, x0, #2  38: add x1, sp, #0x28  3c: ldr w1, [x1, x0]
 *  40: ldr w0, [sp, #76]  44: add w0, w1, w0  48: b 60  4c: ldr w0, [sp, #76]
 *  50: bl other@plt  54: mov w1, w0  58: ldr w0, [sp, #40]
 *  5c: add w0, w1, w0  60: ldp x29, x30, [sp], #80  64: ret */
static const uint8_t multi_exit_o0[] = {
    W(0xa9bb7bfd), W(0x910003fd), W(0xb9001fe0), W(0x9100a3e0), W(0xb9401fe1), W(0x97ffffee),
    W(0xb9004fe0), W(0xb9404fe0), W(0x7100281f), W(0x5400014d), W(0xb9401fe0), W(0x12000800),
    W(0x93407c00), W(0xd37ef400), W(0x9100a3e1), W(0xb8606821), W(0xb9404fe0), W(0x0b000020),
    W(0x14000006), W(0xb9404fe0), W(0x97ffffd7), W(0x2a0003e1), W(0xb9402be0), W(0x0b000020),
    W(0xa8c57bfd), W(0xd65f03c0),
};

/* gcc 12 -O2: knit_a64_big_frame (above). A large frame: sub sp twice
 * (one with lsl #12), the frame record stored at [sp] after, reloaded
 * from [sp] before the frame is freed.
 *   0: sub sp, sp, #0x890   4: mov w1, w0   8: sub sp, sp, #0x13, lsl #12
 *   c: add x2, sp, #0x10  10: mov x0, x2  14: stp x29, x30, [sp]
 *  18: mov x29, sp  1c: str w1, [x2, w1, sxtw #2]  20: bl work@plt
 *  24: ldr w1, [sp, #28]  28: ldp x29, x30, [sp]  2c: add sp, sp, #0x890
 *  30: add w0, w0, w1  34: add sp, sp, #0x13, lsl #12  38: ret  3c: nop */
static const uint8_t big_frame_o2[] = {
    W(0xd12243ff), W(0x2a0003e1), W(0xd1404fff), W(0x910043e2), W(0xaa0203e0), W(0xa9007bfd),
    W(0x910003fd), W(0xb821d841), W(0x97ffffd8), W(0xb9401fe1), W(0xa9407bfd), W(0x912243ff),
    W(0x0b010000), W(0x91404fff), W(0xd65f03c0), W(0xd503201f),
};

/* gcc 12 -O2: knit_a64_vla (above). sp moves by a register amount:
 * the CFA is on x29 from the mov x29, sp on, until the pop of x29.
 *   0: stp x29, x30, [sp, #-32]!   4: mov w1, w0   8: mov x29, sp
 *   c: str x19, [sp, #16]  10: mov w19, w0  14: sbfiz x0, x0, #2, #32
 *  18: add x0, x0, #0xf  1c: and x0, x0, #0xfffffffffffffff0
 *  20: sub sp, sp, x0  24: mov x0, sp  28: bl work@plt  2c: mov w1, w0
 *  30: mov w0, w19  34: mov w19, w1  38: bl other@plt  3c: mov sp, x29
 *  40: add w0, w19, w0  44: ldr x19, [sp, #16]  48: ldp x29, x30, [sp], #32
 *  4c: ret */
static const uint8_t vla_o2[] = {
    W(0xa9be7bfd), W(0x2a0003e1), W(0x910003fd), W(0xf9000bf3), W(0x2a0003f3),
    W(0x937e7c00), W(0x91003c00), W(0x927cec00), W(0xcb2063ff), W(0x910003e0),
    W(0x97ffffb6), W(0x2a0003e1), W(0x2a1303e0), W(0x2a0103f3), W(0x97ffffaa),
    W(0x910003bf), W(0x0b000260), W(0xf9400bf3), W(0xa8c27bfd), W(0xd65f03c0),
};

/* gcc 12 -O2: knit_a64_sum (above), variadic: a leaf that saves the
 * argument registers in a 96-byte frame and keeps the return address in LR.
 *   0: sub sp, sp, #0x60   4: mov w9, w0   8: add x10, sp, #0x20
 *   c: add x0, sp, #0x60  10: mov w8, #0xffffffc8  14: stp x0, x0, [sp]
 *  18: str x10, [sp, #16]  1c: stp w8, wzr, [sp, #24]
 *  20: stp x1, x2, [sp, #40]  24: stp x3, x4, [sp, #56]
 *  28: stp x5, x6, [sp, #72]  2c: str x7, [sp, #88]  30: cmp w9, #0x0
 *  34: b.le a0  38: mov x3, x0  3c: mov x6, x0  40: mov w1, w8
 *  44: mov w2, #0x0  48: mov w0, #0x0  4c: b 6c  50: mov x4, x3
 *  54: add w2, w2, #0x1  58: add x3, x3, #0x8  5c: ldr w4, [x4]
 *  60: add w0, w0, w4  64: cmp w9, w2  68: b.eq 98  6c: add w5, w1, #0x8
 *  70: tbz w1, #31, 50  74: add x4, x6, w1, sxtw  78: mov w1, w5
 *  7c: cmp w5, #0x0  80: b.gt 50  84: ldr w4, [x4]  88: add w2, w2, #0x1
 *  8c: add w0, w0, w4  90: cmp w9, w2  94: b.ne 6c  98: add sp, sp, #0x60
 *  9c: ret  a0: mov w0, #0x0  a4: add sp, sp, #0x60  a8: ret  ac: nop */
static const uint8_t sum_o2[] = {
    W(0xd10183ff), W(0x2a0003e9), W(0x910083ea), W(0x910183e0), W(0x128006e8), W(0xa90003e0),
    W(0xf9000bea), W(0x29037fe8), W(0xa9028be1), W(0xa90393e3), W(0xa9049be5), W(0xf9002fe7),
    W(0x7100013f), W(0x5400036d), W(0xaa0003e3), W(0xaa0003e6), W(0x2a0803e1), W(0x52800002),
    W(0x52800000), W(0x14000008), W(0xaa0303e4), W(0x11000442), W(0x91002063), W(0xb9400084),
    W(0x0b040000), W(0x6b02013f), W(0x54000180), W(0x11002025), W(0x36ffff01), W(0x8b21c0c4),
    W(0x2a0503e1), W(0x710000bf), W(0x54fffe8c), W(0xb9400084), W(0x11000442), W(0x0b040000),
    W(0x6b02013f), W(0x54fffec1), W(0x910183ff), W(0xd65f03c0), W(0x52800000), W(0x910183ff),
    W(0xd65f03c0), W(0xd503201f),
};

/* gcc 12 -O2: knit_a64_tail (above): a tail call, then padding.
 *   0: add w0, w0, #0x1   4: b other@plt   8: nop   c: nop */
static const uint8_t tail_o2[] = {
    W(0x11000400),
    W(0x17ffff63),
    W(0xd503201f),
    W(0xd503201f),
};

/* gcc 12 -O2 -mbranch-protection=standard: knit_a64_shrink_wrapped
 * (above). An early return before the prologue (shrink-wrapping); bti,
 * paciasp and autiasp decode as hints.
 *   0: bti c   4: tbnz w0, #31, 38   8: paciasp
 *   c: stp x29, x30, [sp, #-32]!  10: mov w1, w0  14: mov x29, sp
 *  18: add x0, sp, #0x10  1c: str w1, [sp, #16]  20: bl work@plt
 *  24: ldr w1, [sp, #20]  28: ldp x29, x30, [sp], #32  2c: autiasp
 *  30: add w0, w0, w1  34: ret  38: mov w0, #0x0  3c: ret */
static const uint8_t shrink_pac[] = {
    W(0xd503245f), W(0x37f801a0), W(0xd503233f), W(0xa9be7bfd), W(0x2a0003e1), W(0x910003fd),
    W(0x910043e0), W(0xb90013e1), W(0x97ffff54), W(0xb94017e1), W(0xa8c27bfd), W(0xd50323bf),
    W(0x0b010000), W(0xd65f03c0), W(0x52800000), W(0xd65f03c0),
};

/* PLT0 of the aarch64 libc.so.6 (Debian 12, binutils 2.40).
 *   0: stp x16, x30, [sp, #-16]!   4: adrp x16, 19f000
 *   8: ldr x17, [x16, #4088]   c: add x16, x16, #0xff8  10: br x17  14: nop
 *  18: nop  1c: nop */
static const uint8_t plt0_libc[] = {
    W(0xa9bf7bf0), W(0x90000bd0), W(0xf947fe11), W(0x913fe210),
    W(0xd61f0220), W(0xd503201f), W(0xd503201f), W(0xd503201f),
};

/* A PLT stub of the aarch64 libc.so.6.
 *   0: adrp x16, 1a0000   4: ldr x17, [x16]   8: add x16, x16, #0x0
 *   c: br x17 */
static const uint8_t plt_stub_libc[] = {
    W(0xb0000bd0),
    W(0xf9400211),
    W(0x91000210),
    W(0xd61f0220),
};

/* Hand-written (gas): only the return address saved, pre-index, and
 * reloaded post-index.
 *   0: str x30, [sp, #-16]!   4: bl 0   8: ldr x30, [sp], #16   c: ret */
static const uint8_t hw_str_lr[] = {
    W(0xf81f0ffe),
    W(0x97ffffff),
    W(0xf84107fe),
    W(0xd65f03c0),
};

/* Hand-written (gas), the form gcc uses for frames beyond the reach of
 * an immediate: the size built in x12.
 *   0: mov x12, #0x1030   4: sub sp, sp, x12   8: stp x29, x30, [sp]
 *   c: mov x29, sp  10: bl hw_str_lr  14: ldp x29, x30, [sp]
 *  18: mov x12, #0x1030  1c: add sp, sp, x12  20: ret */
static const uint8_t hw_const_frame[] = {
    W(0xd282060c), W(0xcb2c63ff), W(0xa9007bfd), W(0x910003fd), W(0x97fffff8),
    W(0xa9407bfd), W(0xd282060c), W(0x8b2c63ff), W(0xd65f03c0),
};

/* Hand-written (gas): sp realigned and switched by register: uncertain
 * until the ret, where CFA = sp and LR hold again.
 *   0: sub sp, sp, #0x10   4: and sp, x0, #0xfffffffffffffff0   8: mov sp, x1
 *   c: add sp, sp, #0x10  10: ret */
static const uint8_t hw_unmodeled[] = {
    W(0xd10043ff), W(0x927cec1f), W(0x9100003f), W(0x910043ff), W(0xd65f03c0),
};

/* Hand-written (gas): the return address overwritten while only in LR.
 *   0: mov x30, x1   4: ret x1 */
static const uint8_t hw_lr_clobber[] = {
    W(0xaa0103fe),
    W(0xd65f0020),
};

static void test_frame_record_two_epilogues(void **state)
{
  (void)state;
  CHECK(multi_exit_o2, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 64, -56, -64, 0},
        {0x08, SP, 64, -56, -64, 0}, {0x1c, SP, 64, -56, -64, 0}, {0x3c, SP, 64, -56, -64, 0},
        {0x40, SP, 0, 0, 0, 0}, {0x44, SP, 64, -56, -64, 0}, {0x54, SP, 64, -56, -64, 0},
        {0x58, SP, 0, 0, 0, 0}, {0x5c, SP, 64, -56, -64, 0});
}

static void test_o0_jump_to_epilogue(void **state)
{
  (void)state;
  CHECK(multi_exit_o0, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 80, -72, -80, 0},
        {0x48, SP, 80, -72, -80, 0}, {0x4c, SP, 80, -72, -80, 0}, {0x60, SP, 80, -72, -80, 0},
        {0x64, SP, 0, 0, 0, 0});
}

static void test_large_frame_record_at_offset(void **state)
{
  (void)state;
  CHECK(big_frame_o2, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 0x890, 0, 0, 0},
        {0x0c, SP, 80016, 0, 0, 0}, {0x14, SP, 80016, 0, 0, 0},
        {0x18, SP, 80016, -80008, -80016, 0}, {0x28, SP, 80016, -80008, -80016, 0},
        /* Reloaded from [sp] right before the frame is freed: restored
         * from the add on, as gcc's CFI says. */
        {0x2c, SP, 80016, 0, 0, 0}, {0x30, SP, 0x13000, 0, 0, 0}, {0x38, SP, 0, 0, 0, 0});
}

static void test_vla_cfa_on_frame_pointer(void **state)
{
  (void)state;
  CHECK(vla_o2, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 32, -24, -32, 0}, {0x08, SP, 32, -24, -32, 0},
        {0x0c, FP, 32, -24, -32, 0}, {0x24, FP, 32, -24, -32, 0}, {0x3c, FP, 32, -24, -32, 0},
        {0x40, FP, 32, -24, -32, 0}, {0x48, FP, 32, -24, -32, 0}, {0x4c, SP, 0, 0, 0, 0});
}

static void test_variadic_leaf(void **state)
{
  (void)state;
  CHECK(sum_o2, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 96, 0, 0, 0}, {0x50, SP, 96, 0, 0, 0},
        {0x98, SP, 96, 0, 0, 0}, {0x9c, SP, 0, 0, 0, 0}, {0xa0, SP, 96, 0, 0, 0},
        {0xa4, SP, 96, 0, 0, 0}, {0xa8, SP, 0, 0, 0, 0});
}

static void test_tail_call(void **state)
{
  (void)state;
  CHECK(tail_o2, {0x0, SP, 0, 0, 0, 0}, {0x4, SP, 0, 0, 0, 0}, {0x8, SP, 0, 0, 0, 0});
  knit_recipe r[4];
  assert_int_equal(knit_fixture_analyze(tail_o2, sizeof tail_o2, FIXTURE_ADDR, r, 4), 1);
}

static void test_shrink_wrapped_with_pac(void **state)
{
  (void)state;
  CHECK(shrink_pac, {0x00, SP, 0, 0, 0, 0}, {0x08, SP, 0, 0, 0, 0}, {0x0c, SP, 0, 0, 0, 0},
        {0x10, SP, 32, -24, -32, 0}, {0x28, SP, 32, -24, -32, 0}, {0x2c, SP, 0, 0, 0, 0},
        {0x34, SP, 0, 0, 0, 0}, {0x38, SP, 0, 0, 0, 0}, {0x3c, SP, 0, 0, 0, 0});
}

static void test_plt(void **state)
{
  (void)state;
  /* PLT0 saves x30 (and x16) in a 16-byte frame before it jumps to the
   * resolver: CFA = sp+16, return address at CFA-8. */
  CHECK(plt0_libc, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 16, -8, 0, 0}, {0x10, SP, 16, -8, 0, 0},
        {0x14, SP, 16, -8, 0, 0});
  /* A stub never touches the stack: one recipe, the entry's. */
  knit_recipe r[4];
  assert_int_equal(knit_fixture_analyze(plt_stub_libc, sizeof plt_stub_libc, FIXTURE_ADDR, r, 4),
                   1);
  assert_int_equal(r[0].cfa_base, SP);
  assert_int_equal(r[0].cfa_offset, 0);
  assert_int_equal(r[0].ra_rule, KNIT_RA_IN_LR);
  assert_int_equal(r[0].fp_rule, KNIT_FP_SAME);
}

static void test_lr_only_and_constant_frame(void **state)
{
  (void)state;
  CHECK(hw_str_lr, {0x0, SP, 0, 0, 0, 0}, {0x4, SP, 16, -16, 0, 0}, {0x8, SP, 16, -16, 0, 0},
        {0xc, SP, 0, 0, 0, 0});
  CHECK(hw_const_frame, {0x00, SP, 0, 0, 0, 0}, {0x04, SP, 0, 0, 0, 0}, {0x08, SP, 0x1030, 0, 0, 0},
        {0x0c, SP, 0x1030, -0x1028, -0x1030, 0}, {0x18, SP, 0x1030, -0x1028, -0x1030, 0},
        {0x1c, SP, 0x1030, 0, 0, 0}, {0x20, SP, 0, 0, 0, 0});
}

/* clang 14 -O2 (--target=aarch64-linux-gnu):
 *   int knit_clang_locals(int n) { int buf[4]; return work(buf, n) + buf[n & 3]; }
 *   0: sub sp, sp, #0x30  4: stp x29, x30, [sp, #16]  8: add x29, sp, #0x10
 *   c: stp x20, x19, [sp, #32]  10: mov w19, w0  14: mov x0, sp  18: mov w1, w19
 *  1c: mov x20, sp  20: bl work  24: and w8, w19, #0x3  28: ldp x29, x30, [sp, #16]
 *  2c: ldr w8, [x20, w8, uxtw #2]  30: ldp x20, x19, [sp, #32]  34: add w0, w8, w0
 *  38: add sp, sp, #0x30  3c: ret
 * clang's CFI has the CFA on x29 (x29+32) from the frame set-up; the recipe
 * keeps it on sp and says x29 = sp + 16 while that holds, so that the audit
 * can tell the two rules give the same address. */
static const uint8_t clang_locals[] = {W(0xd100c3ff), W(0xa9017bfd), W(0x910043fd), W(0xa9024ff4),
                                       W(0x2a0003f3), W(0x910003e0), W(0x2a1303e1), W(0x910003f4),
                                       W(0x94000000), W(0x12000668), W(0xa9417bfd), W(0xb8685a88),
                                       W(0xa9424ff4), W(0x0b000100), W(0x9100c3ff), W(0xd65f03c0)};

static void test_clang_frame_pointer_delta(void **state)
{
  (void)state;
  CHECK(clang_locals, {0x0, SP, 0, 0, 0, 0}, {0x4, SP, 48, 0, 0, 0}, {0x8, SP, 48, -24, -32, 0},
        {0xc, SP, 48, -24, -32, 0}, {0x20, SP, 48, -24, -32, 0}, {0x2c, SP, 48, -24, -32, 0},
        {0x3c, SP, 0, 0, 0, 0});
  knit_recipe r[MAX_RECIPES];
  int n = knit_fixture_analyze(clang_locals, sizeof clang_locals, FIXTURE_ADDR, r, MAX_RECIPES);
  static const struct {
    uint32_t offset;
    bool known;
  } fp[] = {{0x8, false}, {0xc, true}, {0x20, true}, {0x28, true}, {0x2c, false}};
  for (size_t i = 0; i < sizeof fp / sizeof fp[0]; i++) {
    const knit_recipe *got = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + fp[i].offset);
    assert_non_null(got);
    assert_int_equal((got->flags & KNIT_RECIPE_FP_KNOWN) != 0, fp[i].known);
    if (fp[i].known)
      assert_int_equal(got->fp_sp_delta, 16);
  }
}

/* clang 14 (LLVM 14 libomp, aarch64): __kmpc_atomic_fixed4_max.
 *   0: sub sp, sp, #0x50  4: stp x29, x30, [sp, #16]  8: add x29, sp, #0x10
 *  ...  0x30: b.ge 0x14c  0x30..0x11c: the locked path, ending in a tail
 *  call (0x118: add sp, sp, #0x50; 0x11c: br x3)
 *  0x120: ldr w8, [x20]  (entered only by the b.ne at 0x148, from below)
 *  0x124: stur w8, [x29, #-4]  (also entered by the b.eq at 0x30)
 *  ... 0x148: b.ne 0x120  0x14c: ldp x20, x19, [sp, #64] ... 0x160: ret
 * The compare-and-swap retry loop after the tail call is entered by a
 * backward branch: the repeated sweep gives it the followed state (the
 * CFA on x29, which addresses locals here, and x29 = sp + 16), not the
 * canonical state, which lacked x29 after the first path's epilogue. */
static const uint8_t clang_retry_loop[] = {
    W(0xd10143ff), W(0xa9017bfd), W(0x910043fd), W(0xa9025ff8), W(0xa90357f6), W(0xa9044ff4),
    W(0xb9400048), W(0x6b03011f), W(0x5400096a), W(0x2a0303f3), W(0xaa0203f4), W(0xf240045f),
    W(0x540007a0), W(0xaa1e03f5), W(0x2a0103f6), W(0x3100143f), W(0x54000061), W(0x9400463d),
    W(0x2a0003f6), W(0x90000758), W(0x90000757), W(0xf9470318), W(0x39400f08), W(0xf94706f7),
    W(0x36100168), W(0xaa1503fe), W(0x90000743), W(0xf94066e8), W(0x528000c0), W(0x2a1f03e1),
    W(0x52800042), W(0xd50320ff), W(0xf9470863), W(0xaa1e03e4), W(0xd63f0100), W(0x90000740),
    W(0x2a1603e1), W(0xf9470800), W(0x97ffdb86), W(0x39400f08), W(0x36180128), W(0xaa1503fe),
    W(0x90000741), W(0xf9406ae8), W(0x528000c0), W(0xd50320ff), W(0xf9470821), W(0xaa1e03e2),
    W(0xd63f0100), W(0xb9400288), W(0x6b13011f), W(0x5400004a), W(0xb9000293), W(0x90000740),
    W(0x2a1603e1), W(0xf9470800), W(0x9401b772), W(0x39400b08), W(0x36080328), W(0xaa1503fe),
    W(0x90000741), W(0xf94042e3), W(0x528000c0), W(0xf9470821), W(0xd50320ff), W(0xaa1e03e2),
    W(0xa9444ff4), W(0xa94357f6), W(0xa9425ff8), W(0xa9417bfd), W(0x910143ff), W(0xd61f0060),
    W(0xb9400288), W(0xb81fc3a8), W(0xb85fc3b5), W(0x6b1302bf), W(0x540000ea), W(0x2a1503e0),
    W(0x2a1303e1), W(0xaa1403e2), W(0x94028988), W(0x6b15001f), W(0x54fffec1), W(0xa9444ff4),
    W(0xa94357f6), W(0xa9425ff8), W(0xa9417bfd), W(0x910143ff), W(0xd65f03c0),
};

static void test_block_entered_from_below(void **state)
{
  (void)state;
  CHECK(clang_retry_loop, {0x11c, SP, 0, 0, 0, 0}, {0x120, FP, 64, -56, -64, 0},
        {0x124, FP, 64, -56, -64, 0}, {0x148, FP, 64, -56, -64, 0}, {0x14c, FP, 64, -56, -64, 0},
        {0x160, SP, 0, 0, 0, 0});
  knit_recipe r[MAX_RECIPES];
  int n =
      knit_fixture_analyze(clang_retry_loop, sizeof clang_retry_loop, FIXTURE_ADDR, r, MAX_RECIPES);
  static const uint32_t known[] = {0x120, 0x124, 0x148, 0x14c};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    const knit_recipe *got = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + known[i]);
    assert_non_null(got);
    assert_true(got->flags & KNIT_RECIPE_FP_KNOWN);
    assert_int_equal(got->fp_sp_delta, 16);
  }
}

static void test_unmodeled_is_uncertain(void **state)
{
  (void)state;
  CHECK(hw_unmodeled, {0x0, SP, 0, 0, 0, 0}, {0x4, SP, 16, 0, 0, 0}, {0x8, SP, 16, 0, 0, UNC},
        {0xc, SP, 16, 0, 0, UNC}, {0x10, SP, 0, 0, 0, 0});
  /* The return address overwritten while still in LR, and a ret through
   * another register: no reset, the guess stays flagged. */
  CHECK(hw_lr_clobber, {0x0, SP, 0, 0, 0, 0}, {0x4, SP, 0, 0, 0, UNC});
}

static void test_undecodable_and_full_output(void **state)
{
  (void)state;
  knit_recipe r[MAX_RECIPES];
  /* udf #0 (and other reserved encodings): nothing decodes. */
  static const uint8_t junk[] = {W(0x00000000), W(0x00000000)};
  assert_int_equal(knit_isa_aarch64.analyze(knit_fx.cs, knit_fx.insn, junk, sizeof junk,
                                            FIXTURE_ADDR, r, MAX_RECIPES, NULL),
                   -1);
  /* A bad word in the middle is covered by a flagged guess and decoding
   * goes on: stp x29, x30, [sp, #-16]!; (udf); ldp x29, x30, [sp], #16; ret */
  static const uint8_t mid[] = {W(0xa9bf7bfd), W(0x00000000), W(0xa8c17bfd), W(0xd65f03c0)};
  int n = knit_fixture_analyze(mid, sizeof mid, FIXTURE_ADDR, r, MAX_RECIPES);
  const knit_recipe *bad = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + 4);
  assert_true(bad->flags & KNIT_RECIPE_UNCERTAIN);
  assert_int_equal(bad->cfa_offset, 16);
  assert_int_equal(knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + 12)->cfa_offset, 0);
  /* A trailing partial word is covered too. */
  n = knit_fixture_analyze(mid, sizeof mid - 2, FIXTURE_ADDR, r, MAX_RECIPES);
  assert_int_equal(r[n - 1].end, FIXTURE_ADDR + sizeof mid - 2);
  /* With room for two recipes the second stretches to the end, flagged. */
  n = knit_fixture_analyze(multi_exit_o2, sizeof multi_exit_o2, FIXTURE_ADDR, r, 2);
  assert_int_equal(n, 2);
  assert_true(r[1].flags & KNIT_RECIPE_UNCERTAIN);
}


/* ---- The audit: recipes against the compiler's CFI ---------------------- */

/* Audits every function of an aarch64 ELF file with knit audit's library;
 * skips when the file or the library (not built in cross trees) is absent.
 * Fails when recipes disagree with the CFI (CFA or return address) at more
 * than max_disagree of the compared instructions, or when the frame-pointer
 * rule disagrees more often than that. */
static void audit_file(const char *path, double max_disagree, size_t min_insns)
{
#ifdef KNIT_HAVE_AUDIT
  if (access(path, R_OK) != 0)
    skip();
  knit_audit_options opt = {.verbose = getenv("KNIT_AUDIT_VERBOSE") != NULL};
  knit_audit_result res;
  memset(&res, 0, sizeof res);
  if (knit_audit_file(path, &opt, &res, stderr) != 0)
    fail_msg("%s: %s", path, res.error);
  print_message("%s: %zu functions, %zu insns: %zu agree, %zu disagree "
                "(%.3f%%; %zu flagged uncertain), fp rule disagrees at %zu; "
                "%zu not comparable\n",
                path, res.functions, res.instructions, res.agree, res.disagree,
                100.0 - knit_audit_agreement(&res), res.category[KNIT_AUDIT_CAT_UNCERTAIN],
                res.fp_disagree, res.not_comparable);
  assert_ptr_equal(res.isa, &knit_isa_aarch64);
  assert_true(res.has_analyzer);
  assert_true(res.instructions >= min_insns);
  assert_true((double)res.disagree <= max_disagree * (double)res.instructions);
  assert_true((double)res.fp_disagree <= max_disagree * (double)res.instructions);
#else
  (void)path, (void)max_disagree, (void)min_insns;
  skip(); /* the audit library is built for the host only */
#endif
}

static void audit_subjects(const char *flavour)
{
#ifdef KNIT_AARCH64_SUBJECTS
  char path[1024];
  snprintf(path, sizeof path, "%s/subjects-%s.so", KNIT_AARCH64_SUBJECTS, flavour);
  /* Compiler-generated code: at least 99.9% agreement. */
  audit_file(path, 0.001, 200);
#else
  (void)flavour;
  skip(); /* no aarch64 cross compiler at configure time */
#endif
}

static void test_audit_subjects_O2(void **state)
{
  (void)state;
  audit_subjects("O2");
}
static void test_audit_subjects_O0(void **state)
{
  (void)state;
  audit_subjects("O0");
}
static void test_audit_subjects_O2fp(void **state)
{
  (void)state;
  audit_subjects("O2fp");
}
static void test_audit_subjects_Os(void **state)
{
  (void)state;
  audit_subjects("Os");
}
static void test_audit_subjects_O3(void **state)
{
  (void)state;
  audit_subjects("O3");
}
static void test_audit_subjects_pac(void **state)
{
  (void)state;
  audit_subjects("pac");
}

/* The aarch64 libc: at least 99.5% agreement. */
static void test_audit_libc(void **state)
{
  (void)state;
  audit_file("/usr/aarch64-linux-gnu/lib/libc.so.6", 0.005, 100000);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaf),
      cmocka_unit_test(test_frame_record_two_epilogues),
      cmocka_unit_test(test_o0_jump_to_epilogue),
      cmocka_unit_test(test_large_frame_record_at_offset),
      cmocka_unit_test(test_vla_cfa_on_frame_pointer),
      cmocka_unit_test(test_variadic_leaf),
      cmocka_unit_test(test_tail_call),
      cmocka_unit_test(test_shrink_wrapped_with_pac),
      cmocka_unit_test(test_plt),
      cmocka_unit_test(test_lr_only_and_constant_frame),
      cmocka_unit_test(test_clang_frame_pointer_delta),
      cmocka_unit_test(test_block_entered_from_below),
      cmocka_unit_test(test_unmodeled_is_uncertain),
      cmocka_unit_test(test_undecodable_and_full_output),

      cmocka_unit_test(test_audit_subjects_O2),
      cmocka_unit_test(test_audit_subjects_O0),
      cmocka_unit_test(test_audit_subjects_O2fp),
      cmocka_unit_test(test_audit_subjects_Os),
      cmocka_unit_test(test_audit_subjects_O3),
      cmocka_unit_test(test_audit_subjects_pac),
      cmocka_unit_test(test_audit_libc),
  };
  knit_fx.isa = &knit_isa_aarch64;
  return cmocka_run_group_tests(tests, knit_fixture_setup, knit_fixture_teardown);
}
