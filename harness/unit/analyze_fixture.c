/* The analyzer tests' fixture: see analyze_fixture.h. */
#include "analyze_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <cmocka.h>

knit_fixture knit_fx;

int knit_fixture_setup(void **state)
{
  (void)state;
  if (!knit_fx.isa || cs_open((cs_arch)knit_fx.isa->cs_arch, (cs_mode)knit_fx.isa->cs_mode,
                              &knit_fx.cs) != CS_ERR_OK)
    return -1;
  cs_option(knit_fx.cs, CS_OPT_DETAIL, CS_OPT_ON);
  knit_fx.insn = cs_malloc(knit_fx.cs);
  knit_fx.work = malloc(sizeof *knit_fx.work);
  return knit_fx.insn && knit_fx.work ? 0 : -1;
}

int knit_fixture_teardown(void **state)
{
  (void)state;
  free(knit_fx.work);
  knit_fx.work = NULL;
  if (knit_fx.insn)
    cs_free(knit_fx.insn, 1);
  knit_fx.insn = NULL;
  cs_close(&knit_fx.cs);
  return 0;
}

/* The same interval and rule. */
static void assert_same_recipe(const knit_recipe *a, const knit_recipe *b)
{
  assert_int_equal(a->start, b->start);
  assert_int_equal(a->end, b->end);
  assert_int_equal(a->cfa_base, b->cfa_base);
  assert_int_equal(a->cfa_offset, b->cfa_offset);
  assert_int_equal(a->ra_rule, b->ra_rule);
  assert_int_equal(a->ra_offset, b->ra_offset);
  assert_int_equal(a->fp_rule, b->fp_rule);
  assert_int_equal(a->fp_offset, b->fp_offset);
  assert_int_equal(a->flags, b->flags);
  assert_int_equal(a->fp_sp_delta, b->fp_sp_delta);
}

int knit_fixture_analyze(const uint8_t *code, size_t len, uint64_t addr, knit_recipe *out, int max)
{
  int n = knit_fx.isa->analyze(knit_fx.cs, knit_fx.insn, code, len, addr, out, max, NULL);
  assert_true(n > 0);
  assert_int_equal(out[0].start, addr);
  for (int i = 1; i < n; i++)
    assert_int_equal(out[i].start, out[i - 1].end);
  assert_int_equal(out[n - 1].end, addr + len);
  knit_recipe *again = calloc((size_t)max, sizeof *again);
  assert_non_null(again);
  assert_int_equal(
      knit_fx.isa->analyze(knit_fx.cs, knit_fx.insn, code, len, addr, again, max, knit_fx.work), n);
  for (int i = 0; i < n; i++)
    assert_same_recipe(&again[i], &out[i]);
  free(again);
  return n;
}
