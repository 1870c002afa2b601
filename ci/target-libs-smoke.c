/* Smoke test of a target root that ci/target-libs.sh built from source
 * (ppc64: big-endian, ELFv1). Run under QEMU before the root is stamped, it
 * uses each library the way knit does, so that a root that links but does
 * not work never reaches a build:
 *   - Capstone: PowerPC in 64-bit big-endian mode, on known words and on
 *     this program's own code (knit's unwinder decodes the code it samples);
 *   - libelf: this program's own file, from memory (knit reads modules);
 *   - zlib: a round trip (libelf's compressed sections go through it);
 *   - CMocka: runs the three, as knit's unit tests do.
 * Built with: <triplet>-gcc target-libs-smoke.c -lcapstone -lelf -lz -lcmocka
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <capstone/capstone.h>
#include <gelf.h>
#include <libelf.h>
#include <zlib.h>

static const char *self_path;

/* A function with a few instructions of its own to decode. */
__attribute__((noinline)) static long smoke_leaf(long a, long b)
{
  return a * 3 + (b >> 2);
}

/* The first instruction of fn. Under ELFv1 a function's address is that of
 * its descriptor in .opd (entry, TOC, environment), not of its code; the
 * entry point is the descriptor's first doubleword. */
static const uint8_t *code_of(void (*fn)(void))
{
#if defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF == 1)
  return (const uint8_t *)(uintptr_t)((const uint64_t *)(const void *)fn)[0];
#else
  return (const uint8_t *)(const void *)fn;
#endif
}

static void test_capstone_ppc64_be(void **state)
{
  (void)state;
  csh h;
  assert_int_equal(cs_open(CS_ARCH_PPC, CS_MODE_64 | CS_MODE_BIG_ENDIAN, &h), CS_ERR_OK);

  /* mflr r0; std r31,-8(r1); stdu r1,-64(r1); blr, as big-endian words:
   * decoded in the wrong byte order these are other instructions or none. */
  static const uint8_t known[] = {0x7c, 0x08, 0x02, 0xa6, 0xfb, 0xe1, 0xff, 0xf8,
                                  0xf8, 0x21, 0xff, 0xc1, 0x4e, 0x80, 0x00, 0x20};
  static const char *const want[] = {"mflr", "std", "stdu", "blr"};
  cs_insn *insn;
  size_t n = cs_disasm(h, known, sizeof known, 0x1000, 0, &insn);
  assert_int_equal(n, 4);
  for (size_t i = 0; i < n; i++) {
    printf("  known  0x%04" PRIx64 ": %-6s %s\n", insn[i].address, insn[i].mnemonic,
           insn[i].op_str);
    assert_string_equal(insn[i].mnemonic, want[i]);
  }
  cs_free(insn, n);

  /* This program's own code, up to its return. */
  const uint8_t *code = code_of((void (*)(void))smoke_leaf);
  n = cs_disasm(h, code, 64, (uint64_t)(uintptr_t)code, 0, &insn);
  assert_true(n > 0);
  int saw_blr = 0;
  for (size_t i = 0; i < n && !saw_blr; i++) {
    printf("  own    0x%08" PRIx64 ": %-6s %s\n", insn[i].address, insn[i].mnemonic,
           insn[i].op_str);
    saw_blr = strcmp(insn[i].mnemonic, "blr") == 0;
  }
  cs_free(insn, n);
  assert_true(saw_blr);
  assert_int_equal(smoke_leaf(5, 8), 17);
  cs_close(&h);
}

static void test_libelf_self(void **state)
{
  (void)state;
  FILE *f = fopen(self_path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  assert_true(size > 0);
  rewind(f);
  char *image = malloc((size_t)size);
  assert_non_null(image);
  assert_int_equal(fread(image, 1, (size_t)size, f), (size_t)size);
  fclose(f);

  assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
  Elf *e = elf_memory(image, (size_t)size);
  assert_non_null(e);
  assert_int_equal(elf_kind(e), ELF_K_ELF);
  GElf_Ehdr eh;
  assert_non_null(gelf_getehdr(e, &eh));
  printf("  elf    machine %u, class %u, data %u, flags 0x%x\n", eh.e_machine, eh.e_ident[EI_CLASS],
         eh.e_ident[EI_DATA], (unsigned)eh.e_flags);
  assert_int_equal(eh.e_machine, EM_PPC64);
  assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
  assert_int_equal(eh.e_ident[EI_DATA], ELFDATA2MSB);

  /* ELFv1 code has function descriptors: an .opd section. */
  size_t shstrndx;
  assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
  int saw_opd = 0;
  size_t sections = 0;
  for (Elf_Scn *s = elf_nextscn(e, NULL); s != NULL; s = elf_nextscn(e, s)) {
    GElf_Shdr sh;
    assert_non_null(gelf_getshdr(s, &sh));
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    saw_opd |= name != NULL && strcmp(name, ".opd") == 0;
    sections++;
  }
  printf("  elf    %zu sections, .opd %s\n", sections, saw_opd ? "present" : "absent");
  assert_true(saw_opd);
  elf_end(e);
  free(image);
}

static void test_zlib_roundtrip(void **state)
{
  (void)state;
  char text[4096];
  for (size_t i = 0; i < sizeof text; i++)
    text[i] = (char)('a' + i % 7);
  Bytef packed[4096];
  uLongf packed_len = sizeof packed;
  assert_int_equal(compress(packed, &packed_len, (const Bytef *)text, sizeof text), Z_OK);
  char back[4096];
  uLongf back_len = sizeof back;
  assert_int_equal(uncompress((Bytef *)back, &back_len, packed, packed_len), Z_OK);
  assert_int_equal(back_len, sizeof text);
  assert_memory_equal(back, text, sizeof text);
  printf("  zlib   %s: %zu bytes to %lu and back\n", zlibVersion(), sizeof text,
         (unsigned long)packed_len);
}

int main(int argc, char **argv)
{
  (void)argc;
  self_path = argv[0];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capstone_ppc64_be),
      cmocka_unit_test(test_libelf_self),
      cmocka_unit_test(test_zlib_roundtrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
