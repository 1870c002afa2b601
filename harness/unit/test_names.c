/* Readable names (report/names.h) from symbols as compilers write them:
 * C++ demangled, gfortran's names as the source writes them, outlined
 * OpenMP bodies named after their function, and what stays as it is. The
 * symbolizer's part, on real programs, is test_symbolize_files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/folded.h"
#include "profiler/report/names.h"

/* What raw reads as in ctx; want NULL: as it is. */
static void expect_name(const char *raw, const knit_name_context *ctx, const char *want)
{
  char *got = knit_readable_name(raw, ctx);
  if (want == NULL && got != NULL)
    fail_msg("%s: expected no change, got \"%s\"", raw, got);
  if (want != NULL && (got == NULL || strcmp(got, want) != 0))
    fail_msg("%s: expected \"%s\", got \"%s\"", raw, want, got ? got : "(unchanged)");
  free(got);
}

static const knit_name_context c_code = {.language = KNIT_LANGUAGE_OTHER};
static const knit_name_context no_dwarf = {.language = KNIT_LANGUAGE_UNKNOWN};
static const knit_name_context fortran = {.language = KNIT_LANGUAGE_FORTRAN,
                                          .main_program = "heat"};

static void test_cxx(void **state)
{
  (void)state;
  expect_name("_ZN7physics10Simulation4stepEi", &c_code, "physics::Simulation::step(int)");
  expect_name("_ZN7physics10Simulation4stepEi", &no_dwarf, "physics::Simulation::step(int)");
  expect_name("_ZN7physics4GridIdE5relaxEi", &c_code, "physics::Grid<double>::relax(int)");
  expect_name("_ZZN7physics4GridIdE5relaxEiENKUliE_clEi", &c_code,
              "physics::Grid<double>::relax(int)::{lambda(int)#1}::operator()(int) const");
  /* gcc's other clones keep the demangler's form. */
  expect_name("_Z3fooi.constprop.0", &c_code, "foo(int) [clone .constprop.0]");
  /* Not a valid mangling: as it is. */
  expect_name("_Zgarbage", &c_code, NULL);
}

static void test_outlined(void **state)
{
  (void)state;
  expect_name("_ZN7physics4GridIdE5relaxEi._omp_fn.0", &c_code,
              "physics::Grid<double>::relax(int) [omp_fn.0]");
  expect_name("_Z10tasks_overIiEvPT_i._omp_fn.12", &c_code,
              "void tasks_over<int>(int*, int) [omp_fn.12]");
  expect_name("compute_all._omp_fn.3", &c_code, "compute_all [omp_fn.3]");
  expect_name("compute_all._omp_fn.3", &no_dwarf, "compute_all [omp_fn.3]");
  expect_name("_Z3runv._omp_cpyfn.1", &c_code, "run() [omp_cpyfn.1]");
  /* clang 17 on names its bodies after their function. */
  expect_name("_Z4workv.omp_outlined", &c_code, "work() [omp_outlined]");
  expect_name("work.omp_outlined.1", &c_code, "work [omp_outlined.1]");
  expect_name("_Z4workv.omp_outlined_debug__", &c_code, "work() [omp_outlined_debug__]");
  /* Earlier clang names them after nothing: as they are. */
  expect_name(".omp_outlined.", &c_code, NULL);
  expect_name(".omp_outlined..7", &c_code, NULL);
  expect_name(".omp_outlined._debug__", &c_code, NULL);
  expect_name(".omp_task_entry.", &c_code, NULL);
  /* Every readable form is still an outlined body to the folded form. */
  assert_string_equal(knit_folded_frame_name("compute_all [omp_fn.3]"), "omp.outlined");
  assert_string_equal(knit_folded_frame_name("work() [omp_outlined]"), "omp.outlined");
  assert_true(knit_folded_is_wrapper("heat_mod::solve [omp_fn.0]"));
  assert_false(knit_folded_is_wrapper("foo(int) [clone .constprop.0]"));
  assert_false(knit_folded_is_wrapper("run() [omp_cpyfn.1]"));
}

static void test_fortran(void **state)
{
  (void)state;
  expect_name("__heat_mod_MOD_solve", &fortran, "heat_mod::solve");
  /* The module rule rests on the name alone: without DWARF too. */
  expect_name("__heat_mod_MOD_solve", &no_dwarf, "heat_mod::solve");
  expect_name("__knit_fortran_work_MOD_find_probe", &fortran, "knit_fortran_work::find_probe");
  expect_name("__heat_mod_MOD_solve._omp_fn.0", &fortran, "heat_mod::solve [omp_fn.0]");
  expect_name("MAIN__", &fortran, "heat");
  expect_name("task_work.1", &fortran, "task_work");
  expect_name("task_work.1._omp_fn.0", &fortran, "task_work [omp_fn.0]");
  expect_name("task_work.0.constprop.0.isra.0", &fortran, "task_work.constprop.0.isra.0");
  /* An external procedure's underscore goes in Fortran code only. */
  expect_name("solve_", &fortran, "solve");
  expect_name("solve_", &c_code, NULL);
  expect_name("_solve_", &fortran, NULL);
  /* The program's name needs the debug information; the number is
   * gfortran's only in Fortran code. */
  expect_name("MAIN__", &no_dwarf, NULL);
  expect_name("helper.1", &c_code, NULL);
  expect_name("helper.1", &no_dwarf, NULL);
  expect_name("__x_MOD_y", &c_code, NULL);
  /* Names that are not gfortran's. */
  expect_name("__MOD_x", &fortran, NULL);
  expect_name("__m_MOD_", &fortran, NULL);
}

static void test_c(void **state)
{
  (void)state;
  expect_name("main", &c_code, NULL);
  expect_name("compute_all", &no_dwarf, NULL);
  expect_name("work.constprop.0", &c_code, NULL);
  expect_name("", &c_code, NULL);
  expect_name("compute_all", NULL, NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cxx),
      cmocka_unit_test(test_outlined),
      cmocka_unit_test(test_fortran),
      cmocka_unit_test(test_c),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
