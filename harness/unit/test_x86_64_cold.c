/* Parts of hot/cold split functions on x86-64 (gcc's foo.cold, entered by
 * a jump from foo with foo's frame in place): the analyzer from recorded
 * bytes of gcc 12 -O2 code, then on a function of this test that gcc
 * splits (test_x86_64_cold_subjects.c): the bounds find its parent, the
 * recipe cache analyzes it from the parent's state, and knit audit compares
 * every instruction of it with the CFI. */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <capstone/capstone.h>

#include "analyze_fixture.h"
#include "profiler/audit/audit.h"
#include "profiler/unwind/bounds.h"
#include "profiler/unwind/decoder.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe_cache.h"

long knit_cold_subject(long x, long y);

static int setup(void **state)
{
  /* Capstone's memory functions are the process's: set to knit's before
   * the first handle, as libknit.so does, so that no handle opened with
   * malloc is closed with knit's free (which keeps the memory). */
  if (!knit_decoder_setup())
    return -1;
  return knit_fixture_setup(state);
}

/* gcc 12 -O2 -fasynchronous-unwind-tables, linked -shared -nostdlib with
 * stubs (hot at 0x1070, hot.cold at 0x1030, as in the library):
 *   __attribute__((cold)) void report(const char *, int, long);
 *   extern long work(long);
 *   long hot(long x, long y) {
 *     long a = work(x), b = work(y);
 *     if (__builtin_expect(x < 0, 0)) {
 *       report("negative", 1, a); report("again", 2, b); return -1;
 *     }
 *     return a + b + work(a * b);
 *   }
 * hot: push r12; push rbp; push rbx; sub rsp,16; ...; js hot.cold; ...
 * hot.cold: the two calls, then jmp back into hot's epilogue. Its CFI is
 * CFA = rsp+48, rbp at CFA-24, throughout. */
static const uint8_t hot_o2[] = {
    0x41, 0x54, 0x49, 0x89, 0xf4, 0x55, 0x48, 0x89, 0xfd, 0x53, 0x48, 0x83, 0xec, 0x10,
    0xe8, 0x9d, 0xff, 0xff, 0xff, 0x4c, 0x89, 0xe7, 0x48, 0x89, 0xc3, 0xe8, 0x92, 0xff,
    0xff, 0xff, 0x48, 0x85, 0xed, 0x0f, 0x88, 0x99, 0xff, 0xff, 0xff, 0x48, 0x8d, 0x2c,
    0x03, 0x48, 0x0f, 0xaf, 0xd8, 0x48, 0x89, 0xdf, 0xe8, 0x79, 0xff, 0xff, 0xff, 0x48,
    0x01, 0xe8, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0x5d, 0x41, 0x5c, 0xc3,
};
static const uint8_t cold_o2[] = {
    0x48, 0x89, 0xda, 0xbe, 0x01, 0x00, 0x00, 0x00, 0x48, 0x89, 0x44, 0x24, 0x08, 0x48,
    0x8d, 0x3d, 0xbc, 0x0f, 0x00, 0x00, 0xe8, 0xc7, 0xff, 0xff, 0xff, 0x48, 0x8b, 0x54,
    0x24, 0x08, 0xbe, 0x02, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0xaf, 0x0f, 0x00, 0x00,
    0xe8, 0xb1, 0xff, 0xff, 0xff, 0x48, 0x83, 0xc8, 0xff, 0xe9, 0x42, 0x00, 0x00, 0x00,
};

/* The same with -fno-omit-frame-pointer: hot.cold's CFI is CFA = rbp+16,
 * rbp at CFA-16, throughout. */
static const uint8_t hot_fp[] = {
    0x55, 0x48, 0x89, 0xe5, 0x41, 0x55, 0x49, 0x89, 0xf5, 0x41, 0x54, 0x49, 0x89, 0xfc, 0x53,
    0x48, 0x83, 0xec, 0x18, 0xe8, 0x98, 0xff, 0xff, 0xff, 0x4c, 0x89, 0xef, 0x48, 0x89, 0xc3,
    0xe8, 0x8d, 0xff, 0xff, 0xff, 0x4d, 0x85, 0xe4, 0x0f, 0x88, 0x94, 0xff, 0xff, 0xff, 0x4c,
    0x8d, 0x24, 0x03, 0x48, 0x0f, 0xaf, 0xd8, 0x48, 0x89, 0xdf, 0xe8, 0x74, 0xff, 0xff, 0xff,
    0x4c, 0x01, 0xe0, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x41, 0x5c, 0x41, 0x5d, 0x5d, 0xc3,
};
static const uint8_t cold_fp[] = {
    0x48, 0x89, 0xda, 0xbe, 0x01, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0xc1, 0x0f, 0x00,
    0x00, 0x48, 0x89, 0x45, 0xd8, 0xe8, 0xc8, 0xff, 0xff, 0xff, 0x48, 0x8b, 0x55, 0xd8,
    0xbe, 0x02, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0xb1, 0x0f, 0x00, 0x00, 0xe8, 0xb3,
    0xff, 0xff, 0xff, 0x48, 0x83, 0xc8, 0xff, 0xe9, 0x49, 0x00, 0x00, 0x00,
};

#define HOT_ADDR    0x1070u
#define COLD_ADDR   0x1030u
#define MAX_RECIPES 64

/* Analyzes the parent for its jump into the part, then the part from that
 * state, and checks that one rule covers every byte of the part. */
static void check_part(const uint8_t *hot, size_t hot_len, const uint8_t *cold, size_t cold_len,
                       uint8_t cfa_base, int32_t cfa_offset, int32_t fp_offset)
{
  const knit_isa_ops *isa = &knit_isa_x86_64;
  knit_recipe r[MAX_RECIPES];
  knit_part_entries at_jumps;
  int n = isa->analyze_entered(knit_fx.cs, knit_fx.insn, hot, hot_len, HOT_ADDR, NULL, COLD_ADDR,
                               COLD_ADDR + cold_len, &at_jumps, r, MAX_RECIPES, NULL);
  assert_true(n > 0);
  assert_int_equal(at_jumps.count, 1);
  assert_non_null(knit_part_entry_at(&at_jumps, COLD_ADDR));
  /* The parent's own recipes are those of the plain entry point. */
  knit_recipe plain[MAX_RECIPES];
  assert_int_equal(
      isa->analyze(knit_fx.cs, knit_fx.insn, hot, hot_len, HOT_ADDR, plain, MAX_RECIPES, NULL), n);
  assert_memory_equal(r, plain, (size_t)n * sizeof r[0]);

  n = isa->analyze_entered(knit_fx.cs, knit_fx.insn, cold, cold_len, COLD_ADDR, &at_jumps, 0, 0,
                           NULL, r, MAX_RECIPES, NULL);
  assert_int_equal(n, 1);
  assert_int_equal(r[0].start, COLD_ADDR);
  assert_int_equal(r[0].end, COLD_ADDR + cold_len);
  assert_int_equal(r[0].cfa_base, cfa_base);
  assert_int_equal(r[0].cfa_offset, cfa_offset);
  assert_int_equal(r[0].ra_rule, KNIT_RA_AT_CFA);
  assert_int_equal(r[0].ra_offset, -8);
  assert_int_equal(r[0].fp_rule, KNIT_FP_AT_CFA);
  assert_int_equal(r[0].fp_offset, fp_offset);
  assert_int_equal(r[0].flags & KNIT_RECIPE_UNCERTAIN, 0);

  /* Taken as entered by a call, as before, the part was wrong. */
  n = isa->analyze(knit_fx.cs, knit_fx.insn, cold, cold_len, COLD_ADDR, r, MAX_RECIPES, NULL);
  assert_true(n > 0);
  assert_int_equal(r[0].cfa_offset, 8);
}

static void test_cold_part_from_frameless_parent(void **state)
{
  (void)state;
  check_part(hot_o2, sizeof hot_o2, cold_o2, sizeof cold_o2, KNIT_CFA_SP, 48, -24);
}

static void test_cold_part_from_frame_pointer_parent(void **state)
{
  (void)state;
  check_part(hot_fp, sizeof hot_fp, cold_fp, sizeof cold_fp, KNIT_CFA_FP, 16, -16);
}

/* No jump into the range asked for (or only into the code itself): none found. */
static void test_no_jump_found(void **state)
{
  (void)state;
  knit_recipe r[MAX_RECIPES];
  knit_part_entries at_jumps;
  assert_true(knit_isa_x86_64.analyze_entered(knit_fx.cs, knit_fx.insn, hot_o2, sizeof hot_o2,
                                              HOT_ADDR, NULL, 0x2000, 0x2100, &at_jumps, r,
                                              MAX_RECIPES, NULL) > 0);
  assert_int_equal(at_jumps.count, 0);
  assert_true(knit_isa_x86_64.analyze_entered(knit_fx.cs, knit_fx.insn, hot_o2, sizeof hot_o2,
                                              HOT_ADDR, NULL, HOT_ADDR + 0x27, HOT_ADDR + 0x28,
                                              &at_jumps, r, MAX_RECIPES, NULL) > 0);
  assert_int_equal(at_jumps.count, 0);
}

/* A part entered at two places, as gcc 12 -O2 lays out the mock runtime's
 * GOMP_parallel (mockrt/gomp/gomp.h, mockrt_gomp_run_region): the tool's
 * side of the fork and of the join are both unlikely, so both go to
 * GOMP_parallel.cold, entered by a jne before the body and by another
 * after it, with the same frame (CFA = rsp+1104). The fork block pushes
 * four stack arguments, calls, pops them with add $0x20,%rsp and jumps
 * back; the join block after that jump is reached by no path of the part.
 * Analyzed from the part's start alone it was a guess, the state before
 * the add (rsp+1136): the master's walks from its join read the return
 * address 32 bytes too high, a stack address, and every timer run of a
 * gcc-built program on the mock had partial paths
 * (<partial>;0x7ff...;<omp-overhead>) and wrong steps in libgomp.so.1.
 * Bytes and vaddrs as in the library (the parent at 0xa180, the part at
 * 0x44ca); its CFI says rsp+1104 throughout the join block. */
static const uint8_t gomp_parallel[] = {
    0x41, 0x55, 0x41, 0x89, 0xd0, 0x41, 0x54, 0x55, 0x48, 0x89, 0xf5, 0x53, 0x48, 0x89, 0xfb, 0x48,
    0x81, 0xec, 0x28, 0x04, 0x00, 0x00, 0x48, 0x8b, 0x05, 0xfb, 0xcd, 0x00, 0x00, 0x4c, 0x8b, 0x8c,
    0x24, 0x48, 0x04, 0x00, 0x00, 0x64, 0x44, 0x8b, 0x98, 0xe0, 0x00, 0x00, 0x00, 0x45, 0x85, 0xdb,
    0x75, 0x17, 0x64, 0x44, 0x8b, 0x10, 0x45, 0x85, 0xd2, 0x74, 0x65, 0x8b, 0x3d, 0xff, 0xcf, 0x00,
    0x00, 0x85, 0xff, 0x0f, 0x85, 0x01, 0xa3, 0xff, 0xff, 0x4c, 0x8d, 0x6c, 0x24, 0x10, 0x4c, 0x8d,
    0xa4, 0x24, 0xc0, 0x00, 0x00, 0x00, 0x6a, 0x00, 0x48, 0x89, 0xe9, 0x6a, 0x00, 0x48, 0x89, 0xda,
    0x4c, 0x89, 0xee, 0x4c, 0x89, 0xe7, 0xe8, 0xd5, 0x57, 0x00, 0x00, 0x5a, 0x59, 0x48, 0x89, 0xef,
    0xff, 0xd3, 0x8b, 0x05, 0xc8, 0xcf, 0x00, 0x00, 0x85, 0xc0, 0x0f, 0x85, 0x00, 0xa3, 0xff, 0xff,
    0x4c, 0x89, 0xee, 0x4c, 0x89, 0xe7, 0xe8, 0x05, 0x5c, 0x00, 0x00, 0x48, 0x81, 0xc4, 0x28, 0x04,
    0x00, 0x00, 0x5b, 0x5d, 0x41, 0x5c, 0x41, 0x5d, 0xc3, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00,
    0x4c, 0x89, 0x0c, 0x24, 0x89, 0x54, 0x24, 0x0c, 0xe8, 0xa3, 0x5e, 0x00, 0x00, 0x44, 0x8b, 0x44,
    0x24, 0x0c, 0x4c, 0x8b, 0x0c, 0x24, 0xeb, 0x83,
};
static const uint8_t gomp_parallel_cold[] = {
    /* 0x44ca: the fork block (lea, lea, four pushes, call, add $0x20,%rsp, jmp back) */
    0x4c,
    0x8d,
    0x6c,
    0x24,
    0x10,
    0x4c,
    0x8d,
    0xa4,
    0x24,
    0xc0,
    0x00,
    0x00,
    0x00,
    0x56,
    0x48,
    0x89,
    0xe9,
    0x6a,
    0x00,
    0x48,
    0x89,
    0xda,
    0x4c,
    0x89,
    0xee,
    0x4c,
    0x89,
    0xe7,
    0x6a,
    0x00,
    0x41,
    0x51,
    0x4c,
    0x8d,
    0x8c,
    0x24,
    0x70,
    0x04,
    0x00,
    0x00,
    0xe8,
    0xb3,
    0xfe,
    0xff,
    0xff,
    0x48,
    0x83,
    0xc4,
    0x20,
    0xe9,
    0xed,
    0x5c,
    0x00,
    0x00,
    /* 0x4500: the join block (two moves, call, jmp back) */
    0x4c,
    0x89,
    0xee,
    0x4c,
    0x89,
    0xe7,
    0xe8,
    0x8e,
    0xff,
    0xff,
    0xff,
    0xe9,
    0xfb,
    0x5c,
    0x00,
    0x00,
};
#define GP_ADDR      0xa180u
#define GP_COLD_ADDR 0x44cau
#define GP_JOIN_ADDR 0x4500u
#define GP_FRAME     1104

/* The rule at pc of n recipes, which must cover it. */
static const knit_recipe *rule_at(const knit_recipe *r, int n, uint64_t pc)
{
  for (int i = 0; i < n; i++)
    if (r[i].start <= pc && pc < r[i].end)
      return &r[i];
  fail_msg("no recipe covers %#llx", (unsigned long long)pc);
  return NULL;
}

static void check_gomp_parallel_cold(const knit_recipe *r, int n)
{
  /* The fork block: the parent's frame, then the four pushes. */
  assert_int_equal(rule_at(r, n, GP_COLD_ADDR)->cfa_offset, GP_FRAME);
  assert_int_equal(rule_at(r, n, 0x44f7)->cfa_offset, GP_FRAME + 32); /* after the call */
  assert_int_equal(rule_at(r, n, 0x44fb)->cfa_offset, GP_FRAME);      /* after the add */
  /* The join block, every instruction of it, and the return address of
   * its call (0x450b) that the master's walks from the join step through. */
  for (uint64_t pc = GP_JOIN_ADDR; pc < GP_COLD_ADDR + sizeof gomp_parallel_cold; pc++) {
    const knit_recipe *j = rule_at(r, n, pc);
    assert_int_equal(j->cfa_base, KNIT_CFA_SP);
    assert_int_equal(j->cfa_offset, GP_FRAME);
    assert_int_equal(j->ra_offset, -8);
    assert_int_equal(j->flags & KNIT_RECIPE_UNCERTAIN, 0);
  }
}

static void test_part_entered_twice(void **state)
{
  (void)state;
  const knit_isa_ops *isa = &knit_isa_x86_64;
  knit_recipe r[MAX_RECIPES];
  knit_part_entries at_jumps;
  int n = isa->analyze_entered(
      knit_fx.cs, knit_fx.insn, gomp_parallel, sizeof gomp_parallel, GP_ADDR, NULL, GP_COLD_ADDR,
      GP_COLD_ADDR + sizeof gomp_parallel_cold, &at_jumps, r, MAX_RECIPES, NULL);
  assert_true(n > 0);
  /* Both jumps, each with the parent's frame. */
  assert_int_equal(at_jumps.count, 2);
  const knit_jump_state *fork = knit_part_entry_at(&at_jumps, GP_COLD_ADDR);
  const knit_jump_state *join = knit_part_entry_at(&at_jumps, GP_JOIN_ADDR);
  assert_non_null(fork);
  assert_non_null(join);
  assert_int_equal(fork->rule.cfa_offset, GP_FRAME);
  assert_int_equal(join->rule.cfa_offset, GP_FRAME);

  n = isa->analyze_entered(knit_fx.cs, knit_fx.insn, gomp_parallel_cold, sizeof gomp_parallel_cold,
                           GP_COLD_ADDR, &at_jumps, 0, 0, NULL, r, MAX_RECIPES, NULL);
  assert_true(n > 0);
  check_gomp_parallel_cold(r, n);

  /* The recipe cache, as the handler uses it, from a bounds table that
   * names the parent. Module 9: the cache is process-wide (7 and 8 are
   * the other tests'). Each function at its vaddr in a buffer of its own:
   * base is the same for both only if they are laid out as in the
   * library, so the parts are copied there. */
  static uint8_t image[0xa238 - 0x44ca];
  memcpy(image, gomp_parallel_cold, sizeof gomp_parallel_cold);
  memcpy(image + (GP_ADDR - GP_COLD_ADDR), gomp_parallel, sizeof gomp_parallel);
  const uint64_t base = (uint64_t)(uintptr_t)image - GP_COLD_ADDR;
  uint64_t starts[] = {GP_COLD_ADDR, GP_ADDR};
  uint64_t ends[] = {GP_COLD_ADDR + sizeof gomp_parallel_cold, GP_ADDR + sizeof gomp_parallel};
  uint64_t parents[] = {GP_ADDR, 0};
  knit_func_table funcs = {.start = starts, .end = ends, .count = 2, .parent = parents};
  assert_true(knit_decoder_setup());
  knit_decoder dec;
  memset(&dec, 0, sizeof dec);
  assert_true(knit_decoder_open(&dec, &knit_isa_x86_64));
  static knit_recipe_scratch scratch;
  uint64_t built = 0;
  const knit_recipe *c = knit_recipe_cache_get_in(
      &dec, &scratch, 9, &funcs, base, base + GP_COLD_ADDR, base + ends[0], base + 0x450b, &built);
  assert_non_null(c);
  assert_int_equal(built, 2); /* the parent, then the part */
  assert_int_equal(c->cfa_base, KNIT_CFA_SP);
  assert_int_equal(c->cfa_offset, GP_FRAME);
  knit_decoder_close(&dec);
}

/* ---- the split function of this test ---- */

static uint64_t exe_base;

static int find_exe(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  exe_base = info->dlpi_addr; /* the first entry is the program */
  return 1;
}

/* The part of knit_cold_subject, found by the bounds' scan. */
static void find_part(const knit_func_table *t, uint64_t *start, uint64_t *end)
{
  uint64_t hot = (uint64_t)(uintptr_t)knit_cold_subject - exe_base;
  size_t parts = 0;
  assert_non_null(t->parent);
  for (size_t i = 0; i < t->count; i++) {
    if (t->parent[i] != hot)
      continue;
    *start = t->start[i];
    *end = t->end[i];
    parts++;
  }
  assert_int_equal(parts, 1);
  uint64_t ps, pe;
  assert_true(knit_bounds_parent(t, *start, &ps, &pe));
  assert_int_equal(ps, hot);
  assert_false(knit_bounds_parent(t, hot, &ps, &pe));
}

static void test_split_function_of_this_test(void **state)
{
  (void)state;
  dl_iterate_phdr(find_exe, NULL);
  char err[256];
  knit_audit_target *t = knit_audit_open("/proc/self/exe", err, sizeof err);
  assert_non_null(t);
  uint64_t start = 0, end = 0;
  find_part(knit_audit_target_functions(t), &start, &end);

  /* knit audit compares every instruction of the part with the CFI. */
  knit_audit_result res;
  memset(&res, 0, sizeof res);
  assert_true(knit_audit_function(t, start, end, NULL, &res, NULL));
  assert_true(res.instructions > 5);
  assert_int_equal(res.disagree, 0);
  assert_int_equal(res.skipped[KNIT_AUDIT_SKIP_JUMP_ENTERED], 0);

  /* The recipe cache, as the handler uses it, finds the same frame. */
  assert_true(knit_decoder_setup());
  knit_decoder dec;
  memset(&dec, 0, sizeof dec);
  assert_true(knit_decoder_open(&dec, &knit_isa_x86_64));
  static knit_recipe_scratch scratch;
  uint64_t built = 0;
  const knit_recipe *r =
      knit_recipe_cache_get_in(&dec, &scratch, 7, knit_audit_target_functions(t), exe_base,
                               start + exe_base, end + exe_base, start + exe_base, &built);
  assert_non_null(r);
  assert_int_equal(built, 2); /* the parent, then the part */
  assert_true(r->cfa_base != KNIT_CFA_SP || r->cfa_offset > 8);
  knit_decoder_close(&dec);
  knit_audit_close(t);
}

/* A chain of parts, as gcc 12 -O2 lays out a function whose unlikely
 * branch tail-calls a cold function called from nowhere else (the mock
 * runtime's barrier): the parent pushes three registers and jumps into its
 * .cold part, which pops them and jumps to the cold function. The bounds
 * make the .cold part the parent of the cold function; the cold function's
 * entry state is the parent's state handed on through the .cold part, and
 * taking the .cold part as entered by a call would misplace its frame by
 * the 24 bytes it pops. Module vaddrs 0x1000.. in a buffer of the test. */
static const uint8_t chain_code[] = {
    /* 0x1000 parent */
    0x55,                               /* push %rbp */
    0x53,                               /* push %rbx */
    0x50,                               /* push %rax */
    0x85, 0xff,                         /* test %edi,%edi */
    0x0f, 0x85, 0x05, 0x00, 0x00, 0x00, /* jne 0x1010 (the .cold part) */
    0x58,                               /* pop %rax */
    0x5b,                               /* pop %rbx */
    0x5d,                               /* pop %rbp */
    0xc3,                               /* ret */
    0xcc,
    /* 0x1010 the parent's .cold part */
    0x58,                         /* pop %rax */
    0x5b,                         /* pop %rbx */
    0x5d,                         /* pop %rbp */
    0xe9, 0x08, 0x00, 0x00, 0x00, /* jmp 0x1020 (a tail call) */
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
    /* 0x1020 the cold function */
    0x41, 0x57,             /* push %r15 */
    0x41, 0x56,             /* push %r14 */
    0x48, 0x83, 0xec, 0x18, /* sub $0x18,%rsp */
    0x90,                   /* 0x1028: nop */
    0x48, 0x83, 0xc4, 0x18, /* add $0x18,%rsp */
    0x41, 0x5e,             /* pop %r14 */
    0x41, 0x5f,             /* pop %r15 */
    0xc3,                   /* ret */
};

static void test_part_of_a_part(void **state)
{
  (void)state;
  uint64_t starts[] = {0x1000, 0x1010, 0x1020}, ends[] = {0x100f, 0x1018, 0x1032};
  uint64_t parents[] = {0, 0x1000, 0x1010};
  knit_func_table funcs = {.start = starts, .end = ends, .count = 3, .parent = parents};
  const uint64_t base = (uint64_t)(uintptr_t)chain_code - 0x1000;

  assert_true(knit_decoder_setup());
  knit_decoder dec;
  memset(&dec, 0, sizeof dec);
  assert_true(knit_decoder_open(&dec, &knit_isa_x86_64));
  static knit_recipe_scratch scratch;
  uint64_t built = 0;
  /* Module 8: the cache is process-wide, and module 7 is the test's own. */
  const knit_recipe *r = knit_recipe_cache_get_in(&dec, &scratch, 8, &funcs, base, base + 0x1020,
                                                  base + 0x1032, base + 0x1028, &built);
  assert_non_null(r);
  assert_int_equal(built, 3); /* the parent, its .cold part, the cold function */
  /* Entered with the caller's frame: 8 (return address) + 16 + 0x18. */
  assert_int_equal(r->cfa_base, KNIT_CFA_SP);
  assert_int_equal(r->cfa_offset, 0x30);
  assert_int_equal(r->ra_offset, -8);
  /* The .cold part, published on the way, pops the parent's registers. */
  r = knit_recipe_cache_get_in(&dec, &scratch, 8, &funcs, base, base + 0x1010, base + 0x1018,
                               base + 0x1010, &built);
  assert_non_null(r);
  assert_int_equal(r->cfa_offset, 32);
  knit_decoder_close(&dec);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cold_part_from_frameless_parent),
      cmocka_unit_test(test_cold_part_from_frame_pointer_parent),
      cmocka_unit_test(test_no_jump_found),
      cmocka_unit_test(test_split_function_of_this_test),
      cmocka_unit_test(test_part_of_a_part),
      cmocka_unit_test(test_part_entered_twice),
  };
  knit_fx.isa = &knit_isa_x86_64;
  return cmocka_run_group_tests(tests, setup, knit_fixture_teardown);
}
