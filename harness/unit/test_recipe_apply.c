/* knit_recipe_apply and knit_recipe_find on recorded register values and a
 * fake stack: every base, every return-address and frame-pointer rule, and
 * each way a step can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"

/* A fake stack: 64 words starting at STACK_BASE. */
#define STACK_BASE  0x7ffff000u
#define STACK_WORDS 64

typedef struct fake_stack {
  uint64_t word[STACK_WORDS];
  int reads;
} fake_stack;

static bool read_fake(void *ctx, uint64_t addr, uint64_t *out)
{
  fake_stack *s = ctx;
  s->reads++;
  if (addr < STACK_BASE || addr % 8 != 0 || (addr - STACK_BASE) / 8 >= STACK_WORDS)
    return false;
  *out = s->word[(addr - STACK_BASE) / 8];
  return true;
}

static void put(fake_stack *s, uint64_t addr, uint64_t value)
{
  s->word[(addr - STACK_BASE) / 8] = value;
}

static knit_recipe make(uint8_t base, int32_t cfa_off, uint8_t ra_rule, int32_t ra_off,
                        uint8_t fp_rule, int32_t fp_off)
{
  knit_recipe r = {0};
  r.cfa_base = base;
  r.cfa_offset = cfa_off;
  r.ra_rule = ra_rule;
  r.ra_offset = ra_off;
  r.fp_rule = fp_rule;
  r.fp_offset = fp_off;
  return r;
}

/* x86-64 at a function's first instruction: CFA = rsp+8, RA at CFA-8. */
static void test_sp_based_entry(void **state)
{
  (void)state;
  fake_stack s = {0};
  uint64_t sp = STACK_BASE + 0x40;
  put(&s, sp, 0x401234);
  knit_regs callee = {.pc = 0x402000, .sp = sp, .fp = 0x1111, .lr = 0};
  knit_regs caller;
  uint64_t cfa = 0;
  assert_int_equal(
      knit_recipe_apply(&knit_isa_x86_64.entry_recipe, &callee, read_fake, &s, &caller, &cfa),
      KNIT_STEP_OK);
  assert_int_equal(cfa, sp + 8);
  assert_int_equal(caller.pc, 0x401234);
  assert_int_equal(caller.sp, sp + 8);
  assert_int_equal(caller.fp, 0x1111); /* FP_SAME */
  assert_int_equal(caller.lr, 0);
}

/* x86-64 after push rbp; mov rbp,rsp: CFA = rbp+16, rbp saved at CFA-16. */
static void test_fp_based_with_saved_fp(void **state)
{
  (void)state;
  fake_stack s = {0};
  uint64_t fp = STACK_BASE + 0x80;
  put(&s, fp, STACK_BASE + 0x100); /* the caller's rbp */
  put(&s, fp + 8, 0x405678);       /* the return address */
  knit_regs callee = {.pc = 0x402010, .sp = STACK_BASE + 0x20, .fp = fp};
  knit_recipe r = make(KNIT_CFA_FP, 16, KNIT_RA_AT_CFA, -8, KNIT_FP_AT_CFA, -16);
  knit_regs caller;
  uint64_t cfa;
  assert_int_equal(knit_recipe_apply(&r, &callee, read_fake, &s, &caller, &cfa), KNIT_STEP_OK);
  assert_int_equal(cfa, fp + 16);
  assert_int_equal(caller.sp, fp + 16);
  assert_int_equal(caller.pc, 0x405678);
  assert_int_equal(caller.fp, STACK_BASE + 0x100);
}

/* ppc64 back chain: CFA = *(r1), return address in the caller's LR save
 * slot at CFA+16. */
static void test_sp_deref_back_chain(void **state)
{
  (void)state;
  fake_stack s = {0};
  uint64_t sp = STACK_BASE + 0x10, back = STACK_BASE + 0x90;
  put(&s, sp, back);
  put(&s, back + 16, 0x10001234);
  knit_regs callee = {.pc = 0x10002000, .sp = sp, .fp = 7, .lr = 0x99};
  knit_recipe r = make(KNIT_CFA_SP_DEREF, 0, KNIT_RA_AT_CFA, 16, KNIT_FP_SAME, 0);
  knit_regs caller;
  uint64_t cfa;
  assert_int_equal(knit_recipe_apply(&r, &callee, read_fake, &s, &caller, &cfa), KNIT_STEP_OK);
  assert_int_equal(cfa, back);
  assert_int_equal(caller.pc, 0x10001234);
  assert_int_equal(caller.fp, 7);
  assert_int_equal(caller.lr, 0);
}

/* x86-64, a frame gcc realigned through a DRAP register: the CFA is the
 * register's copy saved at rbp-24, the caller's rbp is at rbp+0 (below the
 * aligned point, no fixed distance from the CFA), and the return address
 * is where the call left it, at CFA-8. A failed load of either word fails
 * the step. */
static void test_fp_deref_realigned_frame(void **state)
{
  (void)state;
  fake_stack s = {0};
  uint64_t fp = STACK_BASE + 0x60, cfa_want = STACK_BASE + 0xe8;
  put(&s, fp - 24, cfa_want);
  put(&s, fp, 0x7fff1000);         /* the caller's rbp */
  put(&s, fp + 8, 0xdead);         /* the copy of the return address */
  put(&s, cfa_want - 8, 0x401234); /* the return address */
  knit_regs callee = {.pc = 0x402000, .sp = STACK_BASE + 0x20, .fp = fp, .lr = 0};
  knit_recipe r = make(KNIT_CFA_FP_DEREF, -24, KNIT_RA_AT_CFA, -8, KNIT_FP_AT_FP, 0);
  knit_regs caller;
  uint64_t cfa;
  assert_int_equal(knit_recipe_apply(&r, &callee, read_fake, &s, &caller, &cfa), KNIT_STEP_OK);
  assert_int_equal(cfa, cfa_want);
  assert_int_equal(caller.sp, cfa_want);
  assert_int_equal(caller.pc, 0x401234);
  assert_int_equal(caller.fp, 0x7fff1000);
  callee.fp = 0x1000; /* the saved register out of reach */
  assert_int_equal(knit_recipe_apply(&r, &callee, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_BAD_READ);
}

/* aarch64/ppc64le leaf: the return address is still in LR and sp has not
 * moved; the caller's sp equals the callee's, which is allowed only here. */
static void test_leaf_ra_in_lr(void **state)
{
  (void)state;
  fake_stack s = {0};
  knit_regs callee = {.pc = 0x400100, .sp = STACK_BASE + 0x40, .fp = 5, .lr = 0x400aa4};
  knit_regs caller;
  uint64_t cfa;
  assert_int_equal(
      knit_recipe_apply(&knit_isa_aarch64.entry_recipe, &callee, read_fake, &s, &caller, &cfa),
      KNIT_STEP_OK);
  assert_int_equal(caller.pc, 0x400aa4);
  assert_int_equal(caller.sp, callee.sp);
  assert_int_equal(caller.fp, 5);
  assert_int_equal(caller.lr, 0);
  assert_int_equal(s.reads, 0); /* nothing needed from memory */

  /* A second link-register step from the caller has lr 0: the end of the
   * stack, so an unwinder cannot loop on the same sp. */
  knit_regs again;
  assert_int_equal(
      knit_recipe_apply(&knit_isa_ppc64le.entry_recipe, &caller, read_fake, &s, &again, &cfa),
      KNIT_STEP_END);
}

static void test_bad_reads(void **state)
{
  (void)state;
  fake_stack s = {0};
  knit_regs caller, callee = {.pc = 1, .sp = 0x1000, .fp = 0x2000};
  uint64_t cfa;
  /* The return address slot is unreadable. */
  assert_int_equal(
      knit_recipe_apply(&knit_isa_x86_64.entry_recipe, &callee, read_fake, &s, &caller, &cfa),
      KNIT_STEP_BAD_READ);
  /* The back chain word is unreadable. */
  knit_recipe deref = make(KNIT_CFA_SP_DEREF, 0, KNIT_RA_AT_CFA, 16, KNIT_FP_SAME, 0);
  assert_int_equal(knit_recipe_apply(&deref, &callee, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_BAD_READ);
  /* The return address is readable but the saved fp is not. */
  uint64_t sp = STACK_BASE + STACK_WORDS * 8 - 16;
  put(&s, sp + 8, 0x4000);
  knit_regs top = {.pc = 1, .sp = sp, .fp = 0};
  knit_recipe fp_above = make(KNIT_CFA_SP, 16, KNIT_RA_AT_CFA, -8, KNIT_FP_AT_CFA, 0);
  assert_int_equal(knit_recipe_apply(&fp_above, &top, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_BAD_READ);
}

static void test_bad_frames(void **state)
{
  (void)state;
  fake_stack s = {0};
  knit_regs caller;
  uint64_t cfa;
  /* A frame pointer below sp gives a CFA that does not lie above sp. */
  uint64_t sp = STACK_BASE + 0x100;
  put(&s, STACK_BASE + 0x18, 0x400000);
  knit_regs callee = {.pc = 1, .sp = sp, .fp = STACK_BASE + 0x10};
  knit_recipe r = make(KNIT_CFA_FP, 16, KNIT_RA_AT_CFA, -8, KNIT_FP_SAME, 0);
  assert_int_equal(knit_recipe_apply(&r, &callee, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_BAD_FRAME);
  /* A CFA equal to sp with the return address below it, in the frame
   * that has not grown: no progress. */
  knit_recipe below = make(KNIT_CFA_SP, 0, KNIT_RA_AT_CFA, -8, KNIT_FP_SAME, 0);
  put(&s, sp - 8, 0x400000);
  assert_int_equal(knit_recipe_apply(&below, &callee, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_BAD_FRAME);
  /* A CFA equal to sp with the return address above it, in the caller's
   * frame (ppc64's link register save word, stored by a function that
   * keeps no frame of its own): a step to the caller at the same sp. */
  knit_recipe saved_above = make(KNIT_CFA_SP, 0, KNIT_RA_AT_CFA, 16, KNIT_FP_SAME, 0);
  put(&s, sp + 16, 0x400000);
  assert_int_equal(knit_recipe_apply(&saved_above, &callee, read_fake, &s, &caller, &cfa),
                   KNIT_STEP_OK);
  assert_int_equal(caller.pc, 0x400000);
  assert_int_equal(caller.sp, sp);
  /* The same step from there reads the same word: the same pc at the same
   * sp, which would loop. */
  knit_regs again;
  assert_int_equal(knit_recipe_apply(&saved_above, &caller, read_fake, &s, &again, &cfa),
                   KNIT_STEP_BAD_FRAME);
}

/* A zero return address is the ABIs' mark of the outermost frame. */
static void test_end_of_stack(void **state)
{
  (void)state;
  fake_stack s = {0};
  knit_regs caller = {0}, callee = {.pc = 1, .sp = STACK_BASE + 0x40};
  uint64_t cfa = 0;
  put(&s, callee.sp, 0);
  assert_int_equal(
      knit_recipe_apply(&knit_isa_x86_64.entry_recipe, &callee, read_fake, &s, &caller, &cfa),
      KNIT_STEP_END);
  assert_int_equal(caller.pc, 0); /* nothing written */
}

static void test_find(void **state)
{
  (void)state;
  knit_recipe rs[3] = {
      {.start = 0x100, .end = 0x104, .cfa_offset = 8},
      {.start = 0x104, .end = 0x110, .cfa_offset = 16},
      {.start = 0x120, .end = 0x130, .cfa_offset = 24}, /* a gap before it */
  };
  assert_null(knit_recipe_find(rs, 3, 0xff));
  assert_ptr_equal(knit_recipe_find(rs, 3, 0x100), &rs[0]);
  assert_ptr_equal(knit_recipe_find(rs, 3, 0x103), &rs[0]);
  assert_ptr_equal(knit_recipe_find(rs, 3, 0x104), &rs[1]);
  assert_ptr_equal(knit_recipe_find(rs, 3, 0x10f), &rs[1]);
  assert_null(knit_recipe_find(rs, 3, 0x110));
  assert_null(knit_recipe_find(rs, 3, 0x11f));
  assert_ptr_equal(knit_recipe_find(rs, 3, 0x12f), &rs[2]);
  assert_null(knit_recipe_find(rs, 3, 0x130));
  assert_null(knit_recipe_find(rs, 0, 0x100));
  assert_ptr_equal(knit_recipe_find(rs, 1, 0x101), &rs[0]);
}

static void test_isa_for_machine(void **state)
{
  (void)state;
  assert_ptr_equal(knit_isa_for_machine(62 /* EM_X86_64 */), &knit_isa_x86_64);
  assert_ptr_equal(knit_isa_for_machine(183 /* EM_AARCH64 */), &knit_isa_aarch64);
  assert_ptr_equal(knit_isa_for_machine(21 /* EM_PPC64 */), &knit_isa_ppc64le);
  assert_null(knit_isa_for_machine(3 /* EM_386 */));
  assert_string_equal(knit_isa_x86_64.name, "x86_64");
  /* Every ISA has its analyzer. */
  assert_non_null(knit_isa_x86_64.analyze);
  assert_non_null(knit_isa_aarch64.analyze);
  assert_non_null(knit_isa_ppc64le.analyze);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sp_based_entry),
      cmocka_unit_test(test_fp_based_with_saved_fp),
      cmocka_unit_test(test_sp_deref_back_chain),
      cmocka_unit_test(test_fp_deref_realigned_frame),
      cmocka_unit_test(test_leaf_ra_in_lr),
      cmocka_unit_test(test_bad_reads),
      cmocka_unit_test(test_bad_frames),
      cmocka_unit_test(test_end_of_stack),
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_isa_for_machine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
