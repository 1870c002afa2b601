/* Function bounds of real ELF files: this test executable, libc (whose
 * .symtab is stripped, so IFUNC-selected variants are found only through
 * their FDEs), a fully stripped copy of the executable, the PLT, and the
 * aarch64 and ppc64le libc of the cross toolchains when they are installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "profiler/unwind/bounds.h"
#include "profiler/unwind/isa.h"

/* Static, so that a stripped copy knows them only from their FDEs. */
__attribute__((noinline)) static int bounds_subject_a(int x)
{
  return x * 7 + 1;
}

__attribute__((noinline)) static int bounds_subject_b(int x)
{
  return bounds_subject_a(x) ^ 0x55;
}

int main(void);

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
  /* The executable's real path: /proc/self/exe would name another program
   * in a child process (objcopy below). */
  if (is_exe) {
    ssize_t n = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
    m->path[n > 0 ? n : 0] = '\0';
  } else {
    snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
  }
  m->found = m->path[0] != '\0';
  return 1;
}

static module find(const char *want)
{
  module m = {.want = want};
  dl_iterate_phdr(find_module, &m);
  return m;
}

/* The function at addr (a runtime address) must start exactly there. */
static void expect_start(const knit_func_table *t, const module *m, void (*fn)(void))
{
  uint64_t vaddr = knit_native_code_of(fn) - m->bias, start = 0, end = 0;
  assert_true(knit_bounds_lookup(t, vaddr, &start, &end));
  assert_int_equal(start, vaddr);
  assert_true(end > start);
  /* Any address inside finds the same function. */
  uint64_t s2, e2;
  assert_true(knit_bounds_lookup(t, end - 1, &s2, &e2));
  assert_int_equal(s2, start);
  assert_int_equal(e2, end);
}

static void expect_well_formed(const knit_func_table *t)
{
  for (size_t i = 0; i < t->count; i++) {
    assert_true(t->start[i] < t->end[i]);
    if (i + 1 < t->count) {
      assert_true(t->start[i] < t->start[i + 1]);
      assert_true(t->end[i] <= t->start[i + 1]);
    }
  }
}

static void test_executable(void **state)
{
  (void)state;
  module m = find("");
  assert_true(m.found);
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(m.path, &t, err, sizeof err), 0);
  assert_int_equal(t.elf_machine, knit_isa_native()->elf_machine);
  expect_well_formed(&t);
  expect_start(&t, &m, (void (*)(void))bounds_subject_a);
  expect_start(&t, &m, (void (*)(void))bounds_subject_b);
  expect_start(&t, &m, (void (*)(void))expect_start);
  expect_start(&t, &m, (void (*)(void))main);
  assert_false(knit_bounds_lookup(&t, 0, NULL, NULL));
  assert_false(knit_bounds_lookup(&t, UINT64_MAX, NULL, NULL));
  assert_int_equal(bounds_subject_b(1), 8 ^ 0x55);
  knit_bounds_free(&t);
}

/* Finds a section's address and size by name, with libelf directly. */
static bool section_by_name(const char *path, const char *name, uint64_t *addr, uint64_t *size,
                            uint64_t *entsize)
{
  elf_version(EV_CURRENT);
  int fd = open(path, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  size_t shstrndx;
  bool found = false;
  if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
      const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
      if (n && strcmp(n, name) == 0) {
        *addr = sh.sh_addr;
        *size = sh.sh_size;
        *entsize = sh.sh_entsize;
        found = true;
      }
    }
  }
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
  return found;
}

static void test_plt_stubs(void **state)
{
  (void)state;
  module m = find("libc.so.6");
  assert_true(m.found);
  uint64_t addr = 0, size = 0, entsize = 0;
  /* On ppc64le .plt is a table of addresses, not code: nothing to test. */
  if (knit_isa_native()->elf_machine == EM_PPC64 ||
      !section_by_name(m.path, ".plt", &addr, &size, &entsize) || size < 48)
    skip();
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(m.path, &t, err, sizeof err), 0);
  uint64_t entry = entsize ? entsize : 16, start, end;
  /* PLT0 (16 bytes on x86-64, 32 on aarch64), then one function per stub. */
  uint64_t plt0 = t.elf_machine == EM_AARCH64 ? 32 : 16;
  assert_true(knit_bounds_lookup(&t, addr + 3, &start, &end));
  assert_int_equal(start, addr);
  assert_int_equal(end, addr + plt0);
  assert_true(knit_bounds_lookup(&t, addr + plt0 + 5, &start, &end));
  assert_int_equal(start, addr + plt0);
  assert_int_equal(end, addr + plt0 + entry);
  assert_true(knit_bounds_lookup(&t, addr + size - 1, &start, &end));
  assert_int_equal(start, addr + size - entry);
  knit_bounds_free(&t);
}

static void test_libc(void **state)
{
  (void)state;
  module m = find("libc.so.6");
  assert_true(m.found);
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(m.path, &t, err, sizeof err), 0);
  assert_int_equal(t.elf_machine, knit_isa_native()->elf_machine);
  assert_true(t.count > 1000);
  expect_well_formed(&t);
  /* Exported functions (.dynsym), libc's own: a sanitizer's runtime, loaded
   * first, defines many of the same names (its interceptors). */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(libc);
  expect_start(&t, &m, (void (*)(void))dlsym(libc, "fopen"));
  expect_start(&t, &m, (void (*)(void))dlsym(libc, "qsort"));
  expect_start(&t, &m, (void (*)(void))dlsym(libc, "pthread_mutex_lock"));
  /* dlsym of an IFUNC gives the selected variant (__strlen_avx2 and the
   * like), which has no dynamic symbol: only its FDE knows it. */
  expect_start(&t, &m, (void (*)(void))dlsym(libc, "strlen"));
  expect_start(&t, &m, (void (*)(void))dlsym(libc, "memcpy"));
  dlclose(libc);
  knit_bounds_free(&t);
}

static void test_stripped_copy(void **state)
{
  (void)state;
  module m = find("");
  char tmp[] = "/tmp/knit_bounds_stripped_XXXXXX";
  int fd = mkstemp(tmp);
  assert_true(fd >= 0);
  close(fd);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "objcopy --strip-all %s %s 2>/dev/null", m.path, tmp);
  if (system(cmd) != 0) {
    unlink(tmp);
    skip(); /* no objcopy on this machine */
  }
  knit_func_table t;
  char err[256];
  int rc = knit_bounds_read(tmp, &t, err, sizeof err);
  unlink(tmp);
  assert_int_equal(rc, 0);
  expect_well_formed(&t);
  /* Static functions have neither .symtab nor .dynsym entries any more. */
  expect_start(&t, &m, (void (*)(void))bounds_subject_a);
  expect_start(&t, &m, (void (*)(void))bounds_subject_b);
  expect_start(&t, &m, (void (*)(void))expect_well_formed);
  knit_bounds_free(&t);
}

/* The value of a dynamic symbol, read with libelf directly. */
static bool dynsym_value(const char *path, const char *name, uint64_t *value)
{
  elf_version(EV_CURRENT);
  int fd = open(path, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  bool found = false;
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while (elf && !found && (scn = elf_nextscn(elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Sym s;
      const char *n = gelf_getsym(d, (int)i, &s) ? elf_strptr(elf, sh.sh_link, s.st_name) : NULL;
      if (n && strcmp(n, name) == 0 && s.st_shndx != SHN_UNDEF) {
        *value = s.st_value;
        found = true;
        break;
      }
    }
  }
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
  return found;
}

/* ELFv1: the code address in the descriptor at value, read from .opd's
 * bytes (big-endian) as the file holds them. */
static bool opd_entry(const char *path, uint64_t value, uint64_t *code)
{
  int fd = open(path, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  size_t shstrndx = 0;
  bool found = false;
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
    while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
      const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
      Elf_Data *d = name && strcmp(name, ".opd") == 0 ? elf_getdata(scn, NULL) : NULL;
      if (d && value >= sh.sh_addr && value + 8 <= sh.sh_addr + d->d_size) {
        const uint8_t *p = (const uint8_t *)d->d_buf + (value - sh.sh_addr);
        *code = 0;
        for (int i = 0; i < 8; i++)
          *code = *code << 8 | p[i];
        found = true;
      }
    }
  }
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
  return found;
}

static void check_foreign_libc(const char *path, uint16_t machine, bool descriptors)
{
  if (access(path, R_OK) != 0)
    skip();
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(path, &t, err, sizeof err), 0);
  assert_int_equal(t.elf_machine, machine);
  assert_true(t.count > 1000);
  expect_well_formed(&t);
  const char *names[] = {"malloc", "fopen", "qsort", "pthread_mutex_lock"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    uint64_t v = 0, start, end;
    assert_true(dynsym_value(path, names[i], &v));
    if (descriptors)
      assert_true(opd_entry(path, v, &v));
    assert_true(knit_bounds_lookup(&t, v + 4, &start, &end));
    assert_int_equal(start, v);
  }
  knit_bounds_free(&t);
}

static void test_aarch64_libc(void **state)
{
  (void)state;
  check_foreign_libc("/usr/aarch64-linux-gnu/lib/libc.so.6", EM_AARCH64, false);
}

static void test_ppc64le_libc(void **state)
{
  (void)state;
  check_foreign_libc("/usr/powerpc64le-linux-gnu/lib/libc.so.6", EM_PPC64, false);
}

/* Big-endian ppc64 (ELFv1): every function symbol names a descriptor in
 * .opd; the bounds start where the descriptor says the code does. */
static void test_ppc64_libc(void **state)
{
  (void)state;
  check_foreign_libc("/usr/powerpc64-linux-gnu/lib/libc.so.6", EM_PPC64, true);
}

/* ppc64's linker puts its call stubs (00000037.plt_call.printf, symbols of
 * no type) at the start of .text, right after .init, whose _init has a
 * size-0 descriptor: _init ends where .init does, so a sample in a stub
 * is not taken for _init's code (which read a return address from the
 * stack where the stub keeps it in LR). */
static void test_ppc64_stubs(void **state)
{
  (void)state;
#ifdef KNIT_BOUNDS_PPC64_PROGRAM
  const char *path = KNIT_BOUNDS_PPC64_PROGRAM;
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(path, &t, err, sizeof err), 0);
  int fd = open(path, O_RDONLY);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  assert_non_null(elf);
  size_t shstrndx;
  assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
  uint64_t init_lo = 0, init_hi = 0, stubs = 0;
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (name && strcmp(name, ".init") == 0) {
      init_lo = sh.sh_addr;
      init_hi = sh.sh_addr + sh.sh_size;
    }
    if (sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Sym sym;
      const char *n =
          gelf_getsym(d, (int)i, &sym) ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
      if (n && strstr(n, ".plt_call.") && sym.st_value >= init_hi && init_hi &&
          (stubs == 0 || sym.st_value < stubs))
        stubs = sym.st_value;
    }
  }
  elf_end(elf);
  close(fd);
  assert_true(init_hi > init_lo);
  assert_true(stubs != 0);
  /* _init's code (after .init's own stub for __gmon_start__) ends with
   * .init; the first stub of .text belongs to no function of .init. */
  uint64_t start = 0, end = 0;
  assert_true(knit_bounds_lookup(&t, init_hi - 4, &start, &end));
  assert_true(start >= init_lo && end <= init_hi);
  if (knit_bounds_lookup(&t, stubs, &start, &end))
    assert_true(start >= init_hi);
  knit_bounds_free(&t);
#else
  skip();
#endif
}

static void test_not_elf(void **state)
{
  (void)state;
  knit_func_table t;
  char err[256] = "";
  assert_int_equal(knit_bounds_read("/nonexistent/file", &t, err, sizeof err), -1);
  assert_true(err[0] != '\0');
  assert_int_equal(knit_bounds_read("/proc/self/status", &t, err, sizeof err), -1);
  assert_int_equal(t.count, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_executable),   cmocka_unit_test(test_plt_stubs),
      cmocka_unit_test(test_libc),         cmocka_unit_test(test_stripped_copy),
      cmocka_unit_test(test_aarch64_libc), cmocka_unit_test(test_ppc64le_libc),
      cmocka_unit_test(test_ppc64_libc),   cmocka_unit_test(test_ppc64_stubs),
      cmocka_unit_test(test_not_elf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
