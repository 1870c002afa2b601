/* Unit tests of walk descriptions (profiler/unwind/walk_deps.c): what a
 * walk depended on, so that a remembered result can stand for it.
 *
 * Live, on the tree's own ISA (natively, or under QEMU in a cross tree):
 * walks from knit_native_regs_here at the bottom of call chains of the
 * test's own, each described and kept. At every walk, each kept
 * description that starts from the same registers is asked whether it
 * holds; whenever it does, its walk must be this one, frame for frame.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/format.h"
#include "live_unwinder.h"
#include "unwind/unwinder.h"
#include "unwind/walk_deps.h"

#define MAX_FRAMES 128
#define KEPT       8
#define DEPTH      20

typedef struct walk {
  knit_regs regs;
  knit_frame frames[MAX_FRAMES];
  int n;
  knit_unwind_end end;
  knit_walk_deps deps;
  bool described;
} walk;

static knit_unwinder unwinder;
static walk kept[KEPT];
static int nkept;
static walk now;
/* What the walks at the bottom found about the kept descriptions. */
static int held, refused;
/* Set by a test: change a described word of the walk just made, ask, and
 * put the word back; the answers. */
static bool poke;
static bool held_before_poke, held_while_poked, held_after_poke;
/* Set by a test: walk again from registers changed where the description
 * says the walk did not look, and compare. */
static bool odd_registers;
static bool odd_changed, odd_same;
static walk odd;

static void walk_from(walk *w)
{
  unwinder.stop_at = 0;
  unwinder.stop_module = KNIT_MODULE_UNKNOWN;
  w->n = knit_unwind(&unwinder, &w->regs, w->frames, MAX_FRAMES, &w->end);
}

static bool same_frames(const walk *a, const walk *b)
{
  if (a->n != b->n || a->end != b->end)
    return false;
  for (int i = 0; i < a->n; i++)
    if (a->frames[i].pc != b->frames[i].pc || a->frames[i].cfa != b->frames[i].cfa ||
        a->frames[i].module != b->frames[i].module || a->frames[i].flags != b->frames[i].flags ||
        a->frames[i].offset != b->frames[i].offset)
      return false;
  return true;
}

/* The registers a description starts from agree with these. */
static bool same_start(const walk *d, const knit_regs *r)
{
  return d->regs.pc == r->pc && d->regs.sp == r->sp && (!d->deps.needs_fp || d->regs.fp == r->fp) &&
         (!d->deps.needs_lr || d->regs.lr == r->lr);
}

/* The bottom of every chain: walk, check the kept descriptions against
 * this walk, describe it and keep it. */
__attribute__((noinline)) static int bottom(int v)
{
  knit_native_regs_here(&now.regs);
  walk_from(&now);
  for (int k = 0; k < nkept; k++) {
    if (!same_start(&kept[k], &now.regs))
      continue;
    if (knit_walk_deps_hold(&kept[k].deps)) {
      held++;
      assert_true(same_frames(&kept[k], &now));
    } else {
      refused++;
    }
  }
  now.described = knit_walk_deps_of(&unwinder, knit_loadmap_current(), &now.regs, now.frames, now.n,
                                    now.end, &now.deps);
  if (poke && now.described && now.deps.count > 0) {
    /* The outermost word: a return address in a frame far above, which
     * nothing reads until this chain returns. */
    volatile uint64_t *w = (volatile uint64_t *)(uintptr_t)now.deps.words[now.deps.count - 1].addr;
    held_before_poke = knit_walk_deps_hold(&now.deps);
    uint64_t saved = *w;
    *w = saved ^ 0x10;
    held_while_poked = knit_walk_deps_hold(&now.deps);
    *w = saved;
    held_after_poke = knit_walk_deps_hold(&now.deps);
  }
  if (odd_registers && now.described) {
    odd.regs = now.regs;
    odd_changed = false;
    if (!now.deps.needs_fp) {
      odd.regs.fp = now.regs.sp + 8; /* readable, and wrong */
      odd_changed = true;
    }
    if (!now.deps.needs_lr) {
      odd.regs.lr = now.regs.pc + 4;
      odd_changed = true;
    }
    walk_from(&odd);
    odd_same = same_frames(&odd, &now);
  }
  if (nkept < KEPT)
    kept[nkept++] = now;
  __asm__ __volatile__("" : "+r"(v));
  return v + 1;
}

/* Built alike, so that bottom runs at the same depth below either; the
 * constants differ, so the compiler cannot make them one function. */
__attribute__((noinline)) static int left(int v)
{
  int r = bottom(v);
  __asm__ __volatile__("" : "+r"(r));
  return r + 3;
}

__attribute__((noinline)) static int right(int v)
{
  int r = bottom(v);
  __asm__ __volatile__("" : "+r"(r));
  return r + 5;
}

__attribute__((noinline)) static int deep(int depth, int v)
{
  int r = depth == 0 ? bottom(v) : deep(depth - 1, v);
  __asm__ __volatile__("" : "+r"(r));
  return r + depth;
}

static int setup(void **state)
{
  (void)state;
  return live_unwinder_setup(&unwinder);
}

static int reset(void **state)
{
  (void)state;
  nkept = 0;
  held = refused = 0;
  poke = odd_registers = false;
  return 0;
}

/* An ordinary walk is described, and its description holds at once. */
static void test_described(void **state)
{
  (void)state;
  left(1);
  assert_int_equal(nkept, 1);
  assert_true(kept[0].described);
  assert_int_equal(kept[0].end, KNIT_UNWIND_COMPLETE);
  assert_true(kept[0].deps.count > 0);
}

/* The same chain again, from the same call: the description holds, and
 * (checked at the bottom) the walks are the same. */
static volatile int three = 3; /* a count the compiler cannot unroll by */

static void test_same_chain_holds(void **state)
{
  (void)state;
  for (int i = 0; i < three; i++)
    left(i);
  assert_int_equal(held, 3); /* the second walk matches one, the third two */
  assert_int_equal(refused, 0);
}

/* Another chain whose bottom is at the same depth: same registers, but a
 * return address differs, and the description refuses. */
static void test_same_depth_other_chain(void **state)
{
  (void)state;
  left(1);
  right(1);
  assert_int_equal(nkept, 2);
  assert_int_equal(kept[0].regs.sp, kept[1].regs.sp);
  assert_int_equal(kept[0].regs.pc, kept[1].regs.pc);
  assert_int_equal(held, 0);
  assert_int_equal(refused, 1);
  assert_false(same_frames(&kept[0], &kept[1]));
}

/* A deep chain is described too, and one of its words changed makes the
 * description refuse. */
static void test_deep_and_changed_word(void **state)
{
  (void)state;
  poke = true;
  deep(DEPTH, 1);
  assert_true(kept[0].described);
  assert_true(kept[0].n > DEPTH + 3);
  assert_true(held_before_poke);
  assert_false(held_while_poked);
  assert_true(held_after_poke);
}

/* A starting register the description does not name does not change the
 * walk: from a wrong frame pointer or link register, where the description
 * says the walk used neither, the walk finds the same frames. */
static void test_unused_registers(void **state)
{
  (void)state;
  odd_registers = true;
  deep(3, 1);
  odd_registers = false;
  assert_true(kept[0].described);
  assert_true(odd_changed);
  assert_true(odd_same);
}

/* A walk that ended partial is not described (it may have ended on
 * something that does not last: code of a library loaded later); one cut
 * short by the room for frames is. */
static void test_partial_and_truncated(void **state)
{
  (void)state;
  walk w;
  memset(&w, 0, sizeof w);
  knit_native_regs_here(&w.regs);
  /* In no library, and readable: the walk reads the code at a pc in no
   * library, to tell whether it is a signal trampoline. */
  static uint64_t not_code[8];
  w.regs.pc = (uint64_t)(uintptr_t)&not_code[2];
  walk_from(&w);
  assert_int_equal(w.end, KNIT_UNWIND_PARTIAL);
  assert_false(
      knit_walk_deps_of(&unwinder, knit_loadmap_current(), &w.regs, w.frames, w.n, w.end, &w.deps));
  knit_native_regs_here(&w.regs);
  w.n = knit_unwind(&unwinder, &w.regs, w.frames, 2, &w.end);
  assert_int_equal(w.end, KNIT_UNWIND_TRUNCATED);
  assert_true(
      knit_walk_deps_of(&unwinder, knit_loadmap_current(), &w.regs, w.frames, w.n, w.end, &w.deps));
  assert_true(knit_walk_deps_hold(&w.deps));
}

int main(void)
{
  /* The sanitizer runs (ci/check-sanitized.sh) say which one is on. */
  const char *sanitized = getenv("KNIT_SANITIZED");
  if (sanitized && strcmp(sanitized, "tsan") == 0) {
    printf("skip: under ThreadSanitizer %s\n",
           "it needs two call chains of its own whose frames are of equal size, which "
           "ThreadSanitizer's instrumentation makes unequal");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_described, reset),
      cmocka_unit_test_setup(test_same_chain_holds, reset),
      cmocka_unit_test_setup(test_same_depth_other_chain, reset),
      cmocka_unit_test_setup(test_deep_and_changed_word, reset),
      cmocka_unit_test_setup(test_unused_registers, reset),
      cmocka_unit_test_setup(test_partial_and_truncated, reset),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
