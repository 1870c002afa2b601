/* The decoder (unwind/decoder.c) in a signal handler: after
 * knit_decoder_setup, decoding and asking for an instruction's registers
 * never reach the C library's malloc. A sample that interrupted malloc and then called it
 * would wait for ever for the lock its own thread holds: Capstone sorts
 * x86's table of implicit registers with qsort the first time it decodes
 * x86 code, and qsort allocates its scratch with malloc. This test counts
 * the calls into malloc (it defines malloc, which the loader then binds
 * Capstone's calls to) while decoding every ISA's code.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "unwind/decoder.h"
#include "unwind/isa.h"

static volatile int counting;
static volatile unsigned mallocs;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* A sanitizer owns malloc; it tells of each allocation through its hook
 * (declared here: gcc does not install the sanitizers' headers). */
int __sanitizer_install_malloc_and_free_hooks(void (*on_malloc)(const volatile void *, size_t),
                                              void (*on_free)(const volatile void *));

static void count_malloc(const volatile void *p, size_t size)
{
  (void)p;
  (void)size;
  if (counting)
    mallocs++;
}

static void count_nothing(const volatile void *p)
{
  (void)p;
}

__attribute__((constructor)) static void install_malloc_counter(void)
{
  __sanitizer_install_malloc_and_free_hooks(count_malloc, count_nothing);
}
#else
extern void *__libc_malloc(size_t size);

void *malloc(size_t size)
{
  if (counting)
    mallocs++;
  return __libc_malloc(size);
}
#endif

/* Decodes code as a sample's analysis would: each instruction, then its
 * registers. Returns the instructions decoded. */
static int decode(knit_decoder *d, const uint8_t *code, size_t len)
{
  int n = 0;
  uint64_t pc = 0x1000;
  while (len > 0 && cs_disasm_iter(d->handle, &code, &len, &pc, d->insn)) {
    cs_regs read, written;
    uint8_t nread, nwritten;
    cs_regs_access(d->handle, d->insn, read, &nread, written, &nwritten);
    n++;
  }
  return n;
}

static void check_isa(const knit_isa_ops *isa, const uint8_t *code, size_t len)
{
  knit_decoder d;
  assert_true(knit_decoder_open(&d, isa));
  counting = 1;
  mallocs = 0;
  int n = decode(&d, code, len);
  counting = 0;
  assert_true(n > 0);
  assert_int_equal(mallocs, 0);
  knit_decoder_close(&d);
}

/* Instructions with implicit register operands (accumulator forms, push,
 * pop, string moves), which x86's printer looks up in its sorted table. */
static void x86_64_decodes_without_malloc(void **state)
{
  (void)state;
  static const uint8_t code[] = {
      0x50,                         /* push rax */
      0x05, 0x10, 0x00, 0x00, 0x00, /* add eax, 16 */
      0x3c, 0x01,                   /* cmp al, 1 */
      0xa9, 0xff, 0x00, 0x00, 0x00, /* test eax, 255 */
      0x91,                         /* xchg ecx, eax */
      0x99,                         /* cdq */
      0xf3, 0xa4,                   /* rep movsb */
      0x48, 0xf7, 0xf1,             /* div rcx */
      0x58,                         /* pop rax */
      0xc3,                         /* ret */
  };
  check_isa(knit_isa_for_machine(EM_X86_64), code, sizeof code);
}

static void aarch64_decodes_without_malloc(void **state)
{
  (void)state;
  static const uint8_t code[] = {
      0xfd, 0x7b, 0xbf, 0xa9, /* stp x29, x30, [sp, #-16]! */
      0x20, 0x00, 0x80, 0xd2, /* mov x0, #1 */
      0xfd, 0x7b, 0xc1, 0xa8, /* ldp x29, x30, [sp], #16 */
      0xc0, 0x03, 0x5f, 0xd6, /* ret */
  };
  check_isa(knit_isa_for_machine(EM_AARCH64), code, sizeof code);
}

static void ppc64le_decodes_without_malloc(void **state)
{
  (void)state;
  static const uint8_t code[] = {
      0xa6, 0x02, 0x08, 0x7c, /* mflr r0 */
      0x10, 0x00, 0x01, 0xf8, /* std r0, 16(r1) */
      0xa6, 0x03, 0x08, 0x7c, /* mtlr r0 */
      0x20, 0x00, 0x80, 0x4e, /* blr */
  };
  check_isa(knit_isa_for_machine(EM_PPC64), code, sizeof code);
}

int main(void)
{
  if (!knit_decoder_setup())
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(x86_64_decodes_without_malloc),
      cmocka_unit_test(aarch64_decodes_without_malloc),
      cmocka_unit_test(ppc64le_decodes_without_malloc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
