/* knit audit on real files: this test's own executable and an -O2 workload
 * (compiler-generated code: at least 99.9% agreement on x86-64), the host's
 * libc (99.5%), the mock runtimes (no disagreement but guesses), files of the other ISAs (read and reported as theirs;
 * compared only when their analyzer exists) and files that are not ELF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "profiler/audit/audit.h"
#include "profiler/unwind/isa.h"

/* The targets. */
#define COMPILED_MIN_AGREEMENT 99.9
#define LIBC_MIN_AGREEMENT     99.5

#define HOST_LIBC    "/lib/x86_64-linux-gnu/libc.so.6"
#define AARCH64_LIBC "/usr/aarch64-linux-gnu/lib/libc.so.6"
#define PPC64LE_LIBC "/usr/powerpc64le-linux-gnu/lib/libc.so.6"
#define PPC64_LIBC   "/usr/powerpc64-linux-gnu/lib/libc.so.6"

static void print_result(const knit_audit_result *r)
{
  print_message("%s: %s, %zu functions, %zu compared, %.3f%% agree, "
                "%zu disagree, %zu not comparable\n",
                r->path, r->isa ? r->isa->name : "?", r->functions, r->instructions,
                knit_audit_agreement(r), r->disagree, r->not_comparable);
  for (int c = 0; c < KNIT_AUDIT_CAT_COUNT; c++)
    if (r->category[c])
      print_message("  %zu %s\n", r->category[c], knit_audit_category_name(c));
}

/* Audits path, listing at most a few disagreements, and checks what every
 * readable file must satisfy. Skips when the file is not there. */
static void audit(const char *path, knit_audit_result *r)
{
  if (access(path, R_OK) != 0)
    skip();
  knit_audit_options opt = {.verbose = true, .limit = 20};
  int rc = knit_audit_file(path, &opt, r, stderr);
  if (rc != 0)
    fail_msg("%s: %s", path, r->error);
  print_result(r);
  assert_non_null(r->isa);
  assert_true(r->functions > 0);
  assert_int_equal(r->instructions, r->agree + r->disagree);
  size_t skipped = 0, categorized = 0;
  for (int s = 0; s < KNIT_AUDIT_SKIP_COUNT; s++)
    skipped += r->skipped[s];
  for (int c = 0; c < KNIT_AUDIT_CAT_COUNT; c++)
    categorized += r->category[c];
  assert_int_equal(skipped, r->not_comparable);
  assert_int_equal(categorized, r->disagree);
}

static void expect_x86_64_agreement(const char *path, double min_percent, size_t min_instructions)
{
  knit_audit_result r;
  audit(path, &r);
  assert_ptr_equal(r.isa, &knit_isa_x86_64);
  assert_true(r.has_analyzer);
  assert_true(r.has_cfi);
  assert_true(r.instructions >= min_instructions);
  if (knit_audit_agreement(&r) < min_percent)
    fail_msg("%s: %.3f%% agreement, below %.1f%%", path, knit_audit_agreement(&r), min_percent);
}

static void test_self(void **state)
{
  (void)state;
  expect_x86_64_agreement("/proc/self/exe", COMPILED_MIN_AGREEMENT, 1000);
}

static void test_workload(void **state)
{
  (void)state;
  expect_x86_64_agreement(KNIT_AUDIT_WORKLOAD, COMPILED_MIN_AGREEMENT, 100);
}

static void test_workload_library(void **state)
{
  (void)state;
  expect_x86_64_agreement(KNIT_AUDIT_WORKLOAD_LIB, COMPILED_MIN_AGREEMENT, 20);
}

static void test_libc(void **state)
{
  (void)state;
  expect_x86_64_agreement(HOST_LIBC, LIBC_MIN_AGREEMENT, 100000);
}

/* A file of another ISA is read and reported as that ISA's. Its agreement
 * is held to the libc target once its analyzer exists; before that the
 * result must say that nothing was compared. */
static void expect_foreign(const char *path, const knit_isa_ops *isa)
{
  knit_audit_result r;
  audit(path, &r);
  assert_ptr_equal(r.isa, isa);
  assert_true(r.has_cfi);
  if (isa->analyze == NULL) {
    assert_false(r.has_analyzer);
    assert_int_equal(r.instructions, 0);
    return;
  }
  assert_true(r.has_analyzer);
  assert_true(r.instructions > 100000);
  if (knit_audit_agreement(&r) < LIBC_MIN_AGREEMENT)
    fail_msg("%s: %.3f%% agreement, below %.1f%%", path, knit_audit_agreement(&r),
             LIBC_MIN_AGREEMENT);
}

static void test_aarch64_libc(void **state)
{
  (void)state;
  expect_foreign(AARCH64_LIBC, &knit_isa_aarch64);
}

/* ppc64le code keeps the return address in r0 after mflr r0 and restores
 * LR with mtlr before its CFI says so: both descriptions hold there, and
 * the audit counts them apart as equivalent. */
static void test_ppc64le_libc(void **state)
{
  (void)state;
  knit_audit_result r;
  expect_foreign(PPC64LE_LIBC, &knit_isa_ppc64le);
  if (knit_isa_ppc64le.analyze == NULL)
    return;
  knit_audit_options opt = {0};
  assert_int_equal(knit_audit_file(PPC64LE_LIBC, &opt, &r, NULL), 0);
  print_message("  equivalent: %zu copied by mflr, %zu restored by mtlr\n", r.ra_copied,
                r.ra_restored);
  assert_true(r.ra_copied > 0);
  assert_true(r.ra_copied + r.ra_restored <= r.agree);
}

/* Big-endian ppc64 (ELFv1): the same POWER model, its instructions decoded
 * big-endian and its functions found through their .opd descriptors; the
 * whole libc must be read as ppc64's, not ppc64le's, and agree as well. */
static void test_ppc64_libc(void **state)
{
  (void)state;
  expect_foreign(PPC64_LIBC, &knit_isa_ppc64);
}

/* The mock runtimes (built here, by the compiler the tests use): every
 * sample on them walks through their code, and gcc splits their entry
 * points into hot and .cold parts. A disagreement there that the analyzer
 * does not flag as a guess is a wrong step of a real walk: the mock's
 * GOMP_parallel.cold, entered a second time for the join, was 32 bytes
 * off there (timer runs of gcc programs had partial paths and wrong steps
 * in the master's join), which the audit had excused as "after a path
 * end". A sanitized build's mocks may have guesses (ASan's mock-intel
 * has one); none may be anything else. */
static void expect_mock_runtime(const char *path)
{
  knit_audit_result r;
  audit(path, &r);
  assert_ptr_equal(r.isa, &knit_isa_x86_64);
  assert_true(r.instructions > 5000);
  for (int c = 0; c < KNIT_AUDIT_CAT_COUNT; c++)
    if (c != KNIT_AUDIT_CAT_UNCERTAIN && r.category[c])
      fail_msg("%s: %zu disagreements %s", path, r.category[c], knit_audit_category_name(c));
}

static void test_mock_runtimes(void **state)
{
  (void)state;
  expect_mock_runtime(KNIT_AUDIT_MOCK_GOMP);
  expect_mock_runtime(KNIT_AUDIT_MOCK_INTEL);
  expect_mock_runtime(KNIT_AUDIT_MOCK_PGI);
}

static void test_not_elf(void **state)
{
  (void)state;
  knit_audit_result r;
  knit_audit_options opt = {0};
  /* This test's source: text, not ELF. */
  assert_int_equal(knit_audit_file(__FILE__, &opt, &r, NULL), -1);
  assert_non_null(strstr(r.error, "not an ELF file"));
  assert_int_equal(r.functions, 0);
  assert_int_equal(knit_audit_file("/nonexistent/knit-audit", &opt, &r, NULL), -1);
  assert_non_null(strstr(r.error, "No such file"));
  char err[256];
  assert_null(knit_audit_open("/dev/null", err, sizeof err));
  assert_true(err[0] != '\0');
}

/* The verbose listing: one line per disagreement, at most limit of them,
 * each naming address, function and both rules. */
static void test_listing(void **state)
{
  (void)state;
  if (access(HOST_LIBC, R_OK) != 0)
    skip();
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  knit_audit_options opt = {.verbose = true, .limit = 3};
  knit_audit_result r;
  assert_int_equal(knit_audit_file(HOST_LIBC, &opt, &r, out), 0);
  fclose(out);
  if (r.disagree == 0) {
    free(buf);
    skip();
  }
  size_t lines = 0;
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    lines++;
    assert_non_null(strstr(line, "0x"));
    assert_non_null(strstr(line, "recipe cfa="));
    assert_non_null(strstr(line, "; cfi cfa="));
  }
  assert_int_equal(lines, r.disagree < 3 ? r.disagree : 3);
  assert_int_equal(r.printed, lines);
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_self),
      cmocka_unit_test(test_workload),
      cmocka_unit_test(test_workload_library),
      cmocka_unit_test(test_libc),
      cmocka_unit_test(test_aarch64_libc),
      cmocka_unit_test(test_ppc64le_libc),
      cmocka_unit_test(test_ppc64_libc),
      cmocka_unit_test(test_mock_runtimes),
      cmocka_unit_test(test_not_elf),
      cmocka_unit_test(test_listing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
