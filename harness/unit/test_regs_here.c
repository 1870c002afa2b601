/* Unit tests of knit_native_regs_here (profiler/unwind/<isa>/<isa>_context.c):
 * the registers it gives are the caller's, as getcontext would give them,
 * and a walk from them finds the caller and the callers above it.
 *
 * Live, on the tree's own ISA (natively, or under QEMU in a cross tree): a
 * chain outer -> middle -> inner of this test's own functions, with inner
 * taking its registers both ways.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <cmocka.h>

#include "measure/format.h"
#include "live_unwinder.h"
#include "unwind/unwinder.h"

#define MAX_FRAMES 128

typedef struct walk {
  knit_regs regs;
  knit_frame frames[MAX_FRAMES];
  int n;
  knit_unwind_end end;
} walk;

static knit_unwinder unwinder;
static walk from_here, from_getcontext;

static void unwind_from(walk *w)
{
  unwinder.stop_at = 0;
  unwinder.stop_module = KNIT_MODULE_UNKNOWN;
  w->n = knit_unwind(&unwinder, &w->regs, w->frames, MAX_FRAMES, &w->end);
}

/* Each function does work after its call, so that no call is a tail call
 * and every frame stays on the stack. */
__attribute__((noinline)) static int inner(int v)
{
  knit_native_regs_here(&from_here.regs);
  ucontext_t uc;
  getcontext(&uc);
  knit_native_regs_from_ucontext(&uc, &from_getcontext.regs);
  /* Walked here, while the frames are live. */
  unwind_from(&from_here);
  unwind_from(&from_getcontext);
  __asm__ __volatile__("" : "+r"(v));
  return v + 1;
}

__attribute__((noinline)) static int middle(int v)
{
  int r = inner(v + 1);
  __asm__ __volatile__("" : "+r"(r));
  return r * 2;
}

__attribute__((noinline)) static int outer(int v)
{
  int r = middle(v + 1);
  __asm__ __volatile__("" : "+r"(r));
  return r + 3;
}

/* The start of the function that holds a frame's pc (a return address
 * belongs to the call before it), or 0. */
static uint64_t function_of(const knit_frame *f, bool innermost)
{
  uint64_t pc = innermost ? f->pc : f->pc - 1;
  const knit_module *m = knit_loadmap_find(knit_loadmap_current(), pc);
  uint64_t start, end;
  if (!m || !knit_bounds_lookup(&m->funcs, pc - m->base, &start, &end))
    return 0;
  return start + m->base;
}

static uint64_t address_of(int (*fn)(int))
{
  return knit_native_code_of((void (*)(void))fn);
}

static void walk_both(void)
{
  memset(&from_here, 0, sizeof from_here);
  memset(&from_getcontext, 0, sizeof from_getcontext);
  assert_int_equal(outer(1), ((1 + 1 + 1 + 1) * 2) + 3);
}

static int setup(void **state)
{
  (void)state;
  return live_unwinder_setup(&unwinder);
}

/* The walk from knit_native_regs_here starts in its caller and finds the
 * callers above it, in order, down to the bottom of the stack. */
static void test_finds_the_callers(void **state)
{
  (void)state;
  walk_both();
  const walk *w = &from_here;
  assert_int_equal(w->end, KNIT_UNWIND_COMPLETE);
  assert_true(w->n > 4);
  assert_int_equal(w->frames[0].pc, w->regs.pc);
  assert_int_equal(function_of(&w->frames[0], true), address_of(inner));
  assert_int_equal(function_of(&w->frames[1], false), address_of(middle));
  assert_int_equal(function_of(&w->frames[2], false), address_of(outer));
}

/* The registers are those getcontext gives in the same function, but for
 * the pc (each is its own call's return address) and, on link-register
 * ISAs, lr (the same: what the call put there); and the walks agree from
 * the caller's caller on, frame by frame. */
static void test_as_getcontext(void **state)
{
  (void)state;
  walk_both();
  const walk *a = &from_here, *b = &from_getcontext;
  assert_int_equal(a->regs.sp, b->regs.sp);
  assert_int_equal(a->regs.fp, b->regs.fp);
  assert_int_not_equal(a->regs.pc, b->regs.pc);
  assert_true(a->regs.lr == 0 || a->regs.lr == a->regs.pc);
  assert_int_equal(function_of(&a->frames[0], true), function_of(&b->frames[0], true));
  assert_int_equal(a->frames[0].cfa, b->frames[0].cfa);
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->end, b->end);
  for (int i = 1; i < a->n; i++) {
    assert_int_equal(a->frames[i].pc, b->frames[i].pc);
    assert_int_equal(a->frames[i].cfa, b->frames[i].cfa);
    assert_int_equal(a->frames[i].module, b->frames[i].module);
    assert_int_equal(a->frames[i].offset, b->frames[i].offset);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_finds_the_callers),
      cmocka_unit_test(test_as_getcontext),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
