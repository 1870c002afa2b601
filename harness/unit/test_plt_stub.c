/* The POWER rows' decoder of the linker's call stubs (isa.h:
 * plt_stub_slot): the slot a stub loads its target from, for each shape GNU
 * ld writes (ELFv2's and ELFv1's, with and without the high half of the
 * offset, ELFv1's thread-safe one, the notoc one for code without a TOC
 * pointer and POWER10's pc-relative one), from instruction words written
 * out here and laid down in each row's byte order; code that is no stub
 * gives 0; the rows whose stubs are in .plt have no decoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/unwind/isa.h"

#define TOC  0x10027f00ull /* r2, as ld sets it: .got + 0x8000 */
#define STUB 0x100009a0ull /* the stub's address */

/* The instructions. */
#define STD_R2_24   0xf8410018u /* std r2,24(r1) (ELFv2's TOC save) */
#define STD_R2_40   0xf8410028u /* std r2,40(r1) (ELFv1's) */
#define MTCTR_R12   0x7d8903a6u
#define BCTR        0x4e800420u
#define BNECTR      0x4c820420u /* bnectr */
#define NOP         0x60000000u
#define TRAP        0x7fe00008u
#define ADDIS_12_2  0x3d820001u /* addis r12,r2,1 */
#define ADDIS_11_2  0x3d620001u /* addis r11,r2,1 */
#define ADDIS_11_2N 0x3d62ffffu /* addis r11,r2,-1 */
#define LD_12_2     0xe9828110u /* ld r12,-32496(r2) */
#define LD_12_12    0xe98c8148u /* ld r12,-32440(r12) */
#define LD_12_11    0xe98b81c0u /* ld r12,-32320(r11) */
#define LD_12_11P   0xe98b0040u /* ld r12,64(r11) */
#define ADDI_11_11  0x396b81c0u /* addi r11,r11,-32320 */
#define LD_2_2      0xe84281c8u /* ld r2,-32312(r2) */
#define LD_2_11     0xe84b81c8u /* ld r2,-32312(r11) */
#define LD_2_11_8   0xe84b0008u /* ld r2,8(r11) */
#define LD_11_11    0xe96b81d0u /* ld r11,-32304(r11) */
#define XOR_2_12    0x7d826278u /* xor r2,r12,r12 */
#define ADD_11_2    0x7d6b1214u /* add r11,r11,r2 */
#define CMPLDI_2    0x28220000u /* cmpldi r2,0 */
#define MFLR_12     0x7d8802a6u /* mflr r12 */
#define MFLR_11     0x7d6802a6u /* mflr r11 */
#define MTLR_12     0x7d8803a6u /* mtlr r12 */
#define BCL_NEXT    0x429f0005u /* bcl 20,31,.+4 */
#define ADDIS_12_11 0x3d8b0001u /* addis r12,r11,1 */
#define LD_12_12P   0xe98c0010u /* ld r12,16(r12) */
#define PLD_PREFIX  0x0413fffeu /* pld r12,-0x12340 (pc-relative): prefix */
#define PLD_SUFFIX  0xe580dcc0u /* and suffix */
#define LD_0_3      0xe8030000u /* ld r0,0(r3) (__tls_get_addr_opt's stub) */
#define MFLR_0      0x7c0802a6u /* mflr r0 */
#define STD_0_16    0xf8010010u /* std r0,16(r1) */
#define STDU_1      0xf821ffe1u /* stdu r1,-32(r1) */
#define BLR         0x4e800020u

/* The slot the row's decoder finds in words laid down in its byte order. */
static uint64_t slot_of(const knit_isa_ops *isa, const uint32_t *words, size_t count, uint64_t toc)
{
  uint8_t code[64];
  assert_true(count * 4 <= sizeof code);
  for (size_t i = 0; i < count; i++)
    for (int b = 0; b < 4; b++) {
      int shift = isa->elf_data == ELFDATA2MSB ? 24 - 8 * b : 8 * b;
      code[4 * i + b] = (uint8_t)(words[i] >> shift);
    }
  assert_non_null(isa->plt_stub_slot);
  return isa->plt_stub_slot(code, count * 4, STUB, toc);
}

#define SLOT(isa, toc, ...)                                                                        \
  slot_of(isa, (const uint32_t[]){__VA_ARGS__}, sizeof((const uint32_t[]){__VA_ARGS__}) / 4, toc)

static const knit_isa_ops *const power_rows[] = {&knit_isa_ppc64le, &knit_isa_ppc64};

static void test_stubs(void **state)
{
  (void)state;
  for (size_t r = 0; r < 2; r++) {
    const knit_isa_ops *isa = power_rows[r];
    print_message("%s\n", isa->name);
    /* ELFv2: the slot within 32 KiB of r2, then beyond. */
    assert_int_equal(SLOT(isa, TOC, STD_R2_24, LD_12_2, MTCTR_R12, BCTR, 0), TOC - 32496);
    assert_int_equal(SLOT(isa, TOC, STD_R2_24, ADDIS_12_2, LD_12_12, MTCTR_R12, BCTR),
                     TOC + 0x10000 - 32440);
    /* ELFv2 without the TOC save (a call that need not restore r2). */
    assert_int_equal(SLOT(isa, TOC, ADDIS_12_2, LD_12_12, MTCTR_R12, BCTR), TOC + 0x10000 - 32440);
    /* ELFv1: the descriptor's code address, then its TOC and environment. */
    assert_int_equal(SLOT(isa, TOC, STD_R2_40, LD_12_2, MTCTR_R12, LD_2_2, BCTR), TOC - 32496);
    assert_int_equal(
        SLOT(isa, TOC, STD_R2_40, ADDIS_11_2, LD_12_11, MTCTR_R12, LD_2_11, LD_11_11, BCTR),
        TOC + 0x10000 - 32320);
    assert_int_equal(SLOT(isa, TOC, STD_R2_40, ADDIS_11_2N, LD_12_11, MTCTR_R12, LD_2_11, BCTR),
                     TOC - 0x10000 - 32320);
    /* ELFv1, thread-safe: the loads ordered by a dependency, then a check
     * that sends an unresolved slot to the resolver; and the form whose
     * descriptor crosses a 64 KiB boundary (the low half added first). */
    assert_int_equal(SLOT(isa, TOC, STD_R2_40, ADDIS_11_2, LD_12_11, MTCTR_R12, XOR_2_12, ADD_11_2,
                          LD_2_11, CMPLDI_2, BNECTR),
                     TOC + 0x10000 - 32320);
    assert_int_equal(
        SLOT(isa, TOC, STD_R2_40, ADDIS_11_2, LD_12_11, ADDI_11_11, MTCTR_R12, LD_2_11_8, BCTR),
        TOC + 0x10000 - 32320);
    /* notoc: the slot relative to the bcl's return address. */
    assert_int_equal(SLOT(isa, TOC, MFLR_12, BCL_NEXT, MFLR_11, MTLR_12, ADDIS_12_11, LD_12_12P,
                          MTCTR_R12, BCTR),
                     STUB + 8 + 0x10000 + 16);
    /* ... which needs no TOC pointer. */
    assert_int_equal(
        SLOT(isa, 0, MFLR_12, BCL_NEXT, MFLR_11, MTLR_12, ADDIS_12_11, LD_12_12P, MTCTR_R12, BCTR),
        STUB + 8 + 0x10000 + 16);
    /* POWER10: pc-relative, from the prefix's address. */
    assert_int_equal(SLOT(isa, TOC, PLD_PREFIX, PLD_SUFFIX, MTCTR_R12, BCTR), STUB - 0x12340);
    assert_int_equal(SLOT(isa, TOC, STD_R2_24, PLD_PREFIX, PLD_SUFFIX, MTCTR_R12, BCTR),
                     STUB + 4 - 0x12340);
  }
}

static void test_not_stubs(void **state)
{
  (void)state;
  for (size_t r = 0; r < 2; r++) {
    const knit_isa_ops *isa = power_rows[r];
    /* No TOC pointer known: a slot from r2 is unknown. */
    assert_int_equal(SLOT(isa, 0, STD_R2_24, LD_12_2, MTCTR_R12, BCTR), 0);
    /* __tls_get_addr_opt's stub, which does its own work first. */
    assert_int_equal(SLOT(isa, TOC, LD_0_3, LD_12_2, MTCTR_R12, BCTR), 0);
    /* A function's prologue. */
    assert_int_equal(SLOT(isa, TOC, MFLR_0, STD_0_16, STDU_1, NOP), 0);
    /* A load into r12 that is not branched to. */
    assert_int_equal(SLOT(isa, TOC, LD_12_2, NOP, NOP, NOP, BLR), 0);
    /* A load from a register no stub instruction set. */
    assert_int_equal(SLOT(isa, TOC, LD_12_11P, MTCTR_R12, BCTR), 0);
    /* notoc without the bcl: the link register's value is unknown. */
    assert_int_equal(SLOT(isa, TOC, MFLR_11, ADDIS_12_11, LD_12_12P, MTCTR_R12, BCTR), 0);
    /* Cut short: the load, but not the mtctr. */
    assert_int_equal(SLOT(isa, TOC, STD_R2_24, LD_12_2), 0);
    /* pld that is not pc-relative (R clear). */
    assert_int_equal(SLOT(isa, TOC, PLD_PREFIX & ~0x00100000u, PLD_SUFFIX, MTCTR_R12, BCTR), 0);
    assert_int_equal(SLOT(isa, TOC, TRAP, TRAP, TRAP, TRAP), 0);
    assert_int_equal(isa->plt_stub_slot((const uint8_t *)"", 0, STUB, TOC), 0);
  }
}

/* Where the stubs are .plt's entries, no decoder. */
static void test_other_rows(void **state)
{
  (void)state;
  assert_null(knit_isa_x86_64.plt_stub_slot);
  assert_null(knit_isa_x86_64.plt_stub_base);
  assert_null(knit_isa_aarch64.plt_stub_slot);
  assert_null(knit_isa_aarch64.plt_stub_base);
  assert_non_null(knit_isa_ppc64le.plt_stub_base);
  assert_non_null(knit_isa_ppc64.plt_stub_base);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stubs),
      cmocka_unit_test(test_not_stubs),
      cmocka_unit_test(test_other_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
