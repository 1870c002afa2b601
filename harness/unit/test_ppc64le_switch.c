/* The ppc64le analyzer on switch-shaped code: cases entered through gcc's
 * jump table, which save LR themselves, and blocks entered only by branches
 * beyond the on-stack target table, which need the caller's workspace.
 * Hand-assembled from the shapes of libstdc++'s fn_10ced0 (a switch with
 * 387 branch targets, a loop entered from below in a case that saves LR),
 * where both made the analyzer disagree with gcc's CFI on 770 instructions.
 * Run in every tree (under QEMU in the cross trees). */
#include <capstone/capstone.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze_fixture.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"

#define FIXTURE_ADDR 0x10000a00u
#define MAX_RECIPES  1024

/* Little-endian bytes of a sequence of instruction words. */
static size_t words_to_bytes(const uint32_t *w, size_t n, uint8_t *out)
{
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 4; b++)
      out[4 * i + (size_t)b] = (uint8_t)(w[i] >> (8 * b));
  return 4 * n;
}

static const knit_recipe *at(const knit_recipe *r, int n, uint32_t off)
{
  const knit_recipe *f = knit_recipe_find(r, (size_t)n, FIXTURE_ADDR + off);
  assert_non_null(f);
  return f;
}

/* cfa = r1 + cfa, the return address saved at CFA+16 (LR's save slot) or,
 * when ra_in_lr, still in LR; never flagged a guess. */
static void expect_frame(const knit_recipe *r, int32_t cfa, bool ra_in_lr)
{
  assert_int_equal(r->cfa_base, KNIT_CFA_SP);
  assert_int_equal(r->cfa_offset, cfa);
  if (ra_in_lr) {
    assert_int_equal(r->ra_rule, KNIT_RA_IN_LR);
  } else {
    assert_int_equal(r->ra_rule, KNIT_RA_AT_CFA);
    assert_int_equal(r->ra_offset, 16);
  }
  assert_int_equal(r->flags & KNIT_RECIPE_UNCERTAIN, 0);
}

/* A switch through a jump table placed after the bctr (gcc's layout, the
 * entries offsets from the table's start). Case A saves LR, calls, and
 * runs a loop whose body comes before its condition (entered from below);
 * case B returns at once. Without reading the table, case A's block was a
 * guess (the state at the bctr), and the loop body, a guess too, kept its
 * own state (LR not saved) around the loop instead of taking case A's. */
static const uint32_t switch_code[] = {
    /* 0x00 */ 0xf821ffc1, /* stdu r1,-64(r1) */
    /* 0x04 */ 0x7d2903a6, /* mtctr r9 */
    /* 0x08 */ 0x4e800420, /* bctr */
    /* 0x0c */ 0x00000008, /* .long case A - table (0x14) */
    /* 0x10 */ 0x00000038, /* .long case B - table (0x44) */
    /* 0x14 */ 0x7c0802a6, /* A: mflr r0 */
    /* 0x18 */ 0xf8010050, /* std r0,80(r1) */
    /* 0x1c */ 0x48001001, /* bl (another function) */
    /* 0x20 */ 0x4800000c, /* b cond (0x2c) */
    /* 0x24 */ 0x38630001, /* body: addi r3,r3,1 */
    /* 0x28 */ 0x38840001, /* addi r4,r4,1 */
    /* 0x2c */ 0x2c23000a, /* cond: cmpdi r3,10 */
    /* 0x30 */ 0x4082fff4, /* bne body (0x24) */
    /* 0x34 */ 0xe8010050, /* ld r0,80(r1) */
    /* 0x38 */ 0x38210040, /* addi r1,r1,64 */
    /* 0x3c */ 0x7c0803a6, /* mtlr r0 */
    /* 0x40 */ 0x4e800020, /* blr */
    /* 0x44 */ 0x38210040, /* B: addi r1,r1,64 */
    /* 0x48 */ 0x4e800020, /* blr */
};

static void check_switch(knit_analyze_work *w)
{
  uint8_t code[sizeof switch_code];
  size_t len = words_to_bytes(switch_code, sizeof switch_code / 4, code);
  knit_recipe r[MAX_RECIPES];
  int n = knit_isa_ppc64le.analyze(knit_fx.cs, knit_fx.insn, code, len, FIXTURE_ADDR, r,
                                   MAX_RECIPES, w);
  assert_true(n > 0);
  expect_frame(at(r, n, 0x14), 64, true);  /* case A: the bctr's state */
  expect_frame(at(r, n, 0x20), 64, false); /* saved */
  for (uint32_t off = 0x24; off <= 0x38; off += 4)
    expect_frame(at(r, n, off), 64, false); /* the loop: case A's state */
  expect_frame(at(r, n, 0x40), 0, true);    /* blr */
  expect_frame(at(r, n, 0x44), 64, true);   /* case B: the bctr's state */
  expect_frame(at(r, n, 0x48), 0, true);
}

static void test_jump_table_cases(void **state)
{
  (void)state;
  check_switch(knit_fx.work);
  check_switch(NULL); /* a small table needs no workspace */
}

/* Words after a bctr that are not a table: a tail call through CTR
 * followed by a traceback table (its first word is zero, an offset into
 * the words themselves) records nothing, and the analysis stays as it was
 * before tables were read. */
static void test_not_a_table(void **state)
{
  (void)state;
  static const uint32_t words[] = {
      0xf821ffc1,             /* stdu r1,-64(r1) */
      0x7d2903a6,             /* mtctr r9 */
      0x4e800420,             /* bctr */
      0x00000000,             /* traceback table */
      0x00090000, 0x38210040, /* addi r1,r1,64 (a block no branch enters) */
      0x4e800020,             /* blr */
  };
  uint8_t code[sizeof words];
  size_t len = words_to_bytes(words, sizeof words / 4, code);
  knit_recipe r[MAX_RECIPES];
  int n = knit_isa_ppc64le.analyze(knit_fx.cs, knit_fx.insn, code, len, FIXTURE_ADDR, r,
                                   MAX_RECIPES, knit_fx.work);
  assert_true(n > 0);
  const knit_recipe *data = at(r, n, 0x0c);
  assert_true((data->flags & KNIT_RECIPE_UNCERTAIN) != 0); /* data: a guess */
  expect_frame(at(r, n, 0x14), 64, true);
}

/* More branch targets than the on-stack table holds (256): 300 forward
 * branches, then a frame whose loop body comes before its condition. An
 * early return makes the canonical state the entry's (no frame), so a body
 * whose target was not recorded is wrong; with the workspace it is not. */
#define MANY 300

static size_t many_targets(uint8_t *code, uint32_t *body_off)
{
  static uint32_t w[4 + 2 * MANY + 12];
  size_t n = 0;
  w[n++] = 0x2c230000; /* cmpdi r3,0 */
  w[n++] = 0x40820008; /* bne +8 */
  w[n++] = 0x4e800020; /* blr: the first end of a path */
  for (int i = 0; i < MANY; i++) {
    w[n++] = 0x41820008; /* beq +8: one target each */
    w[n++] = 0x60000000; /* nop */
  }
  w[n++] = 0xf821ffc1; /* stdu r1,-64(r1) */
  w[n++] = 0x7c0802a6; /* mflr r0 */
  w[n++] = 0xf8010050; /* std r0,80(r1) */
  w[n++] = 0x48000008; /* b cond */
  *body_off = (uint32_t)(4 * n);
  w[n++] = 0x3863ffff; /* body: addi r3,r3,-1 */
  w[n++] = 0x2c230000; /* cond: cmpdi r3,0 */
  w[n++] = 0x4082fff8; /* bne body */
  w[n++] = 0x48001001; /* bl (another function) */
  w[n++] = 0xe8010050; /* ld r0,80(r1) */
  w[n++] = 0x38210040; /* addi r1,r1,64 */
  w[n++] = 0x7c0803a6; /* mtlr r0 */
  w[n++] = 0x4e800020; /* blr */
  return words_to_bytes(w, n, code);
}

static void test_many_targets_use_the_workspace(void **state)
{
  (void)state;
  static uint8_t code[4 * (4 + 2 * MANY + 12)];
  uint32_t body;
  size_t len = many_targets(code, &body);
  static knit_recipe r[MAX_RECIPES];
  int n = knit_isa_ppc64le.analyze(knit_fx.cs, knit_fx.insn, code, len, FIXTURE_ADDR, r,
                                   MAX_RECIPES, knit_fx.work);
  assert_true(n > 0);
  expect_frame(at(r, n, body), 64, false);
  expect_frame(at(r, n, body + 4), 64, false);
  expect_frame(at(r, n, body + 8), 64, false);
  /* Without a workspace the table is full before the loop: its body gets
   * the canonical state, the limit the workspace removes. */
  n = knit_isa_ppc64le.analyze(knit_fx.cs, knit_fx.insn, code, len, FIXTURE_ADDR, r, MAX_RECIPES,
                               NULL);
  assert_true(n > 0);
  assert_int_equal(at(r, n, body)->cfa_offset, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jump_table_cases),
      cmocka_unit_test(test_not_a_table),
      cmocka_unit_test(test_many_targets_use_the_workspace),
  };
  knit_fx.isa = &knit_isa_ppc64le;
  return cmocka_run_group_tests(tests, knit_fixture_setup, knit_fixture_teardown);
}
