/* The ppc64le analyzer on recorded code bytes (each fixture with the code it
 * came from and the recipe expected at chosen offsets), and against the CFI
 * the compiler wrote (an audit of every instruction of a program cross-
 * compiled at build time, which must agree almost exactly, and of the
 * target's libc, which must agree closely).
 *
 * That program is test_ppc64le_audit_subjects.c, built by
 * powerpc64le-linux-gnu-gcc (-O2 and -O0): the code the fixtures were
 * recorded from and the audit's subject. The
 * audit runs as its own test ("audit" argument) on the host only, and exits
 * 77 when the cross compiler or the target libc is missing. It uses knit
 * audit's library (profiler/audit), so that the numbers here are those of
 * `knit audit`. */
#define _GNU_SOURCE
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

#define FIXTURE_ADDR 0x10000a00u
#define MAX_RECIPES  256

/* ---- Fixtures ---------------------------------------------------------- */

/* The recipe expected at one offset: the CFA base and offset, where the
 * return address is (LR, or the offset from the CFA) and where the caller's
 * r31 is (0: same, else the offset from the CFA). */
typedef struct expect {
  uint32_t offset;
  uint8_t cfa_base;
  int32_t cfa_offset;
  int32_t ra;
  int32_t fp;
  uint8_t flags;
} expect;

enum {
  SP = KNIT_CFA_SP,
  FP = KNIT_CFA_FP,
  DEREF = KNIT_CFA_SP_DEREF,
  UNC = KNIT_RECIPE_UNCERTAIN,
  LR = 1, /* ra: in the link register (no slot is at an odd offset) */
  SAME = 0,
};

static void check_fixture(const uint8_t *code, size_t len, uint64_t addr, const expect *e,
                          size_t ne)
{
  knit_recipe r[MAX_RECIPES];
  int n = knit_fixture_analyze(code, len, addr, r, MAX_RECIPES);
  for (size_t i = 0; i < ne; i++) {
    const knit_recipe *got = knit_recipe_find(r, (size_t)n, addr + e[i].offset);
    assert_non_null(got);
    bool ra_ok = e[i].ra == LR ? got->ra_rule == KNIT_RA_IN_LR
                               : got->ra_rule == KNIT_RA_AT_CFA && got->ra_offset == e[i].ra;
    bool fp_ok = e[i].fp == SAME ? got->fp_rule == KNIT_FP_SAME
                                 : got->fp_rule == KNIT_FP_AT_CFA && got->fp_offset == e[i].fp;
    if (got->cfa_base != e[i].cfa_base || got->cfa_offset != e[i].cfa_offset || !ra_ok || !fp_ok ||
        (got->flags & KNIT_RECIPE_UNCERTAIN) != e[i].flags) {
      fail_msg("offset %#x: got cfa %d%+d ra %s%+d fp %s%+d flags %d; expected "
               "cfa %d%+d ra %+d fp %+d flags %d",
               e[i].offset, got->cfa_base, got->cfa_offset,
               got->ra_rule == KNIT_RA_IN_LR ? "lr" : "cfa", got->ra_offset,
               got->fp_rule == KNIT_FP_AT_CFA ? "cfa" : "same", got->fp_offset, got->flags,
               e[i].cfa_base, e[i].cfa_offset, e[i].ra, e[i].fp, e[i].flags);
    }
  }
}

#define CHECK(code, addr, ...)                                                                     \
  do {                                                                                             \
    const expect e_[] = {__VA_ARGS__};                                                             \
    check_fixture(code, sizeof code, addr, e_, sizeof e_ / sizeof e_[0]);                          \
  } while (0)

/* knit_leaf, gcc 12 -O2, at 0xa60 (source: knit_leaf at the top of this file)
 *     0: mullw r3,r3,r4                 10: .long 0x0
 *     4: addi r3,r3,3                   14: .long 0x0
 *     8: extsw r3,r3                    18: .long 0x0
 *     c: blr                            1c: ori r2,r2,0
 */
#define LEAF_O2_ADDR 0xa60u
static const uint8_t leaf_o2[] = {
    0xd6, 0x21, 0x63, 0x7c, 0x03, 0x00, 0x63, 0x38, 0xb4, 0x07, 0x63, 0x7c, 0x20, 0x00, 0x80, 0x4e,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42, 0x60,
};

/* knit_multi_exit, gcc 12 -O2, at 0xa80 (source: knit_multi_exit at the top of this file)
 *     0: addis r2,r12,2                 50: add r3,r9,r3
 *     4: addi r2,r2,29824               54: extsw r3,r3
 *     8: mflr r0                        58: mtlr r0
 *     c: std r30,-16(r1)                5c: blr
 *    10: std r31,-8(r1)                 60: addi r1,r1,80
 *    14: mr r31,r3                      64: rldic r31,r31,2,59
 *    18: mr r4,r31                      68: mr r9,r3
 *    1c: std r0,16(r1)                  6c: ld r0,16(r1)
 *    20: stdu r1,-80(r1)                70: lwzx r3,r30,r31
 *    24: addi r30,r1,32                 74: ld r30,-16(r1)
 *    28: mr r3,r30                      78: ld r31,-8(r1)
 *    2c: bl 9d8                         7c: mtlr r0
 *    30: cmpwi r3,10                    80: add r3,r3,r9
 *    34: bgt ae0                        84: extsw r3,r3
 *    38: bl a30                         88: blr
 *    3c: lwz r9,32(r1)                  8c: .long 0x0
 *    40: addi r1,r1,80                  90: .long 0x1000000
 *    44: ld r0,16(r1)                   94: .long 0x280
 *    48: ld r30,-16(r1)                 98: nop
 *    4c: ld r31,-8(r1)                  9c: ori r2,r2,0
 */
#define MULTI_EXIT_O2_ADDR 0xa80u
static const uint8_t multi_exit_o2[] = {
    0x02, 0x00, 0x4c, 0x3c, 0x80, 0x74, 0x42, 0x38, 0xa6, 0x02, 0x08, 0x7c, 0xf0, 0xff, 0xc1, 0xfb,
    0xf8, 0xff, 0xe1, 0xfb, 0x78, 0x1b, 0x7f, 0x7c, 0x78, 0xfb, 0xe4, 0x7f, 0x10, 0x00, 0x01, 0xf8,
    0xb1, 0xff, 0x21, 0xf8, 0x20, 0x00, 0xc1, 0x3b, 0x78, 0xf3, 0xc3, 0x7f, 0x2d, 0xff, 0xff, 0x4b,
    0x0a, 0x00, 0x03, 0x2c, 0x2c, 0x00, 0x81, 0x41, 0x79, 0xff, 0xff, 0x4b, 0x20, 0x00, 0x21, 0x81,
    0x50, 0x00, 0x21, 0x38, 0x10, 0x00, 0x01, 0xe8, 0xf0, 0xff, 0xc1, 0xeb, 0xf8, 0xff, 0xe1, 0xeb,
    0x14, 0x1a, 0x69, 0x7c, 0xb4, 0x07, 0x63, 0x7c, 0xa6, 0x03, 0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e,
    0x50, 0x00, 0x21, 0x38, 0xe8, 0x16, 0xff, 0x7b, 0x78, 0x1b, 0x69, 0x7c, 0x10, 0x00, 0x01, 0xe8,
    0x2e, 0xf8, 0x7e, 0x7c, 0xf0, 0xff, 0xc1, 0xeb, 0xf8, 0xff, 0xe1, 0xeb, 0xa6, 0x03, 0x08, 0x7c,
    0x14, 0x4a, 0x63, 0x7c, 0xb4, 0x07, 0x63, 0x7c, 0x20, 0x00, 0x80, 0x4e, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x80, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x42, 0x60,
};

/* knit_vla, gcc 12 -O2, at 0xb20 (source: knit_vla at the top of this file)
 *     0: addis r2,r12,2                 30: addi r3,r1,32
 *     4: addi r2,r2,29664               34: bl a50
 *     8: mflr r0                        38: lbz r3,32(r1)
 *     c: std r31,-8(r1)                 3c: addi r1,r31,48
 *    10: addi r3,r3,15                  40: ld r0,16(r1)
 *    14: clrrdi r3,r3,4                 44: ld r31,-8(r1)
 *    18: neg r3,r3                      48: mtlr r0
 *    1c: std r0,16(r1)                  4c: blr
 *    20: stdu r1,-48(r1)                50: .long 0x0
 *    24: ld r9,0(r1)                    54: .long 0x1000000
 *    28: mr r31,r1                      58: .long 0x180
 *    2c: stdux r9,r1,r3                 5c: ori r2,r2,0
 */
#define VLA_O2_ADDR 0xb20u
static const uint8_t vla_o2[] = {
    0x02, 0x00, 0x4c, 0x3c, 0xe0, 0x73, 0x42, 0x38, 0xa6, 0x02, 0x08, 0x7c, 0xf8, 0xff, 0xe1, 0xfb,
    0x0f, 0x00, 0x63, 0x38, 0xe4, 0x06, 0x63, 0x78, 0xd0, 0x00, 0x63, 0x7c, 0x10, 0x00, 0x01, 0xf8,
    0xd1, 0xff, 0x21, 0xf8, 0x00, 0x00, 0x21, 0xe9, 0x78, 0x0b, 0x3f, 0x7c, 0x6a, 0x19, 0x21, 0x7d,
    0x20, 0x00, 0x61, 0x38, 0xfd, 0xfe, 0xff, 0x4b, 0x20, 0x00, 0x61, 0x88, 0x30, 0x00, 0x3f, 0x38,
    0x10, 0x00, 0x01, 0xe8, 0xf8, 0xff, 0xe1, 0xeb, 0xa6, 0x03, 0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x42, 0x60,
};

/* knit_big, gcc 12 -O2, at 0xb80 (source: knit_big at the top of this file)
 *     0: addis r2,r12,2                 30: ld r1,0(r1)
 *     4: addi r2,r2,29568               34: lbz r3,32(r31)
 *     8: mflr r0                        38: ld r0,16(r1)
 *     c: std r31,-8(r1)                 3c: ld r31,-8(r1)
 *    10: mr r31,r3                      40: mtlr r0
 *    14: std r0,16(r1)                  44: blr
 *    18: lis r0,-2                      48: .long 0x0
 *    1c: ori r0,r0,31024                4c: .long 0x1000000
 *    20: stdux r1,r1,r0                 50: .long 0x180
 *    24: addi r3,r1,32                  54: nop
 *    28: add r31,r1,r31                 58: nop
 *    2c: bl a50                         5c: ori r2,r2,0
 */
#define BIG_O2_ADDR 0xb80u
static const uint8_t big_o2[] = {
    0x02, 0x00, 0x4c, 0x3c, 0x80, 0x73, 0x42, 0x38, 0xa6, 0x02, 0x08, 0x7c, 0xf8, 0xff, 0xe1, 0xfb,
    0x78, 0x1b, 0x7f, 0x7c, 0x10, 0x00, 0x01, 0xf8, 0xfe, 0xff, 0x00, 0x3c, 0x30, 0x79, 0x00, 0x60,
    0x6a, 0x01, 0x21, 0x7c, 0x20, 0x00, 0x61, 0x38, 0x14, 0xfa, 0xe1, 0x7f, 0xa5, 0xfe, 0xff, 0x4b,
    0x00, 0x00, 0x21, 0xe8, 0x20, 0x00, 0x7f, 0x88, 0x10, 0x00, 0x01, 0xe8, 0xf8, 0xff, 0xe1, 0xeb,
    0xa6, 0x03, 0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x42, 0x60,
};

/* knit_tail, gcc 12 -O2, at 0xc80 (source: knit_tail at the top of this file)
 *     0: addis r2,r12,2                 10: b a30
 *     4: addi r2,r2,29312               14: .long 0x0
 *     8: addi r3,r3,1                   18: .long 0x0
 *     c: extsw r3,r3                    1c: .long 0x0
 */
#define TAIL_O2_ADDR 0xc80u
static const uint8_t tail_o2[] = {
    0x02, 0x00, 0x4c, 0x3c, 0x80, 0x72, 0x42, 0x38, 0x01, 0x00, 0x63, 0x38, 0xb4, 0x07, 0x63, 0x7c,
    0xa0, 0xfd, 0xff, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* knit_leaf, gcc 12 -O0, at 0x994 (source: knit_leaf at the top of this file)
 *     0: std r31,-8(r1)                 28: mullw r9,r10,r9
 *     4: stdu r1,-64(r1)                2c: addi r9,r9,3
 *     8: mr r31,r1                      30: extsw r9,r9
 *     c: mr r9,r3                       34: mr r3,r9
 *    10: mr r10,r4                      38: addi r1,r31,64
 *    14: stw r9,32(r31)                 3c: ld r31,-8(r1)
 *    18: mr r9,r10                      40: blr
 *    1c: stw r9,36(r31)                 44: .long 0x0
 *    20: lwz r10,32(r31)                48: .long 0x0
 *    24: lwz r9,36(r31)                 4c: .long 0x1000180
 */
#define LEAF_O0_ADDR 0x994u
static const uint8_t leaf_o0[] = {
    0xf8, 0xff, 0xe1, 0xfb, 0xc1, 0xff, 0x21, 0xf8, 0x78, 0x0b, 0x3f, 0x7c, 0x78, 0x1b, 0x69, 0x7c,
    0x78, 0x23, 0x8a, 0x7c, 0x20, 0x00, 0x3f, 0x91, 0x78, 0x53, 0x49, 0x7d, 0x24, 0x00, 0x3f, 0x91,
    0x20, 0x00, 0x5f, 0x81, 0x24, 0x00, 0x3f, 0x81, 0xd6, 0x49, 0x2a, 0x7d, 0x03, 0x00, 0x29, 0x39,
    0xb4, 0x07, 0x29, 0x7d, 0x78, 0x4b, 0x23, 0x7d, 0x40, 0x00, 0x3f, 0x38, 0xf8, 0xff, 0xe1, 0xeb,
    0x20, 0x00, 0x80, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x01,
};

/* 0000004b.plt_call.puts@@GLIBC_2.17, gcc 12 -O2, at 0x6c0 (binutils 2.40 PLT call stub)
 *     0: std r2,24(r1)                  10: .long 0x0
 *     4: ld r12,-32464(r2)              14: .long 0x0
 *     8: mtctr r12                      18: .long 0x0
 *     c: bctr                           1c: .long 0x0
 */
#define PLT_CALL_STUB_ADDR 0x6c0u
static const uint8_t plt_call_stub[] = {
    0x18, 0x00, 0x41, 0xf8, 0x30, 0x81, 0x82, 0xe9, 0xa6, 0x03, 0x89, 0x7d, 0x20, 0x04, 0x80, 0x4e,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* __glink_PLTresolve, gcc 12 -O2, at 0xe98 (binutils 2.40 lazy resolver)
 *     0: mflr r0                        1c: addi r0,r12,-44
 *     4: bcl 20,4*cr7+so,ea0            20: ld r12,0(r11)
 *     8: mflr r11                       24: srdi r0,r0,2
 *     c: mtlr r0                        28: mtctr r12
 *    10: ld r0,-16(r11)                 2c: ld r11,8(r11)
 *    14: subf r12,r11,r12               30: bctr
 *    18: add r11,r0,r11
 */
#define GLINK_RESOLVE_ADDR 0xe98u
static const uint8_t glink_resolve[] = {
    0xa6, 0x02, 0x08, 0x7c, 0x05, 0x00, 0x9f, 0x42, 0xa6, 0x02, 0x68, 0x7d, 0xa6,
    0x03, 0x08, 0x7c, 0xf0, 0xff, 0x0b, 0xe8, 0x50, 0x60, 0x8b, 0x7d, 0x14, 0x5a,
    0x60, 0x7d, 0xd4, 0xff, 0x0c, 0x38, 0x00, 0x00, 0x8b, 0xe9, 0x82, 0xf0, 0x00,
    0x78, 0xa6, 0x03, 0x89, 0x7d, 0x08, 0x00, 0x6b, 0xe9, 0x20, 0x04, 0x80, 0x4e,
};

/* Hand-written (gas): a frame of dynamic size without a frame pointer,
 * then a write to r1 that cannot be followed.
 *   dyn:  0: mflr r0        4: std r0,16(r1)   8: neg r12,r3
 *         c: stdux r1,r1,r12                   10: bl dyn   14: nop
 *        18: ld r1,0(r1)   1c: ld r0,16(r1)   20: mtlr r0   24: blr
 *   lost: 0: stdu r1,-32(r1)  4: mr r1,r3     8: addi r1,r1,32  c: blr */
static const uint8_t dyn_frame[] = {0xa6, 0x02, 0x08, 0x7c, 0x10, 0x00, 0x01, 0xf8, 0xd0, 0x00,
                                    0x83, 0x7d, 0x6a, 0x61, 0x21, 0x7c, 0xf1, 0xff, 0xff, 0x4b,
                                    0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x21, 0xe8, 0x10, 0x00,
                                    0x01, 0xe8, 0xa6, 0x03, 0x08, 0x7c, 0x20, 0x00, 0x80, 0x4e};
static const uint8_t lost_sp[] = {0xe1, 0xff, 0x21, 0xf8, 0x78, 0x1b, 0x61, 0x7c,
                                  0x20, 0x00, 0x21, 0x38, 0x20, 0x00, 0x80, 0x4e};

/* A leaf without a frame: the return address stays in LR, CFA = r1; the
 * traceback table after blr is data, covered by a flagged guess. */
static void test_frameless_leaf(void **state)
{
  (void)state;
  CHECK(leaf_o2, LEAF_O2_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0xc, SP, 0, LR, SAME, 0},
        {0x10, SP, 0, LR, SAME, UNC});
  knit_recipe r[8];
  int n = knit_fixture_analyze(leaf_o2, 16, LEAF_O2_ADDR, r, 8);
  assert_int_equal(n, 1);
}

/* Global entry, mflr, saves reported where gcc's CFI reports them (r31's
 * before mr r31,r3 overwrites it; LR's with the stdu), two epilogues, the
 * second one entered by the bgt. */
static void test_two_epilogues(void **state)
{
  (void)state;
  CHECK(multi_exit_o2, MULTI_EXIT_O2_ADDR, {0x00, SP, 0, LR, SAME, 0}, {0x08, SP, 0, LR, SAME, 0},
        {0x10, SP, 0, LR, SAME, 0}, {0x14, SP, 0, LR, -8, 0}, {0x1c, SP, 0, LR, -8, 0},
        {0x20, SP, 0, LR, -8, 0}, {0x24, SP, 80, 16, -8, 0}, {0x38, SP, 80, 16, -8, 0},
        {0x40, SP, 80, 16, -8, 0}, {0x44, SP, 0, 16, -8, 0}, {0x4c, SP, 0, 16, -8, 0},
        {0x50, SP, 0, 16, SAME, 0}, {0x58, SP, 0, 16, SAME, 0}, {0x5c, SP, 0, LR, SAME, 0},
        {0x60, SP, 80, 16, -8, 0}, {0x64, SP, 0, 16, -8, 0}, {0x7c, SP, 0, 16, SAME, 0},
        {0x80, SP, 0, LR, SAME, 0}, {0x88, SP, 0, LR, SAME, 0}, {0x8c, SP, 80, 16, -8, UNC});
}

/* A VLA: mr r31,r1 moves the CFA to r31 (as gcc's CFI does), stdux
 * allocates a dynamic amount, addi r1,r31,48 gives it back to r1. */
static void test_vla_frame_pointer(void **state)
{
  (void)state;
  CHECK(vla_o2, VLA_O2_ADDR, {0x0c, SP, 0, LR, SAME, 0}, {0x20, SP, 0, LR, SAME, 0},
        {0x24, SP, 48, 16, -8, 0}, {0x28, SP, 48, 16, -8, 0}, {0x2c, FP, 48, 16, -8, 0},
        {0x34, FP, 48, 16, -8, 0}, {0x3c, FP, 48, 16, -8, 0}, {0x40, SP, 0, 16, -8, 0},
        {0x48, SP, 0, 16, SAME, 0}, {0x4c, SP, 0, LR, SAME, 0});
}

/* A frame beyond 32 KiB: lis/ori r0 and stdux r1,r1,r0, popped with
 * ld r1,0(r1). r31 is a general register here. */
static void test_large_frame(void **state)
{
  (void)state;
  CHECK(big_o2, BIG_O2_ADDR, {0x0c, SP, 0, LR, SAME, 0}, {0x10, SP, 0, LR, -8, 0},
        {0x14, SP, 0, LR, -8, 0}, {0x18, SP, 0, 16, -8, 0}, {0x20, SP, 0, 16, -8, 0},
        {0x24, SP, 100048, 16, -8, 0}, {0x2c, SP, 100048, 16, -8, 0}, {0x30, SP, 100048, 16, -8, 0},
        {0x34, SP, 0, 16, -8, 0}, {0x40, SP, 0, 16, SAME, 0}, {0x44, SP, 0, LR, SAME, 0});
}

/* A tail call (b to another function) and -O0 code with r31 as frame
 * pointer and no LR save (a leaf with a frame). */
static void test_tail_call_and_o0_leaf(void **state)
{
  (void)state;
  CHECK(tail_o2, TAIL_O2_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x10, SP, 0, LR, SAME, 0});
  CHECK(leaf_o0, LEAF_O0_ADDR, {0x00, SP, 0, LR, SAME, 0}, {0x04, SP, 0, LR, SAME, 0},
        {0x08, SP, 64, LR, -8, 0}, {0x0c, FP, 64, LR, -8, 0}, {0x34, FP, 64, LR, -8, 0},
        {0x38, FP, 64, LR, -8, 0}, {0x3c, SP, 0, LR, -8, 0}, {0x40, SP, 0, LR, SAME, 0});
}

/* The linker's code: a PLT call stub (std r2,24(r1) is the caller's TOC
 * slot, not a frame) and the lazy resolver, whose bcl overwrites LR while
 * the return address is only in r0: flagged until mtlr r0. */
static void test_plt_stub_and_glink(void **state)
{
  (void)state;
  CHECK(plt_call_stub, PLT_CALL_STUB_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x4, SP, 0, LR, SAME, 0},
        {0xc, SP, 0, LR, SAME, 0});
  CHECK(glink_resolve, GLINK_RESOLVE_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x4, SP, 0, LR, SAME, 0},
        {0x8, SP, 0, LR, SAME, UNC}, {0xc, SP, 0, LR, SAME, UNC}, {0x10, SP, 0, LR, SAME, 0},
        {0x30, SP, 0, LR, SAME, 0});
}

/* Without a frame pointer a dynamic stdux leaves only the back chain: the
 * CFA is the word at r1 (plus the depth at which it was taken, 0 here).
 * A write to r1 that cannot be followed makes the recipe uncertain until
 * blr. */
static void test_back_chain_and_lost_sp(void **state)
{
  (void)state;
  CHECK(dyn_frame, FIXTURE_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x8, SP, 0, LR, SAME, 0},
        {0xc, SP, 0, LR, SAME, 0}, {0x10, DEREF, 0, 16, SAME, 0}, {0x18, DEREF, 0, 16, SAME, 0},
        {0x1c, SP, 0, 16, SAME, 0}, {0x20, SP, 0, 16, SAME, 0}, {0x24, SP, 0, LR, SAME, 0});
  CHECK(lost_sp, FIXTURE_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x4, SP, 32, LR, SAME, 0},
        {0x8, SP, 32, LR, SAME, UNC}, {0xc, SP, 0, LR, SAME, 0});
}

/* knit_ppc_noreturn, gcc 12 -O1 -fPIC, linked at 0x320:
 *   int knit_ppc_noreturn(int x, int y) {
 *     if (x > 10) { int r = g(x); if (r < 0) knit_fatal(r); return r + y; }
 *     if (y == 7) knit_fatal(y);
 *     return x * 3; }      (knit_fatal is noreturn, g and knit_fatal external)
 *     0: addis r2,r12,2   4: addi r2,r2,31712   8: std r31,-8(r1)
 *     c: stdu r1,-48(r1) 10: mr r31,r4  14: cmpwi r3,10  18: bgt 3c
 *    1c..38: x * 3, beq 6c (y == 7), epilogue, blr
 *    3c: mflr r0  40: std r0,64(r1)  44: bl g  48: ld r2,24(r1)  ...
 *    60: b 2c   64: bl knit_fatal  68: ld r2,24(r1)
 *    6c: mflr r0  70: std r0,64(r1)  74: li r3,7  78: bl knit_fatal  7c: ld r2,24(r1)
 * The linker's TOC restore after the noreturn call at 64 is the call's
 * (dead) fall-through: the block at 6c is entered only by the beq, with the
 * return address still in LR. */
#define NORETURN_O1_ADDR 0x320u
#define W(x)             (uint8_t)(x), (uint8_t)((x) >> 8), (uint8_t)((x) >> 16), (uint8_t)((x) >> 24)
static const uint8_t noreturn_o1[] = {
    W(0x3c4c0002), W(0x38427be0), W(0xfbe1fff8), W(0xf821ffd1), W(0x7c9f2378), W(0x2c03000a),
    W(0x41810024), W(0x5469083c), W(0x7d291a14), W(0x2c040007), W(0x41820044), W(0x7d2307b4),
    W(0x38210030), W(0xebe1fff8), W(0x4e800020), W(0x7c0802a6), W(0xf8010040), W(0x4bffff7d),
    W(0xe8410018), W(0x7d23fa14), W(0x2c030000), W(0x41800010), W(0xe8010040), W(0x7c0803a6),
    W(0x4bffffcc), W(0x4bffff7d), W(0xe8410018), W(0x7c0802a6), W(0xf8010040), W(0x38600007),
    W(0x4bffff69), W(0xe8410018)};

static void test_toc_restore_after_noreturn_call(void **state)
{
  (void)state;
  CHECK(noreturn_o1, NORETURN_O1_ADDR, {0x0, SP, 0, LR, SAME, 0}, {0x10, SP, 48, LR, -8, 0},
        {0x3c, SP, 48, LR, -8, 0}, {0x44, SP, 48, 16, -8, 0}, {0x68, SP, 48, 16, -8, 0},
        {0x6c, SP, 48, LR, -8, 0}, {0x70, SP, 48, LR, -8, 0}, {0x78, SP, 48, 16, -8, 0});
}

static void test_undecodable_and_full_output(void **state)
{
  (void)state;
  knit_recipe r[MAX_RECIPES];
  static const uint8_t junk[] = {0, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(knit_isa_ppc64le.analyze(knit_fx.cs, knit_fx.insn, junk, sizeof junk,
                                            FIXTURE_ADDR, r, MAX_RECIPES, NULL),
                   -1);
  /* With room for two recipes the second one stretches to the end and is
   * flagged: the function stays covered. */
  int n = knit_fixture_analyze(multi_exit_o2, sizeof multi_exit_o2, MULTI_EXIT_O2_ADDR, r, 2);
  assert_int_equal(n, 2);
  assert_true(r[1].flags & KNIT_RECIPE_UNCERTAIN);
}

/* Recipes applied: at the call in multi_exit the caller's frame is found
 * through the LR save slot; in the leaf through LR. */
static bool read_words(void *ctx, uint64_t addr, uint64_t *out)
{
  const uint64_t *mem = ctx; /* words at 0x1000.. */
  if (addr < 0x1000 || addr >= 0x1000 + 64 * 8 || addr % 8)
    return false;
  *out = mem[(addr - 0x1000) / 8];
  return true;
}

static void test_apply(void **state)
{
  (void)state;
  uint64_t mem[64] = {0};
  knit_recipe r[MAX_RECIPES];
  int n =
      knit_fixture_analyze(multi_exit_o2, sizeof multi_exit_o2, MULTI_EXIT_O2_ADDR, r, MAX_RECIPES);
  const knit_recipe *at_call = knit_recipe_find(r, (size_t)n, MULTI_EXIT_O2_ADDR + 0x2c);
  /* r1 = 0x1000, frame of 80 bytes: CFA 0x1050, LR slot at 0x1060. */
  mem[0x60 / 8] = 0x4242;
  mem[0x48 / 8] = 0x3131; /* r31 at CFA-8 */
  knit_regs callee = {.pc = MULTI_EXIT_O2_ADDR + 0x2c, .sp = 0x1000, .fp = 7, .lr = 99};
  knit_regs caller;
  uint64_t cfa;
  assert_int_equal(knit_recipe_apply(at_call, &callee, read_words, mem, &caller, &cfa),
                   KNIT_STEP_OK);
  assert_int_equal(cfa, 0x1050);
  assert_int_equal(caller.pc, 0x4242);
  assert_int_equal(caller.fp, 0x3131);
  n = knit_fixture_analyze(leaf_o2, sizeof leaf_o2, LEAF_O2_ADDR, r, MAX_RECIPES);
  callee.lr = 0x5555;
  assert_int_equal(knit_recipe_apply(&r[0], &callee, read_words, mem, &caller, &cfa), KNIT_STEP_OK);
  assert_int_equal(caller.pc, 0x5555);
  assert_int_equal(caller.sp, 0x1000);
}

/* ---- The audit: recipes against the compiler's CFI ---------------------- */

#ifdef KNIT_PPC64LE_AUDIT
#include "profiler/audit/audit.h"

/* Audits every function of a ppc64le ELF file with knit audit's library
 * (the same comparison, equivalences and skips as `knit audit`) and holds
 * its agreement to min_percent. Returns false when the file is absent. */
static bool audit_file(const char *path, double min_percent, size_t min_insns)
{
  if (!path || access(path, R_OK) != 0)
    return false;
  knit_audit_options opt = {.verbose = getenv("KNIT_AUDIT_VERBOSE") != NULL};
  knit_audit_result r;
  if (knit_audit_file(path, &opt, &r, stderr) != 0)
    fail_msg("%s: %s", path, r.error);
  print_message("%s: %zu functions, %zu insns: %zu agree (%.3f%%), %zu disagree "
                "(%zu flagged uncertain), %zu not comparable; agreeing: %zu "
                "return address copied by mflr, %zu LR and %zu r31 restored "
                "early\n",
                path, r.functions, r.instructions, r.agree, knit_audit_agreement(&r), r.disagree,
                r.category[KNIT_AUDIT_CAT_UNCERTAIN], r.not_comparable, r.ra_copied, r.ra_restored,
                r.fp_stale);
  assert_ptr_equal(r.isa, &knit_isa_ppc64le);
  assert_true(r.has_analyzer);
  assert_true(r.has_cfi);
  assert_true(r.instructions >= min_insns);
  if (knit_audit_agreement(&r) < min_percent)
    fail_msg("%s: %.3f%% agreement, below %.1f%%", path, knit_audit_agreement(&r), min_percent);
  return true;
}

static bool have_subjects(void)
{
#if defined(KNIT_PPC64LE_SUBJECT_O2) && defined(KNIT_PPC64LE_SUBJECT_O0)
  return access(KNIT_PPC64LE_SUBJECT_O2, R_OK) == 0 && access(KNIT_PPC64LE_SUBJECT_O0, R_OK) == 0;
#else
  return false;
#endif
}

/* Compiler-generated code: the subject program at -O2 and -O0, at least
 * 99.9% agreement. */
static void test_audit_subjects(void **state)
{
  (void)state;
  if (!have_subjects())
    skip();
#if defined(KNIT_PPC64LE_SUBJECT_O2) && defined(KNIT_PPC64LE_SUBJECT_O0)
  assert_true(audit_file(KNIT_PPC64LE_SUBJECT_O2, 99.9, 300));
  assert_true(audit_file(KNIT_PPC64LE_SUBJECT_O0, 99.9, 300));
#endif
}

#ifndef KNIT_PPC64LE_LIBC
#define KNIT_PPC64LE_LIBC "/usr/powerpc64le-linux-gnu/lib/libc.so.6"
#endif

/* The target's libc, hand-written assembly included: at least 99.5%. */
static void test_audit_libc(void **state)
{
  (void)state;
  if (!audit_file(KNIT_PPC64LE_LIBC, 99.5, 100000))
    skip();
}

static int run_audit(void)
{
  if (!have_subjects() || access(KNIT_PPC64LE_LIBC, R_OK) != 0) {
    fprintf(stderr, "ppc64le audit: no cross-compiled subjects or target libc\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_audit_subjects),
      cmocka_unit_test(test_audit_libc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif /* KNIT_PPC64LE_AUDIT */

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "audit") == 0) {
#ifdef KNIT_PPC64LE_AUDIT
    return run_audit();
#else
    return 77; /* built without libdw, or for the target */
#endif
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frameless_leaf),
      cmocka_unit_test(test_two_epilogues),
      cmocka_unit_test(test_vla_frame_pointer),
      cmocka_unit_test(test_large_frame),
      cmocka_unit_test(test_tail_call_and_o0_leaf),
      cmocka_unit_test(test_plt_stub_and_glink),
      cmocka_unit_test(test_back_chain_and_lost_sp),
      cmocka_unit_test(test_toc_restore_after_noreturn_call),
      cmocka_unit_test(test_undecodable_and_full_output),
      cmocka_unit_test(test_apply),
  };
  knit_fx.isa = &knit_isa_ppc64le;
  return cmocka_run_group_tests(tests, knit_fixture_setup, knit_fixture_teardown);
}
