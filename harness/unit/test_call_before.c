/* Each ISA's decoder of the instruction that ends at a return address
 * (isa.h: call_before), from instruction bytes assembled with each ISA's
 * GNU assembler: direct calls with their targets, every indirect form, and
 * instructions that are not calls, including the bytes at the return
 * address of a real wrong step (mock-intel's trampoline, x86-64). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/unwind/isa.h"
#include "profiler/unwind/step_class.h"

#define RA 0x401000u

/* Decodes bytes as ending at RA; *target is left at 0 unless set. */
static int decode(const knit_isa_ops *isa, const uint8_t *bytes, size_t n, uint64_t *target)
{
  *target = 0;
  return isa->call_before(bytes, n, RA, target);
}

/* Puts filler (int3 / zero words) before one instruction, as the 16 bytes a
 * return address ends would hold. */
static size_t with_filler(uint8_t *buf, uint8_t fill, const uint8_t *insn, size_t len)
{
  memset(buf, fill, KNIT_CALL_BYTES);
  memcpy(buf + KNIT_CALL_BYTES - len, insn, len);
  return KNIT_CALL_BYTES;
}

static void expect_x86(const uint8_t *insn, size_t len, int kind)
{
  uint8_t buf[KNIT_CALL_BYTES];
  uint64_t target;
  size_t n = with_filler(buf, 0xcc, insn, len);
  assert_int_equal(decode(&knit_isa_x86_64, buf, n, &target), kind);
  /* Just the instruction's bytes (a return address near the start of the
   * code) must give the same answer. */
  assert_int_equal(decode(&knit_isa_x86_64, insn, len, &target), kind);
}

static void test_x86_64(void **state)
{
  (void)state;
  uint64_t target;
  static const uint8_t call_rel[] = {0xe8, 0xfb, 0x00, 0x00, 0x00};
  assert_int_equal(decode(&knit_isa_x86_64, call_rel, 5, &target), KNIT_CALL_DIRECT);
  assert_int_equal(target, RA + 0xfb);
  static const uint8_t call_back[] = {0xe8, 0xf0, 0xff, 0xff, 0xff};
  assert_int_equal(decode(&knit_isa_x86_64, call_back, 5, &target), KNIT_CALL_DIRECT);
  assert_int_equal(target, RA - 0x10);

  static const struct {
    uint8_t len, b[8];
  } indirect[] = {
      {2, {0xff, 0xd0}},                               /* call *%rax */
      {3, {0x41, 0xff, 0xd3}},                         /* call *%r11 */
      {3, {0xff, 0x50, 0x10}},                         /* call *0x10(%rax) */
      {6, {0xff, 0x15, 0x78, 0x56, 0x34, 0x12}},       /* call *x(%rip) */
      {5, {0x41, 0xff, 0x54, 0xca, 0x18}},             /* call *0x18(%r10,%rcx,8) */
      {7, {0xff, 0x94, 0x98, 0x00, 0x10, 0x00, 0x00}}, /* call *0x1000(%rax,%rbx,4) */
      {7, {0xff, 0x14, 0xdd, 0x00, 0x10, 0x00, 0x00}}, /* call *0x1000(,%rbx,8) */
      {3, {0x3e, 0xff, 0xd0}},                         /* notrack call *%rax */
      {2, {0xff, 0x10}},                               /* call *(%rax) */
  };
  for (size_t i = 0; i < sizeof indirect / sizeof indirect[0]; i++)
    expect_x86(indirect[i].b, indirect[i].len, KNIT_CALL_INDIRECT);

  static const struct {
    uint8_t len, b[8];
  } not_calls[] = {
      {2, {0xff, 0xe0}},                   /* jmp *%rax */
      {5, {0x41, 0xff, 0x74, 0xca, 0x18}}, /* push 0x18(%r10,%rcx,8) */
      {3, {0x48, 0x89, 0xdc}},             /* mov %rbx,%rsp */
      {1, {0xc3}},                         /* ret */
  };
  for (size_t i = 0; i < sizeof not_calls / sizeof not_calls[0]; i++)
    expect_x86(not_calls[i].b, not_calls[i].len, KNIT_CALL_NONE);

  /* mockrt_invoke_microtask: `call *%r11; mov %rbx,%rsp`. Its return
   * address follows the call; the word after it is no return address. */
  static const uint8_t trampoline[] = {0x31, 0xc0, 0x41, 0xff, 0xd3, 0x48, 0x89, 0xdc};
  assert_int_equal(decode(&knit_isa_x86_64, trampoline, 5, &target), KNIT_CALL_INDIRECT);
  assert_int_equal(decode(&knit_isa_x86_64, trampoline, 8, &target), KNIT_CALL_NONE);
  assert_int_equal(decode(&knit_isa_x86_64, trampoline, 0, &target), KNIT_CALL_NONE);
}

/* One little-endian instruction word, as the last 4 of 16 bytes. */
static int decode_word(const knit_isa_ops *isa, uint32_t insn, uint64_t *target)
{
  uint8_t buf[KNIT_CALL_BYTES] = {0};
  for (int b = 0; b < 4; b++)
    buf[KNIT_CALL_BYTES - 4 + b] = (uint8_t)(insn >> (8 * b));
  return decode(isa, buf, sizeof buf, target);
}

static void test_aarch64(void **state)
{
  (void)state;
  const knit_isa_ops *isa = &knit_isa_aarch64;
  uint64_t target;
  assert_int_equal(decode_word(isa, 0x94000040u, &target), KNIT_CALL_DIRECT); /* bl .+0x100 */
  assert_int_equal(target, RA - 4 + 0x100);
  assert_int_equal(decode_word(isa, 0x97fffffeu, &target), KNIT_CALL_DIRECT); /* bl .-8 */
  assert_int_equal(target, RA - 4 - 8);
  assert_int_equal(decode_word(isa, 0xd63f0060u, &target), KNIT_CALL_INDIRECT); /* blr x3 */
  assert_int_equal(decode_word(isa, 0xd63f083fu, &target), KNIT_CALL_INDIRECT); /* blraaz x1 */
  assert_int_equal(decode_word(isa, 0xd73f0c22u, &target), KNIT_CALL_INDIRECT); /* blrab x1,x2 */
  assert_int_equal(decode_word(isa, 0xd65f03c0u, &target), KNIT_CALL_NONE);     /* ret */
  assert_int_equal(decode_word(isa, 0xd61f0200u, &target), KNIT_CALL_NONE);     /* br x16 */
  assert_int_equal(decode_word(isa, 0x14000002u, &target), KNIT_CALL_NONE);     /* b .+8 */
  uint8_t three[3] = {0x40, 0x00, 0x00};
  assert_int_equal(decode(isa, three, 3, &target), KNIT_CALL_NONE);
}

static void test_ppc64le(void **state)
{
  (void)state;
  const knit_isa_ops *isa = &knit_isa_ppc64le;
  uint64_t target;
  assert_int_equal(decode_word(isa, 0x48000101u, &target), KNIT_CALL_DIRECT); /* bl .+0x100 */
  assert_int_equal(target, RA - 4 + 0x100);
  assert_int_equal(decode_word(isa, 0x4bfffff9u, &target), KNIT_CALL_DIRECT); /* bl .-8 */
  assert_int_equal(target, RA - 4 - 8);
  assert_int_equal(decode_word(isa, 0x4e800421u, &target), KNIT_CALL_INDIRECT); /* bctrl */
  assert_int_equal(decode_word(isa, 0x4e800021u, &target), KNIT_CALL_INDIRECT); /* blrl */
  assert_int_equal(decode_word(isa, 0x48000100u, &target), KNIT_CALL_NONE);     /* b */
  assert_int_equal(decode_word(isa, 0x4e800020u, &target), KNIT_CALL_NONE);     /* blr */
  /* The TOC restore after a call to another module is at the return
   * address, not before it. */
  assert_int_equal(decode_word(isa, 0xe8410018u, &target), KNIT_CALL_NONE); /* ld r2,24(r1) */
}

/* The classes from a callee's function start and the call at the RA. */
static void test_classify(void **state)
{
  (void)state;
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_DIRECT, 0x1000), KNIT_STEP_CONFIRMED);
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_DIRECT, 0x2000), KNIT_STEP_PROBABLE);
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_DIRECT, 0x1008), KNIT_STEP_PROBABLE);
  /* ppc64le: a local entry point 8 bytes in; not before the start. */
  assert_int_equal(knit_step_classify(0x1000, 8, KNIT_CALL_DIRECT, 0x1008), KNIT_STEP_CONFIRMED);
  assert_int_equal(knit_step_classify(0x1000, 8, KNIT_CALL_DIRECT, 0xff8), KNIT_STEP_PROBABLE);
  assert_int_equal(knit_step_classify(0, 0, KNIT_CALL_DIRECT, 0), KNIT_STEP_PROBABLE);
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_DIRECT_PLT, 0x9000),
                   KNIT_STEP_CONFIRMED);
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_INDIRECT, 0), KNIT_STEP_PROBABLE);
  assert_int_equal(knit_step_classify(0x1000, 0, KNIT_CALL_NONE, 0), KNIT_STEP_WRONG);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_x86_64),
      cmocka_unit_test(test_aarch64),
      cmocka_unit_test(test_ppc64le),
      cmocka_unit_test(test_classify),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
