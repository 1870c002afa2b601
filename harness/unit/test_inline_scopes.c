/* The calls the compiler inlined, read from the DWARF of real programs
 * (symbols.cmake builds fixtures/inline.c by gcc and clang-14, -O2 -g):
 * at each call of fixture_site the symbolizer gives the inlined calls
 * around it, outermost first, each with its function and call line, and
 * the call's own line; none where nothing was inlined, and none when not
 * asked for.
 *
 * The fixture prints "label offset" for each call of fixture_site (its
 * return address as an ELF virtual address, as knit records it); the
 * source lines carry "@label" comments. A fixture whose compiler the
 * machine lacks is left out and named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "harness/unit/fixture_sites.h"
#include "profiler/report/symbolize.h"

#define FIXTURE(name) KNIT_FIXTURE_DIR "/" name
#define SOURCE        KNIT_FIXTURE_SRC "/inline.c"


/* The line of the fixture's source that carries "@label". */
static unsigned marker_line(const char *label)
{
  return fixture_marker_line(SOURCE, label);
}

/* The symbol of the call labelled label (at its return address minus one,
 * as the report looks calls up). */
static knit_symbol lookup_call(knit_symbolizer *s, const char *program, const site *sites, size_t n,
                               const char *label)
{
  for (size_t i = 0; i < n; i++) {
    if (strcmp(sites[i].label, label) == 0) {
      knit_symbol sym;
      knit_symbolizer_lookup(s, program, sites[i].offset - 1, sites[i].offset, &sym);
      return sym;
    }
  }
  fail_msg("%s printed no call \"%s\"", program, label);
  return (knit_symbol){0};
}

/* One expected inlined call: its function and the label of its call. */
typedef struct expected_call {
  const char *function;
  const char *call_label;
} expected_call;

static void expect_chain(const char *program, const knit_symbol *sym, const char *label,
                         const expected_call *want, size_t count)
{
  if (strcmp(sym->function, "fixture_physical") != 0)
    fail_msg("%s, call %s: in \"%s\", expected fixture_physical", program, label, sym->function);
  if (sym->inlined_count != count)
    fail_msg("%s, call %s: %u inlined calls, expected %zu", program, label, sym->inlined_count,
             count);
  for (size_t i = 0; i < count; i++) {
    const knit_inline_level *l = &sym->inlined[i];
    unsigned line = marker_line(want[i].call_label);
    if (strcmp(l->function, want[i].function) != 0)
      fail_msg("%s, call %s: inlined call %zu is \"%s\", expected \"%s\"", program, label, i,
               l->function, want[i].function);
    if (l->call_file == NULL || strcmp(fixture_base_name(l->call_file), "inline.c") != 0 ||
        l->call_line != line)
      fail_msg("%s, call %s: %s called from %s:%u, expected inline.c:%u", program, label,
               l->function, l->call_file ? l->call_file : "(unknown)", l->call_line, line);
  }
  /* The address's own line is the innermost call's. */
  if (sym->file == NULL || strcmp(fixture_base_name(sym->file), "inline.c") != 0 ||
      sym->line != marker_line(label))
    fail_msg("%s, call %s: at %s:%u, expected inline.c:%u", program, label,
             sym->file ? sym->file : "(no line)", sym->line, marker_line(label));
}

static void check_program(const char *program)
{
  site sites[8];
  size_t n = fixture_run_sites(program, sites, 8);
  knit_symbolizer *s = knit_symbolizer_new();
  knit_symbolizer_set_inline(s, 1);

  knit_symbol sym = lookup_call(s, program, sites, n, "physical");
  expect_chain(program, &sym, "physical", NULL, 0);

  sym = lookup_call(s, program, sites, n, "single");
  expect_chain(program, &sym, "single", (expected_call[]){{"inline_outer", "call_outer"}}, 1);

  sym = lookup_call(s, program, sites, n, "nested");
  expect_chain(program, &sym, "nested",
               (expected_call[]){{"inline_outer", "call_outer"}, {"inline_inner", "call_inner"}},
               2);
  /* Asked again: the cached answer is the same. */
  knit_symbol again = lookup_call(s, program, sites, n, "nested");
  assert_ptr_equal(again.inlined, sym.inlined);
  assert_int_equal(again.inlined_count, 2);
  knit_symbolizer_free(s);

  /* Not asked for: none, and the line is still the innermost's. */
  s = knit_symbolizer_new();
  sym = lookup_call(s, program, sites, n, "nested");
  assert_int_equal(sym.inlined_count, 0);
  assert_null(sym.inlined);
  assert_int_equal(sym.line, marker_line("nested"));
  knit_symbolizer_free(s);
}

static void test_gcc(void **state)
{
  (void)state;
  check_program(FIXTURE("inline_gcc"));
}

static void test_clang(void **state)
{
  (void)state;
  if (fixture_present(FIXTURE("inline_clang")))
    check_program(FIXTURE("inline_clang"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gcc),
      cmocka_unit_test(test_clang),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
