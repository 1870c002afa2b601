/* The symbolizer on real programs (symbols.cmake builds them): call sites'
 * functions and lines in programs built by gcc, clang-14, g++, clang++-14
 * and gfortran, with DWARF 5 and DWARF 4, clang's without .debug_aranges;
 * readable C++ and Fortran names; a program whose debug information was
 * split off by build ID; and, for every function of every fixture, the
 * same file:line as addr2line gives.
 *
 * The C and C++ fixtures print "label offset" for each call they make of
 * fixture_site (its return address as an ELF virtual address, as knit
 * records it); the source line of each call carries the comment "@label".
 * A fixture whose compiler the machine lacks is left out and named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "harness/unit/fixture_sites.h"
#include "profiler/report/symbolize.h"

#define FIXTURE(name) KNIT_FIXTURE_DIR "/" name
#define SOURCE(name)  KNIT_FIXTURE_SRC "/" name


typedef struct function {
  char *name;
  uint64_t addr;
  uint64_t size;
} function;


static const site *find_site(const site *sites, size_t n, const char *label)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(sites[i].label, label) == 0)
      return &sites[i];
  fail_msg("no call site \"%s\" printed", label);
  return NULL;
}


/* The defined functions of the file's symbol table (caller frees). */
static size_t read_functions(const char *path, function **out)
{
  elf_version(EV_CURRENT);
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  assert_non_null(elf);
  size_t n = 0, cap = 0;
  *out = NULL;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < count; i++) {
      GElf_Sym sym;
      if (gelf_getsym(data, (int)i, &sym) == NULL || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
          sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
        continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        *out = realloc(*out, cap * sizeof **out);
        assert_non_null(*out);
      }
      (*out)[n++] = (function){.name = strdup(elf_strptr(elf, sh.sh_link, sym.st_name)),
                               .addr = sym.st_value,
                               .size = sym.st_size};
    }
  }
  elf_end(elf);
  close(fd);
  return n;
}

static void free_functions(function *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(f[i].name);
  free(f);
}

/* The function named exactly name. */
static const function *find_exact(const function *f, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(f[i].name, name) == 0)
      return &f[i];
  fail_msg("no function %s", name);
  return NULL;
}

/* A function whose name starts with prefix and holds part (either may be
 * NULL). */
static const function *find_function(const function *f, size_t n, const char *prefix,
                                     const char *part)
{
  for (size_t i = 0; i < n; i++)
    if ((prefix == NULL || strncmp(f[i].name, prefix, strlen(prefix)) == 0) &&
        (part == NULL || strstr(f[i].name, part) != NULL))
      return &f[i];
  fail_msg("no function %s*%s*", prefix ? prefix : "", part ? part : "");
  return NULL;
}

/* The call site labelled label of program: the function and line the
 * symbolizer gives the call (the return address minus one). */
static void expect_site(knit_symbolizer *s, const char *program, const site *sites, size_t n,
                        const char *label, const char *source, const char *function)
{
  const site *at = find_site(sites, n, label);
  knit_symbol sym;
  knit_symbolizer_lookup(s, program, at->offset - 1, at->offset, &sym);
  unsigned want = fixture_marker_line(source, label);
  if (strcmp(sym.function, function) != 0)
    fail_msg("%s, call %s: function \"%s\", expected \"%s\"", program, label, sym.function,
             function);
  if (sym.file == NULL || strcmp(fixture_base_name(sym.file), fixture_base_name(source)) != 0 ||
      sym.line != want)
    fail_msg("%s, call %s: %s:%u, expected %s:%u", program, label,
             sym.file ? sym.file : "(no line)", sym.line, fixture_base_name(source), want);
}

static void check_c_lines(const char *program)
{
  site sites[16];
  size_t n = fixture_run_sites(program, sites, 16);
  knit_symbolizer *s = knit_symbolizer_new();
  expect_site(s, program, sites, n, "outer", SOURCE("lines.c"), "fixture_outer");
  /* Inlined code: the line is the inlined function's, the function the
   * one it was inlined into. */
  expect_site(s, program, sites, n, "inlined", SOURCE("lines.c"), "fixture_outer");
  expect_site(s, program, sites, n, "main", SOURCE("lines.c"), "main");
  knit_symbolizer_free(s);
}

/* C call sites, gcc and clang, DWARF 5 and 4: clang's builds have no
 * .debug_aranges, and their lines come all the same. */
static void test_c_lines(void **state)
{
  (void)state;
  const char *programs[] = {FIXTURE("lines_gcc"), FIXTURE("lines_gcc_dwarf4"),
                            FIXTURE("lines_clang"), FIXTURE("lines_clang_dwarf4")};
  size_t checked = 0;
  for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
    if (fixture_present(programs[i])) {
      check_c_lines(programs[i]);
      checked++;
    }
  }
  if (checked == 0)
    skip();
}

static void check_cxx(const char *program, int gcc)
{
  site sites[16];
  size_t n = fixture_run_sites(program, sites, 16);
  knit_symbolizer *s = knit_symbolizer_new();
  const char *src = SOURCE("names.cpp");
  expect_site(s, program, sites, n, "lambda", src,
              "physics::Grid<double>::relax(int)::{lambda(int)#1}::operator()(int) const");
  /* gcc names the loop's body after relax; clang 14 after nothing. */
  expect_site(s, program, sites, n, "region", src,
              gcc ? "physics::Grid<double>::relax(int) [omp_fn.0]" : ".omp_outlined.");
  expect_site(s, program, sites, n, "relax", src, "physics::Grid<double>::relax(int)");
  expect_site(s, program, sites, n, "step", src, "physics::Simulation::step(int)");

  /* The symbol as compiled goes with the readable name. */
  const site *step = find_site(sites, n, "step");
  knit_symbol sym;
  knit_symbolizer_lookup(s, program, step->offset - 1, step->offset, &sym);
  assert_non_null(sym.raw);
  assert_string_equal(sym.raw, "_ZN7physics10Simulation4stepEi");
  knit_symbolizer_free(s);

  /* Raw names: the symbols as they are, and no second name. */
  s = knit_symbolizer_new();
  knit_symbolizer_set_raw_names(s, 1);
  knit_symbolizer_lookup(s, program, step->offset - 1, step->offset, &sym);
  assert_string_equal(sym.function, "_ZN7physics10Simulation4stepEi");
  assert_null(sym.raw);
  const site *region = find_site(sites, n, "region");
  knit_symbolizer_lookup(s, program, region->offset - 1, region->offset, &sym);
  assert_string_equal(sym.function,
                      gcc ? "_ZN7physics4GridIdE5relaxEi._omp_fn.0" : ".omp_outlined.");
  knit_symbolizer_free(s);
}

/* C++: a namespace, a class template, a lambda in a parallel loop. */
static void test_cxx_names(void **state)
{
  (void)state;
  size_t checked = 0;
  if (fixture_present(FIXTURE("names_gxx"))) {
    check_cxx(FIXTURE("names_gxx"), 1);
    checked++;
  }
  const char *clang[] = {FIXTURE("names_clangxx"), FIXTURE("names_clangxx_dwarf4")};
  for (size_t i = 0; i < 2; i++) {
    if (fixture_present(clang[i])) {
      check_cxx(clang[i], 0);
      checked++;
    }
  }
  if (checked == 0)
    skip();
}

static void expect_fortran(knit_symbolizer *s, const function *f, const char *want, const char *raw)
{
  knit_symbol sym;
  knit_symbolizer_lookup(s, FIXTURE("names_fortran"), f->addr, f->addr, &sym);
  if (strcmp(sym.function, want) != 0)
    fail_msg("%s: \"%s\", expected \"%s\"", f->name, sym.function, want);
  assert_string_equal(sym.raw, raw);
  if (sym.file == NULL || strcmp(fixture_base_name(sym.file), "names.f90") != 0 || sym.line == 0)
    fail_msg("%s: no line in names.f90 (%s:%u)", f->name, sym.file ? sym.file : "-", sym.line);
}

/* Fortran: a module procedure, the main program, a contained procedure,
 * and their outlined bodies. */
static void test_fortran_names(void **state)
{
  (void)state;
  if (!fixture_present(FIXTURE("names_fortran")))
    skip();
  function *f;
  size_t n = read_functions(FIXTURE("names_fortran"), &f);
  knit_symbolizer *s = knit_symbolizer_new();
  expect_fortran(s, find_exact(f, n, "__heat_mod_MOD_solve"), "heat_mod::solve",
                 "__heat_mod_MOD_solve");
  const function *body = find_function(f, n, "__heat_mod_MOD_solve._omp_fn.", NULL);
  char want[128];
  snprintf(want, sizeof want, "heat_mod::solve [%s]", strstr(body->name, "omp_fn."));
  expect_fortran(s, body, want, body->name);
  expect_fortran(s, find_exact(f, n, "MAIN__"), "heat", "MAIN__");
  /* gfortran numbers contained procedures: task_work.N. */
  for (size_t i = 0; i < n; i++) {
    if (strncmp(f[i].name, "task_work.", 10) != 0)
      continue;
    const char *kind = strstr(f[i].name, "omp_fn.");
    if (kind != NULL)
      snprintf(want, sizeof want, "task_work [%s]", kind);
    else
      snprintf(want, sizeof want, "task_work");
    expect_fortran(s, &f[i], want, f[i].name);
  }
  (void)find_function(f, n, "task_work.", "._omp_fn.");
  knit_symbolizer_free(s);
  free_functions(f, n);
}

/* The clang build with its DWARF and symbol table split off into a
 * .build-id tree: found there by build ID, and nowhere else. */
static void test_split_debug(void **state)
{
  (void)state;
  const char *program = FIXTURE("lines_clang_stripped");
  if (!fixture_present(program))
    skip();
  site sites[16];
  size_t n = fixture_run_sites(program, sites, 16);
  const site *outer = find_site(sites, n, "outer");

  knit_symbolizer *s = knit_symbolizer_new();
  knit_symbolizer_set_debuginfo_path(s, "/nonexistent");
  knit_symbol sym;
  knit_symbolizer_lookup(s, program, outer->offset - 1, outer->offset, &sym);
  assert_null(sym.file);
  assert_int_equal(sym.resolved, 0);
  knit_symbolizer_free(s);

  s = knit_symbolizer_new();
  assert_int_equal(knit_symbolizer_set_debuginfo_path(s, FIXTURE("debug")), 0);
  expect_site(s, program, sites, n, "outer", SOURCE("lines.c"), "fixture_outer");
  expect_site(s, program, sites, n, "inlined", SOURCE("lines.c"), "fixture_outer");
  expect_site(s, program, sites, n, "main", SOURCE("lines.c"), "main");
  knit_symbolizer_free(s);
}

/* addr2line's answer for each address: the file's base name and the line,
 * or line 0 where it has none. */
static void addr2line(const char *program, const uint64_t *addrs, size_t n, char (*files)[128],
                      unsigned *lines)
{
  size_t len = 64 + strlen(program) + 20 * n;
  char *cmd = malloc(len);
  assert_non_null(cmd);
  size_t at = (size_t)snprintf(cmd, len, "addr2line -e '%s'", program);
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(cmd + at, len - at, " 0x%llx", (unsigned long long)addrs[i]);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char text[1024];
  for (size_t i = 0; i < n; i++) {
    files[i][0] = '\0';
    lines[i] = 0;
    if (fgets(text, sizeof text, p) == NULL)
      fail_msg("addr2line gave %zu answers for %zu addresses", i, n);
    text[strcspn(text, " \n")] = '\0'; /* " (discriminator N)" */
    char *colon = strrchr(text, ':');
    if (colon == NULL || strncmp(text, "??", 2) == 0)
      continue;
    *colon = '\0';
    lines[i] = (unsigned)strtoul(colon + 1, NULL, 10);
    snprintf(files[i], sizeof files[i], "%.127s", fixture_base_name(text));
  }
  pclose(p);
  free(cmd);
}

/* Every function of program at its entry, a third and two thirds in, and
 * at its last byte: the symbolizer's file:line is addr2line's wherever
 * addr2line knows one. Returns how many addresses were compared. */
static size_t agree_with_addr2line(const char *program)
{
  function *f;
  size_t n = read_functions(program, &f);
  uint64_t *addrs = malloc(4 * n * sizeof *addrs);
  char(*files)[128] = malloc(4 * n * sizeof *files);
  unsigned *lines = malloc(4 * n * sizeof *lines);
  assert_true(addrs && files && lines);
  for (size_t i = 0; i < n; i++) {
    addrs[4 * i] = f[i].addr;
    addrs[4 * i + 1] = f[i].addr + f[i].size / 3;
    addrs[4 * i + 2] = f[i].addr + 2 * f[i].size / 3;
    addrs[4 * i + 3] = f[i].addr + f[i].size - 1;
  }
  addr2line(program, addrs, 4 * n, files, lines);
  knit_symbolizer *s = knit_symbolizer_new();
  size_t compared = 0;
  for (size_t i = 0; i < 4 * n; i++) {
    if (lines[i] == 0)
      continue;
    knit_symbol sym;
    knit_symbolizer_lookup(s, program, addrs[i], addrs[i], &sym);
    if (sym.file == NULL || strcmp(fixture_base_name(sym.file), files[i]) != 0 ||
        sym.line != lines[i])
      fail_msg("%s 0x%llx (%s): %s:%u, addr2line %s:%u", program, (unsigned long long)addrs[i],
               f[i / 4].name, sym.file ? sym.file : "(none)", sym.line, files[i], lines[i]);
    compared++;
  }
  knit_symbolizer_free(s);
  free(addrs);
  free(files);
  free(lines);
  free_functions(f, n);
  return compared;
}

static void test_addr2line_agrees(void **state)
{
  (void)state;
  if (system("addr2line --version >/dev/null 2>&1") != 0) {
    print_message("skipping: no addr2line (binutils)\n");
    skip();
  }
  const char *programs[] = {FIXTURE("lines_gcc"),
                            FIXTURE("lines_gcc_dwarf4"),
                            FIXTURE("lines_clang"),
                            FIXTURE("lines_clang_dwarf4"),
                            FIXTURE("names_gxx"),
                            FIXTURE("names_clangxx"),
                            FIXTURE("names_clangxx_dwarf4"),
                            FIXTURE("names_fortran")};
  size_t checked = 0;
  for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
    if (!fixture_present(programs[i]))
      continue;
    size_t compared = agree_with_addr2line(programs[i]);
    print_message("%s: %zu addresses agree with addr2line\n", fixture_base_name(programs[i]),
                  compared);
    /* Each fixture has a dozen or more addresses with lines. */
    assert_true(compared >= 12);
    checked++;
  }
  if (checked == 0)
    skip();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_c_lines),          cmocka_unit_test(test_cxx_names),
      cmocka_unit_test(test_fortran_names),    cmocka_unit_test(test_split_debug),
      cmocka_unit_test(test_addr2line_agrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
