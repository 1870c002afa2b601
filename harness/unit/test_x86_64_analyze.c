/* The x86-64 analyzer on recorded code bytes (each fixture with the source
 * it came from and the recipe expected at chosen offsets), and against the
 * CFI the compiler wrote: at every instruction of chosen functions of this
 * test (which must agree exactly) and of the whole test executable and libc
 * (whose agreement must stay high), through profiler/audit, the module
 * behind knit audit. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/audit/audit.h"
#include "profiler/unwind/bounds.h"
#include "analyze_fixture.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"

#define FIXTURE_ADDR 0x401000u
#define MAX_RECIPES  256

/* The recipe expected at one offset. The caller's rbp: with a CFA loaded
 * from a realigned frame (FP_DEREF), at rbp + fp_offset (FP_AT_FP);
 * otherwise at CFA + fp_offset (FP_AT_CFA), or unchanged (FP_SAME) when
 * fp_offset is 0. */
typedef struct expect {
  uint32_t offset;
  uint8_t cfa_base;
  int32_t cfa_offset;
  int32_t fp_offset;
  uint8_t flags;
} expect;

enum {
  SP = KNIT_CFA_SP,
  FP = KNIT_CFA_FP,
  FP_DEREF = KNIT_CFA_FP_DEREF,
  UNC = KNIT_RECIPE_UNCERTAIN,
};

static void check_fixture(const uint8_t *code, size_t len, const expect *e, size_t ne)
{
  knit_recipe r[MAX_RECIPES];
  int n = knit_fixture_analyze(code, len, FIXTURE_ADDR, r, MAX_RECIPES);
  for (size_t i = 0; i < ne; i++) {
    const knit_recipe *got = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + e[i].offset);
    assert_non_null(got);
    uint8_t fp_rule = e[i].cfa_base == FP_DEREF ? KNIT_FP_AT_FP
                      : e[i].fp_offset          ? KNIT_FP_AT_CFA
                                                : KNIT_FP_SAME;
    if (got->cfa_base != e[i].cfa_base || got->cfa_offset != e[i].cfa_offset ||
        got->ra_rule != KNIT_RA_AT_CFA || got->ra_offset != -8 || got->fp_rule != fp_rule ||
        (fp_rule != KNIT_FP_SAME && got->fp_offset != e[i].fp_offset) || got->flags != e[i].flags) {
      fail_msg("offset %#x: got base %d cfa %+d fp rule %d %+d flags %d; "
               "expected base %d cfa %+d fp rule %d %+d flags %d",
               e[i].offset, got->cfa_base, got->cfa_offset, got->fp_rule, got->fp_offset,
               got->flags, e[i].cfa_base, e[i].cfa_offset, fp_rule, e[i].fp_offset, e[i].flags);
    }
  }
}

#define CHECK(code, ...)                                                                           \
  do {                                                                                             \
    const expect e_[] = {__VA_ARGS__};                                                             \
    check_fixture(code, sizeof code, e_, sizeof e_ / sizeof e_[0]);                                \
  } while (0)

/* gcc 12 -O2: int leaf(int a, int b) { return a * b + 3; }
 *   0: imul edi,esi   3: lea eax,[rdi+0x3]   6: ret */
static const uint8_t leaf_o2[] = {0x0f, 0xaf, 0xfe, 0x8d, 0x47, 0x03, 0xc3};

static void test_frameless_leaf(void **state)
{
  (void)state;
  CHECK(leaf_o2, {0, SP, 8, 0, 0}, {3, SP, 8, 0, 0}, {6, SP, 8, 0, 0});
  knit_recipe r[4];
  assert_int_equal(knit_fixture_analyze(leaf_o2, sizeof leaf_o2, FIXTURE_ADDR, r, 4), 1);
}

/* gcc 12 -O2:
 *   int multi_exit(int n) {
 *     int buf[8];
 *     int a = work(buf, n);
 *     if (a > 10) return a + buf[n & 7];
 *     return other(a) + buf[0];
 *   }
 *   0: push rbx          1: mov ebx,edi      3: mov esi,ebx
 *   5: sub rsp,0x20      9: mov rdi,rsp      c: call work
 *  11: cmp eax,0xa      14: jle 28          16: and ebx,7
 *  19: add eax,[rsp+rbx*4]                  1c: add rsp,0x20
 *  20: pop rbx          21: ret             22: nop (padding, no branch)
 *  28: mov edi,eax      2a: call other      2f: add eax,[rsp]
 *  32: add rsp,0x20     36: pop rbx         37: ret
 * Two epilogues; the padding after the first ret resumes with the
 * canonical state, the block at 28 with the state of the jle. */
static const uint8_t multi_exit_o2[] = {
    0x53, 0x89, 0xfb, 0x89, 0xde, 0x48, 0x83, 0xec, 0x20, 0x48, 0x89, 0xe7, 0xe8, 0x00,
    0x00, 0x00, 0x00, 0x83, 0xf8, 0x0a, 0x7e, 0x12, 0x83, 0xe3, 0x07, 0x03, 0x04, 0x9c,
    0x48, 0x83, 0xc4, 0x20, 0x5b, 0xc3, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x89, 0xc7,
    0xe8, 0x00, 0x00, 0x00, 0x00, 0x03, 0x04, 0x24, 0x48, 0x83, 0xc4, 0x20, 0x5b, 0xc3};

static void test_two_epilogues(void **state)
{
  (void)state;
  CHECK(multi_exit_o2, {0x00, SP, 8, 0, 0}, {0x01, SP, 16, 0, 0}, {0x05, SP, 16, 0, 0},
        {0x09, SP, 48, 0, 0}, {0x1c, SP, 48, 0, 0}, {0x20, SP, 16, 0, 0}, {0x21, SP, 8, 0, 0},
        {0x22, SP, 48, 0, 0}, {0x28, SP, 48, 0, 0}, {0x2f, SP, 48, 0, 0}, {0x32, SP, 48, 0, 0},
        {0x36, SP, 16, 0, 0}, {0x37, SP, 8, 0, 0});
}

/* gcc 12 -O2 (rbp pushed as a general register, a forward branch to a
 * block after the ret, a backward jmp from it):
 *   int two_exits(int n) {
 *     int buf[16]; int got = fill(buf, n);
 *     if (got < 0) return -1;
 *     int s = 0; for (int i = 0; i < got; i++) s += buf[i] * n;
 *     return s;
 *   }
 *   0: push rbp   1: mov esi,edi   3: mov ebp,edi   5: push rbx
 *   6: sub rsp,0x48  ...  17: js 47  19: je 40  ... 3e: jne 30
 *  40: add rsp,0x48  44: pop rbx  45: pop rbp  46: ret
 *  47: mov eax,-1    4c: jmp 40 */
static const uint8_t two_exits_o2[] = {
    0x55, 0x89, 0xfe, 0x89, 0xfd, 0x53, 0x48, 0x83, 0xec, 0x48, 0x48, 0x89, 0xe3, 0x48, 0x89, 0xdf,
    0xe8, 0x00, 0x00, 0x00, 0x00, 0x85, 0xc0, 0x78, 0x2e, 0x74, 0x25, 0x48, 0x98, 0x48, 0x89, 0xda,
    0x48, 0x8d, 0x34, 0x83, 0x31, 0xc0, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x8b, 0x0a, 0x48, 0x83, 0xc2, 0x04, 0x0f, 0xaf, 0xcd, 0x01, 0xc8, 0x48, 0x39, 0xf2, 0x75, 0xf0,
    0x48, 0x83, 0xc4, 0x48, 0x5b, 0x5d, 0xc3, 0xb8, 0xff, 0xff, 0xff, 0xff, 0xeb, 0xf2};

static void test_rbp_as_register_and_forward_branch(void **state)
{
  (void)state;
  CHECK(two_exits_o2, {0x00, SP, 8, 0, 0}, {0x01, SP, 16, -16, 0}, {0x05, SP, 16, -16, 0},
        {0x06, SP, 24, -16, 0}, {0x0a, SP, 96, -16, 0}, {0x30, SP, 96, -16, 0},
        {0x44, SP, 24, -16, 0}, {0x45, SP, 16, -16, 0}, {0x46, SP, 8, 0, 0}, {0x47, SP, 96, -16, 0},
        {0x4c, SP, 96, -16, 0});
}

/* gcc 12 -O2 -fno-omit-frame-pointer:
 *   void aligned_buf(void) { _Alignas(32) char buf[64]; use(buf); }
 *   0: push rbp  1: mov rbp,rsp  4: and rsp,-32  8: sub rsp,0x40
 *   c: mov rdi,rsp  f: call use  14: leave  15: ret
 * After the realignment only rbp gives the CFA. */
static const uint8_t aligned_fp_o2[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xe4, 0xe0,
                                        0x48, 0x83, 0xec, 0x40, 0x48, 0x89, 0xe7, 0xe8,
                                        0x00, 0x00, 0x00, 0x00, 0xc9, 0xc3};

static void test_realignment_with_frame_pointer(void **state)
{
  (void)state;
  CHECK(aligned_fp_o2, {0x00, SP, 8, 0, 0}, {0x01, SP, 16, -16, 0}, {0x04, FP, 16, -16, 0},
        {0x08, FP, 16, -16, 0}, {0x0f, FP, 16, -16, 0}, {0x14, FP, 16, -16, 0},
        {0x15, SP, 8, 0, 0});
}

/* gcc 12 -O0:
 *   int with_leave(int x) { int v = x; return use2(&v) + 1; }
 *   0: push rbp  1: mov rbp,rsp  4: sub rsp,0x20  ... 18: call use2
 *  1d: add eax,1  20: leave  21: ret */
static const uint8_t with_leave_o0[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20, 0x89,
                                        0x7d, 0xec, 0x8b, 0x45, 0xec, 0x89, 0x45, 0xfc, 0x48,
                                        0x8d, 0x45, 0xfc, 0x48, 0x89, 0xc7, 0xe8, 0x00, 0x00,
                                        0x00, 0x00, 0x83, 0xc0, 0x01, 0xc9, 0xc3};

static void test_leave(void **state)
{
  (void)state;
  CHECK(with_leave_o0, {0x00, SP, 8, 0, 0}, {0x01, SP, 16, -16, 0}, {0x04, FP, 16, -16, 0},
        {0x18, FP, 16, -16, 0}, {0x20, FP, 16, -16, 0}, {0x21, SP, 8, 0, 0});
}

/* .plt of a gcc 12 / binutils 2.40 PIE: PLT0 and one stub.
 *   PLT0:  0: push [rip+0x2fca]   6: jmp [rip+0x2fcc]   c: nop
 *   stub: 10: jmp [rip+0x2fca]   16: push 0   1b: jmp PLT0 */
static const uint8_t plt0_stub[] = {0xff, 0x35, 0xca, 0x2f, 0x00, 0x00, 0xff, 0x25,
                                    0xcc, 0x2f, 0x00, 0x00, 0x0f, 0x1f, 0x40, 0x00};
static const uint8_t plt_stub[] = {0xff, 0x25, 0xca, 0x2f, 0x00, 0x00, 0x68, 0x00,
                                   0x00, 0x00, 0x00, 0xe9, 0xe0, 0xff, 0xff, 0xff};

static void test_plt(void **state)
{
  (void)state;
  /* PLT0 is entered by a jmp from a stub that pushed the relocation index
   * over the return address: CFA = rsp+16, then +24 after its push. */
  CHECK(plt0_stub, {0x0, SP, 16, 0, 0}, {0x6, SP, 24, 0, 0});
  /* A stub: the jmp through the GOT ends the first path; the lazy path
   * resumes with the canonical state (the entry) and pushes the index. */
  CHECK(plt_stub, {0x0, SP, 8, 0, 0}, {0x6, SP, 8, 0, 0}, {0xb, SP, 16, 0, 0});
}

/* Hand-written (gas, Intel syntax):
 *   0: enter 0x10,0  4: pushfq  5: popfq  6: leave  7: jmp far_away  9: nop
 * enter is a push rbp / mov rbp,rsp / sub; the jmp leaves the function (a
 * tail call); the nop after it resumes with the canonical state. */
static const uint8_t enter_tail_call[] = {0xc8, 0x10, 0x00, 0x00, 0x9c, 0x9d, 0xc9,
                                          0xe9, 0x51, 0x00, 0x00, 0x00, 0x90};

static void test_enter_pushf_tail_call(void **state)
{
  (void)state;
  CHECK(enter_tail_call, {0x0, SP, 8, 0, 0}, {0x4, FP, 16, -16, 0}, {0x5, FP, 16, -16, 0},
        {0x6, FP, 16, -16, 0}, {0x7, SP, 8, 0, 0}, {0xc, FP, 16, -16, 0});
}

/* Hand-written (gas, Intel syntax):
 *   0: push rbx  1: mov rbx,rsp  4: sub rsp,rdi  7: mov rsp,rbx  a: pop rbx
 *   b: ret
 * rsp moves by amounts the model does not follow and no frame pointer to
 * fall back on: uncertain until the ret, where CFA = rsp+8 holds again. */
static const uint8_t alloca_no_frame[] = {0x53, 0x48, 0x89, 0xe3, 0x48, 0x29,
                                          0xfc, 0x48, 0x89, 0xdc, 0x5b, 0xc3};

/* Hand-written: 0: push rbx  1: and rsp,-16  5: pop rbx  6: ret
 * A realignment without a frame pointer. */
static const uint8_t realign_no_frame[] = {0x53, 0x48, 0x83, 0xe4, 0xf0, 0x5b, 0xc3};

static void test_unmodeled_rsp_is_uncertain(void **state)
{
  (void)state;
  CHECK(alloca_no_frame, {0x0, SP, 8, 0, 0}, {0x4, SP, 16, 0, 0}, {0x7, SP, 16, 0, UNC},
        {0xa, SP, 16, 0, UNC}, {0xb, SP, 8, 0, 0});
  CHECK(realign_no_frame, {0x0, SP, 8, 0, 0}, {0x1, SP, 16, 0, 0}, {0x5, SP, 16, 0, UNC},
        {0x6, SP, 8, 0, 0});
}

/* Hand-written, the way libffi's ffi_call_unix64 calls a function on a
 * stack of arguments its caller built (a frame moved into that memory):
 *   0: mov r11,[rsp]       4: lea rax,[rdi+rsi]   8: mov [rax],rbp
 *   b: mov [rax+8],r11     f: mov rbp,rax        12: mov rsp,rdi
 *  15: call rdx           17: lea rsp,[rbp+8]    1b: mov rbp,[rbp]
 *  1f: ret
 * From the mov into rbp on, the return address's copy is at rbp+8 and the
 * caller's rbp at rbp+0: CFA = rbp+16, whatever rsp does. */
static const uint8_t moved_frame[] = {
    0x4c, 0x8b, 0x1c, 0x24, 0x48, 0x8d, 0x04, 0x37, 0x48, 0x89, 0x28, 0x4c, 0x89, 0x58, 0x08, 0x48,
    0x89, 0xc5, 0x48, 0x89, 0xfc, 0xff, 0xd2, 0x48, 0x8d, 0x65, 0x08, 0x48, 0x8b, 0x6d, 0x00, 0xc3};

/* The same, but the base register moves between the two stores:
 *   0: mov r11,[rsp]   4: lea rax,[rdi+rsi]   8: mov [rax],rbp
 *   b: add rax,8       f: mov [rax],r11      12: mov rbp,rax
 *  15: mov rsp,rdi    18: call rdx           1a: ret
 * The caller's rbp is no longer beside the copy: nothing is moved, and the
 * switch of rsp is a guess as before. */
static const uint8_t moved_base_changed[] = {0x4c, 0x8b, 0x1c, 0x24, 0x48, 0x8d, 0x04, 0x37, 0x48,
                                             0x89, 0x28, 0x48, 0x83, 0xc0, 0x08, 0x4c, 0x89, 0x18,
                                             0x48, 0x89, 0xc5, 0x48, 0x89, 0xfc, 0xff, 0xd2, 0xc3};

static void test_frame_moved_to_callers_memory(void **state)
{
  (void)state;
  CHECK(moved_frame, {0x00, SP, 8, 0, 0}, {0x0f, SP, 8, 0, 0}, {0x12, FP, 16, -16, 0},
        {0x15, FP, 16, -16, 0}, {0x17, FP, 16, -16, 0}, {0x1b, FP, 16, -16, 0},
        {0x1f, SP, 8, 0, 0});
  CHECK(moved_base_changed, {0x12, SP, 8, 0, 0}, {0x15, SP, 8, 0, 0}, {0x18, SP, 8, 0, UNC},
        {0x1a, SP, 8, 0, 0});
}

/* gcc 12 -O2 (test_x86_64_audit_subjects.c's knit_audit_drap,
 * a VLA and a 32-byte aligned local, compiled apart):
 *   0: lea r10,[rsp+8]   5: and rsp,-32        e: push [r10-8]
 *  14: push rbp         21: mov rbp,rsp       24: push r13   26: push r12
 *  28: push r10         2a: push rbx          34: sub rsp,rax
 *  4a: call fill        5b: call fill         67: lea rsp,[rbp-0x20]
 *  6b: pop rbx          6c: pop r10           6e: pop r12    70: pop r13
 *  72: pop rbp          73: lea rsp,[r10-8]   77: ret
 * From the save of r10 on, the CFA is the word at rbp-24 and the caller's
 * rbp the word at rbp+0, through the calls and the pops, until rbp is
 * restored. Before the save and after the restore the CFA is only in r10:
 * flagged guesses. */
static const uint8_t drap_o2[] = {
    0x4c, 0x8d, 0x54, 0x24, 0x08, 0x48, 0x83, 0xe4, 0xe0, 0x8d, 0x47, 0x08, 0x89, 0xfe, 0x41,
    0xff, 0x72, 0xf8, 0x48, 0x98, 0x55, 0x48, 0x8d, 0x04, 0x85, 0x0f, 0x00, 0x00, 0x00, 0x48,
    0x83, 0xe0, 0xf0, 0x48, 0x89, 0xe5, 0x41, 0x55, 0x41, 0x54, 0x41, 0x52, 0x53, 0x89, 0xfb,
    0x83, 0xe3, 0x07, 0x48, 0x83, 0xec, 0x30, 0x48, 0x29, 0xc4, 0x4c, 0x8d, 0x64, 0x24, 0x03,
    0x4d, 0x89, 0xe5, 0x49, 0x83, 0xe4, 0xfc, 0x4c, 0x89, 0xe7, 0x49, 0xc1, 0xed, 0x02, 0xe8,
    0x00, 0x00, 0x00, 0x00, 0x42, 0x8b, 0x34, 0xad, 0x04, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x7d,
    0xb0, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x8b, 0x45, 0xbc, 0x41, 0x03, 0x04, 0x9c, 0x48, 0x8d,
    0x65, 0xe0, 0x5b, 0x41, 0x5a, 0x41, 0x5c, 0x41, 0x5d, 0x5d, 0x49, 0x8d, 0x62, 0xf8, 0xc3};

static void test_drap_realignment(void **state)
{
  (void)state;
  /* From the save of r10 to the restore of rbp: the CFA from the frame. */
#define DRAP_BODY(at) {at, FP_DEREF, -24, 0, 0}
  /* The CFA only in r10: a flagged guess, never a certain wrong rule. */
#define DRAP_IN_REGISTER(at)                                                                       \
  {                                                                                                \
    at, SP, 8, 0, UNC                                                                              \
  }
  CHECK(drap_o2, {0x00, SP, 8, 0, 0}, {0x05, SP, 8, 0, 0}, DRAP_IN_REGISTER(0x09),
        DRAP_IN_REGISTER(0x0e), DRAP_IN_REGISTER(0x14), DRAP_IN_REGISTER(0x21),
        DRAP_IN_REGISTER(0x24), DRAP_IN_REGISTER(0x28), DRAP_BODY(0x2a), DRAP_BODY(0x2b),
        DRAP_BODY(0x34), DRAP_BODY(0x4a), DRAP_BODY(0x4f), DRAP_BODY(0x5b), DRAP_BODY(0x67),
        DRAP_BODY(0x6b), DRAP_BODY(0x6c), DRAP_BODY(0x6e), DRAP_BODY(0x70), DRAP_BODY(0x72),
        DRAP_IN_REGISTER(0x73), {0x77, SP, 8, 0, 0});
#undef DRAP_BODY
#undef DRAP_IN_REGISTER
}

/* gcc 12 -O2 (a call with stack arguments, then a loop whose head is
 * entered only by a backward branch):
 *   void msg(const char *fmt, ...);
 *   const char *name(int c);
 *   int report(const size_t *cat, const char *path, double pct) {
 *     msg("%s %f %zu %zu %zu %zu %zu\n", path, pct, cat[8], cat[9], cat[10],
 *         cat[11], cat[12]);
 *     for (int c = 0; c < 7; c++)
 *       if (cat[c])
 *         msg("  %zu %s\n", cat[c], name(c));
 *     return 0;
 *   }
 *   0: push r12  e: push rbp  12: push rbx  1d: sub rsp,8
 *  21: push [rdi+0x60]  33: call msg  38: pop rax  39: pop rdx  3a: jmp 4a
 *  3c: nop  40: add rbx,1  44: cmp rbx,7  48: je 75
 *  4a: cmp [rbp+rbx*8],0  50: je 40  ...  73: jne 4a
 *  75: pop rbx  78: pop rbp  79: pop r12  7b: ret
 * The block at 40 follows a path end and only the later je at 50 enters
 * it: it has the state of that branch (CFA = rsp+32), not the canonical
 * one (rsp+48, before the pops of the pushed arguments). */
static const uint8_t backward_only_o2[] = {
    0x41, 0x54, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x4c, 0x8d, 0x25, 0x00, 0x00, 0x00, 0x00, 0x55, 0x48,
    0x89, 0xfd, 0x53, 0x48, 0x8b, 0x57, 0x40, 0x31, 0xdb, 0x48, 0x8b, 0x4f, 0x48, 0x48, 0x83, 0xec,
    0x08, 0xff, 0x77, 0x60, 0x4c, 0x8b, 0x4f, 0x58, 0x4c, 0x8b, 0x47, 0x50, 0x48, 0x8d, 0x3d, 0x00,
    0x00, 0x00, 0x00, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x58, 0x5a, 0xeb, 0x0e, 0x0f, 0x1f, 0x40, 0x00,
    0x48, 0x83, 0xc3, 0x01, 0x48, 0x83, 0xfb, 0x07, 0x74, 0x2b, 0x48, 0x83, 0x7c, 0xdd, 0x00, 0x00,
    0x74, 0xee, 0x89, 0xdf, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8b, 0x74, 0xdd, 0x00, 0x4c, 0x89,
    0xe7, 0x48, 0x83, 0xc3, 0x01, 0x48, 0x89, 0xc2, 0x31, 0xc0, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x48,
    0x83, 0xfb, 0x07, 0x75, 0xd5, 0x5b, 0x31, 0xc0, 0x5d, 0x41, 0x5c, 0xc3};

static void test_block_entered_by_backward_branch(void **state)
{
  (void)state;
  /* rbp is saved at CFA-24 from 0xf until its pop at 0x78. */
  CHECK(backward_only_o2, {0x1d, SP, 32, -24, 0}, {0x21, SP, 40, -24, 0}, {0x33, SP, 48, -24, 0},
        {0x39, SP, 40, -24, 0}, {0x3a, SP, 32, -24, 0}, {0x40, SP, 32, -24, 0},
        {0x44, SP, 32, -24, 0}, {0x48, SP, 32, -24, 0}, {0x4a, SP, 32, -24, 0},
        {0x73, SP, 32, -24, 0}, {0x75, SP, 32, -24, 0}, {0x78, SP, 24, -24, 0},
        {0x79, SP, 16, 0, 0}, {0x7b, SP, 8, 0, 0});
}

/* gcc 12 -O2 (a noreturn call placed before the block of a branch; the
 * tail calls' rel32, 0 in the object file, set here to 4 KiB past):
 *   __attribute__((noreturn)) void runtime_error(const char *);
 *   long f1(long *), f2(long *), f3(long *), f4(long *), f5(long *);
 *   long dispatch(long *a, int kind) {
 *     if (__builtin_expect(!a, 1))
 *       runtime_error("null");
 *     switch (kind) {
 *     case 1: return f1(a);  case 2: return f2(a);  case 3: return f3(a);
 *     case 4: return f4(a);  case 5: return f5(a + 1);  default: return 0;
 *     }
 *   }
 *   0: test rdi,rdi  3: jne 18  5: sub rsp,8  9: lea rdi,[rip+...]
 *  10: call runtime_error  15: nop
 *  18: cmp esi,5  1b: ja 5d  ...  2d: jmp rax  2f: nop
 *  30: add rdi,8  34: jmp f5  ...  58: jmp f1  5d: xor eax,eax  5f: ret
 * The call does not return: the nop after it keeps its frame (as the CFI
 * does), and the block at 18 has the state of the jne (CFA = rsp+8), not
 * the one that would fall through from the call. */
static const uint8_t noreturn_call_o2[] = {
    0x48, 0x85, 0xff, 0x75, 0x13, 0x48, 0x83, 0xec, 0x08, 0x48, 0x8d, 0x3d, 0x00, 0x00, 0x00, 0x00,
    0xe8, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x1f, 0x00, 0x83, 0xfe, 0x05, 0x77, 0x40, 0x48, 0x8d, 0x15,
    0x00, 0x00, 0x00, 0x00, 0x89, 0xf6, 0x48, 0x63, 0x04, 0xb2, 0x48, 0x01, 0xd0, 0xff, 0xe0, 0x90,
    0x48, 0x83, 0xc7, 0x08, 0xe9, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00,
    0xe9, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x1f, 0x00, 0xe9, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x1f, 0x00,
    0xe9, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x1f, 0x00, 0xe9, 0x00, 0x10, 0x00, 0x00, 0x31, 0xc0, 0xc3};

static void test_noreturn_call_before_branch_target(void **state)
{
  (void)state;
  CHECK(noreturn_call_o2, {0x03, SP, 8, 0, 0}, {0x05, SP, 8, 0, 0}, {0x09, SP, 16, 0, 0},
        {0x10, SP, 16, 0, 0}, {0x15, SP, 16, 0, 0}, {0x18, SP, 8, 0, 0}, {0x1b, SP, 8, 0, 0},
        {0x2d, SP, 8, 0, 0}, {0x30, SP, 8, 0, 0}, {0x34, SP, 8, 0, 0}, {0x5d, SP, 8, 0, 0},
        {0x5f, SP, 8, 0, 0});
}

static void test_undecodable_and_full_output(void **state)
{
  (void)state;
  knit_recipe r[MAX_RECIPES];
  /* 0x06 (push es) is invalid in 64-bit mode: nothing decodes. */
  static const uint8_t junk[] = {0x06, 0x06};
  assert_int_equal(knit_isa_x86_64.analyze(knit_fx.cs, knit_fx.insn, junk, sizeof junk,
                                           FIXTURE_ADDR, r, MAX_RECIPES, NULL),
                   -1);
  /* An invalid byte in the middle is covered by a flagged guess and the
   * decoding goes on: push rbx; (bad); pop rbx; ret. */
  static const uint8_t mid[] = {0x53, 0x06, 0x5b, 0xc3};
  int n = knit_fixture_analyze(mid, sizeof mid, FIXTURE_ADDR, r, MAX_RECIPES);
  const knit_recipe *bad = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + 1);
  assert_true(bad->flags & KNIT_RECIPE_UNCERTAIN);
  assert_int_equal(bad->cfa_offset, 16);
  assert_int_equal(knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + 3)->cfa_offset, 8);
  /* With room for two recipes the second one stretches to the end and is
   * flagged: the function stays covered. */
  n = knit_fixture_analyze(multi_exit_o2, sizeof multi_exit_o2, FIXTURE_ADDR, r, 2);
  assert_int_equal(n, 2);
  assert_true(r[1].flags & KNIT_RECIPE_UNCERTAIN);
}

/* ---- The audit: recipes against the compiler's CFI ---------------------- */

/* The audit itself is profiler/audit (knit audit); these tests hold the
 * x86-64 analyzer to it on chosen functions of this test and on whole
 * modules. Addresses of this process's functions become ELF virtual
 * addresses through the module's load bias. */

typedef struct module {
  const char *want; /* "" for the executable, else a substring of the path */
  uint64_t bias;
  char path[512];
  bool found;
} module;

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  module *m = data;
  bool is_exe = m->want[0] == '\0' && info->dlpi_name[0] == '\0';
  bool is_lib = m->want[0] != '\0' && strstr(info->dlpi_name, m->want);
  if (!is_exe && !is_lib)
    return 0;
  m->bias = info->dlpi_addr;
  snprintf(m->path, sizeof m->path, "%s", is_exe ? "/proc/self/exe" : info->dlpi_name);
  m->found = true;
  return 1;
}

static bool find_loaded(module *m, const char *want)
{
  memset(m, 0, sizeof *m);
  m->want = want;
  dl_iterate_phdr(find_module, m);
  return m->found;
}

int knit_audit_leaf(int, int);
int knit_audit_multi_exit(int);
int knit_audit_frame_pointer(int);
int knit_audit_vla(int);
int knit_audit_aligned(int);
int knit_audit_many_saves(int, int, int, int, int, int);
int knit_audit_switch(int, int);
int knit_audit_drap(int);

static void test_audit_subjects_match_cfi(void **state)
{
  (void)state;
  module m;
  char err[256];
  if (!find_loaded(&m, ""))
    skip();
  knit_audit_target *t = knit_audit_open(m.path, err, sizeof err);
  if (!t)
    fail_msg("%s", err);
  const knit_func_table *funcs = knit_audit_target_functions(t);
  /* flagged: instructions whose recipe may be a flagged guess (a DRAP
   * realignment's, where the CFA is only in a register). */
  const struct {
    const char *name;
    void *fn;
    size_t flagged;
  } subjects[] = {
      {"leaf", (void *)knit_audit_leaf, 0},
      {"multi_exit", (void *)knit_audit_multi_exit, 0},
      {"frame_pointer", (void *)knit_audit_frame_pointer, 0},
      {"vla", (void *)knit_audit_vla, 0},
      {"aligned", (void *)knit_audit_aligned, 0},
      {"many_saves", (void *)knit_audit_many_saves, 0},
      {"switch", (void *)knit_audit_switch, 0},
      {"drap", (void *)knit_audit_drap, 14},
  };
  const knit_audit_options verbose = {.verbose = true, .limit = 0};
  for (size_t i = 0; i < sizeof subjects / sizeof subjects[0]; i++) {
    uint64_t vaddr = (uint64_t)(uintptr_t)subjects[i].fn - m.bias, start, end;
    assert_true(knit_bounds_lookup(funcs, vaddr, &start, &end));
    assert_int_equal(start, vaddr);
    /* At the first instruction: CFA = rsp+8, return address at CFA-8. */
    knit_recipe r[MAX_RECIPES];
    int n =
        knit_fixture_analyze((const uint8_t *)subjects[i].fn, end - start, start, r, MAX_RECIPES);
    assert_int_equal(r[0].cfa_base, KNIT_CFA_SP);
    assert_int_equal(r[0].cfa_offset, 8);
    assert_int_equal(r[0].ra_offset, -8);
    assert_true(n >= 1);
    /* Every instruction agrees: CFA, return address and the rbp rule. */
    knit_audit_result c;
    memset(&c, 0, sizeof c);
    assert_true(knit_audit_function(t, start, end, &verbose, &c, stderr));
    print_message("%-14s %3zu insns, %zu agree, %zu disagree, %zu flagged\n", subjects[i].name,
                  c.instructions, c.agree, c.disagree, c.category[KNIT_AUDIT_CAT_UNCERTAIN]);
    assert_true(c.instructions > 0);
    size_t flagged = c.category[KNIT_AUDIT_CAT_UNCERTAIN];
    assert_int_equal(c.disagree - flagged, 0);
    assert_true(flagged <= subjects[i].flagged);
    /* Most of the function is compared, not passed over. */
    assert_true(c.agree >= c.instructions / 2);
    assert_int_equal(c.fp_disagree, 0);
  }
  knit_audit_close(t);
}

/* Every function of a module: the share of instructions where a certain
 * recipe (one the analyzer did not flag) disagrees with the CFI must stay
 * small; and, when max_unexpressed is not negative, the share where the
 * CFI's rule is one no recipe can say (a CFA in a register other than sp
 * and fp, an expression that is not a load) too. */
static void audit_module(const char *want, double max_disagree, double max_unexpressed)
{
  module m;
  if (!find_loaded(&m, want))
    skip();
  knit_audit_options opt = {.verbose = getenv("KNIT_AUDIT_VERBOSE") != NULL};
  knit_audit_result c;
  if (knit_audit_file(m.path, &opt, &c, stderr) != 0)
    fail_msg("%s", c.error);
  size_t flagged = c.category[KNIT_AUDIT_CAT_UNCERTAIN];
  size_t certain = c.disagree - flagged;
  print_message("%s: %zu functions, %zu insns: %zu agree, %zu disagree, "
                "%zu flagged, %zu without CFI, %zu fp restored early, "
                "%zu padding; %zu insns of functions entered by jump not "
                "compared\n",
                m.path, c.functions, c.instructions, c.agree, certain, flagged,
                c.skipped[KNIT_AUDIT_SKIP_NO_CFI], c.fp_stale, c.skipped[KNIT_AUDIT_SKIP_PADDING],
                c.skipped[KNIT_AUDIT_SKIP_JUMP_ENTERED]);
  assert_true(c.instructions > 1000);
  assert_true((double)certain <= max_disagree * (double)c.instructions);
  if (max_unexpressed >= 0) {
    print_message("%zu insns whose CFI rule no recipe can say\n",
                  c.skipped[KNIT_AUDIT_SKIP_CFI_FORM]);
    assert_true((double)c.skipped[KNIT_AUDIT_SKIP_CFI_FORM] <=
                max_unexpressed * (double)c.instructions);
  }
}

static void test_audit_executable(void **state)
{
  (void)state;
  audit_module("", 0.01, -1);
}

static void test_audit_libc(void **state)
{
  (void)state;
  audit_module("libc.so.6", 0.01, -1);
}

/* gfortran's runtime realigns many of its array routines through a DRAP
 * register: their CFI loads the CFA from the frame, which recipes say too
 * (KNIT_CFA_FP_DEREF). Before they could, a sixth of its instructions had
 * a rule no recipe could say (93,000 of 455,000); 1.2% do now, the
 * instructions where the CFA is only in the DRAP register. */
static void test_audit_libgfortran(void **state)
{
  (void)state;
  void *lib = dlopen("libgfortran.so.5", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    skip(); /* gfortran's runtime is not installed */
  audit_module("libgfortran.so", 0.01, 0.03);
  dlclose(lib);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frameless_leaf),
      cmocka_unit_test(test_two_epilogues),
      cmocka_unit_test(test_rbp_as_register_and_forward_branch),
      cmocka_unit_test(test_realignment_with_frame_pointer),
      cmocka_unit_test(test_leave),
      cmocka_unit_test(test_plt),
      cmocka_unit_test(test_enter_pushf_tail_call),
      cmocka_unit_test(test_unmodeled_rsp_is_uncertain),
      cmocka_unit_test(test_drap_realignment),
      cmocka_unit_test(test_frame_moved_to_callers_memory),
      cmocka_unit_test(test_block_entered_by_backward_branch),
      cmocka_unit_test(test_noreturn_call_before_branch_target),
      cmocka_unit_test(test_undecodable_and_full_output),
      cmocka_unit_test(test_audit_subjects_match_cfi),
      cmocka_unit_test(test_audit_executable),
      cmocka_unit_test(test_audit_libc),
      cmocka_unit_test(test_audit_libgfortran),
  };
  knit_fx.isa = &knit_isa_x86_64;
  return cmocka_run_group_tests(tests, knit_fixture_setup, knit_fixture_teardown);
}
