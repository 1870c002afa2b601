/* Unit tests of knit_unwind's two loops (profiler/unwind/unwinder.c): the
 * walk over cached steps, taken when the walker reads its own memory and
 * has a step cache, must give exactly the frames the general loop gives,
 * for a whole stack and for walks that end at a limit (a task's exit
 * frame, given as a CFA or as a frame-pointer value).
 *
 * Live, on the tree's own ISA (natively, or under QEMU in a cross tree): a
 * real stack of DEPTH frames of this test, a signal at its bottom, and from
 * the handler the same walk three ways: without a cache through a read
 * function of the test's own (general loop only), and twice with a cache
 * and knit_read_own_memory (the first fills the cache, the second runs
 * over cached steps).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/format.h"
#include "unwind/decoder.h"
#include "unwind/isa.h"
#include "unwind/loadmap.h"
#include "unwind/recipe_cache.h"
#include "unwind/unwinder.h"

#define DEPTH      24
#define MAX_FRAMES 128

/* Own memory, through a function the unwinder does not recognize: the
 * general loop's reads. */
static bool read_via_pointer(void *ctx, uint64_t addr, uint64_t *out)
{
  (void)ctx;
  return knit_read_own_memory(NULL, addr, out);
}

typedef struct walk {
  knit_frame frames[MAX_FRAMES];
  int n;
  knit_unwind_end end;
} walk;

enum { GENERAL, CACHED_FIRST, CACHED_AGAIN, WALKS };

static knit_unwinder general, cached;
static knit_regs interrupted; /* the registers the signal interrupted */
static walk walks[WALKS];
static uint64_t limit; /* the limit of the walks under way (0: none) */
static bool limit_is_cfa;
static int max_frames = MAX_FRAMES;

static void walk_once(knit_unwinder *u, walk *w)
{
  u->stop_at = limit;
  u->stop_is_cfa = limit_is_cfa;
  u->stop_module = KNIT_MODULE_UNKNOWN;
  w->n = knit_unwind(u, &interrupted, w->frames, max_frames, &w->end);
}

static void handler(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  knit_native_regs_from_ucontext(uc, &interrupted);
  walk_once(&general, &walks[GENERAL]);
  walk_once(&cached, &walks[CACHED_FIRST]);
  walk_once(&cached, &walks[CACHED_AGAIN]);
}

static int descend(int depth);

/* A frame with an over-aligned local and a variable-length array: on
 * x86-64 gcc realigns it through a DRAP register, and its recipe loads the
 * CFA from the frame (KNIT_CFA_FP_DEREF); both loops must step through
 * it alike. */
__attribute__((noinline)) static int realigned_hop(int depth)
{
  _Alignas(32) volatile int lanes[8];
  volatile char cells[depth + 8];
  lanes[depth & 7] = depth;
  cells[depth] = 1;
  int v = descend(depth - 1);
  __asm__ __volatile__("" : "+r"(v));
  return v + lanes[depth & 7] + cells[depth] - 1;
}

/* DEPTH frames that do work after their call, so none is a tail call;
 * every eighth is realigned_hop's. */
__attribute__((noinline)) static int descend(int depth)
{
  if (depth == 0) {
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGUSR1);
    return 1;
  }
  int v = depth % 8 == 4 ? realigned_hop(depth) - depth : descend(depth - 1);
  __asm__ __volatile__("" : "+r"(v));
  return v + depth;
}

static void walk_all(void)
{
  memset(walks, 0, sizeof walks);
  assert_int_equal(descend(DEPTH), 1 + DEPTH * (DEPTH + 1) / 2);
}

static void assert_same_walk(const walk *a, const walk *b)
{
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->end, b->end);
  for (int i = 0; i < a->n; i++) {
    assert_int_equal(a->frames[i].pc, b->frames[i].pc);
    assert_int_equal(a->frames[i].cfa, b->frames[i].cfa);
    assert_int_equal(a->frames[i].module, b->frames[i].module);
    assert_int_equal(a->frames[i].flags, b->frames[i].flags);
    assert_int_equal(a->frames[i].offset, b->frames[i].offset);
  }
}

static int setup(void **state)
{
  (void)state;
  knit_decoder_setup();
  knit_loadmap_refresh((const void *)setup);
  knit_unwinder *us[2] = {&general, &cached};
  for (int k = 0; k < 2; k++) {
    if (!knit_decoder_open(&us[k]->decoder, knit_isa_native()))
      return -1;
    us[k]->scratch = malloc(sizeof *us[k]->scratch);
    if (!us[k]->scratch)
      return -1;
  }
  general.read = read_via_pointer;
  cached.read = knit_read_own_memory;
  cached.cache = calloc(KNIT_STEP_CACHE_SIZE, sizeof *cached.cache);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  return cached.cache && sigaction(SIGUSR1, &sa, NULL) == 0 ? 0 : -1;
}

/* The whole stack: complete, through every frame of descend, and the same
 * frames each way. */
static void test_whole_stack(void **state)
{
  (void)state;
  limit = 0;
  walk_all();
  const walk *g = &walks[GENERAL];
  assert_int_equal(g->end, KNIT_UNWIND_COMPLETE);
  assert_true(g->n > DEPTH + 2);
  /* The step classes were worked out: every caller frame has one. */
  for (int i = 1; i < g->n; i++)
    assert_int_not_equal(knit_frame_step_class(&g->frames[i]), 0);
  assert_same_walk(g, &walks[CACHED_FIRST]);
  assert_same_walk(g, &walks[CACHED_AGAIN]);
}

/* A limit in the middle of the stack, as a CFA and as a frame-pointer
 * value inside the frame: each walk ends at that frame, marked. */
static void test_limit(void **state)
{
  (void)state;
  limit = 0;
  walk_all();
  const walk whole = walks[GENERAL];
  int k = whole.n / 2;
  assert_true(k > 2);
  uint64_t cfa = whole.frames[k].cfa;
  assert_int_not_equal(cfa, UINT64_MAX);
  struct {
    uint64_t at;
    bool is_cfa;
  } limits[2] = {{cfa, true}, {cfa - 8, false}};
  for (int l = 0; l < 2; l++) {
    limit = limits[l].at;
    limit_is_cfa = limits[l].is_cfa;
    walk_all();
    const walk *g = &walks[GENERAL];
    assert_int_equal(g->end, KNIT_UNWIND_COMPLETE);
    assert_int_equal(g->n, k + 1);
    assert_true(g->frames[k].flags & KNIT_FRAME_AT_LIMIT);
    assert_int_equal(g->frames[k].cfa, cfa);
    assert_same_walk(g, &walks[CACHED_FIRST]);
    assert_same_walk(g, &walks[CACHED_AGAIN]);
  }
  limit = 0;
}

/* A frame array shorter than the stack: both loops stop at the same
 * frame, truncated. */
static void test_truncated(void **state)
{
  (void)state;
  limit = 0;
  max_frames = 8;
  walk_all();
  max_frames = MAX_FRAMES;
  const walk *g = &walks[GENERAL];
  assert_int_equal(g->n, 8);
  assert_int_equal(g->end, KNIT_UNWIND_TRUNCATED);
  assert_same_walk(g, &walks[CACHED_FIRST]);
  assert_same_walk(g, &walks[CACHED_AGAIN]);
}

int main(void)
{
  /* The sanitizer runs (ci/check-sanitized.sh) say which one is on. */
  const char *sanitized = getenv("KNIT_SANITIZED");
  if (sanitized && strcmp(sanitized, "tsan") == 0) {
    printf("skip: under ThreadSanitizer %s\n",
           "it walks from a signal handler that must run where the signal was sent, and "
           "ThreadSanitizer holds asynchronous signals back until a point of its own choosing");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_whole_stack),
      cmocka_unit_test(test_limit),
      cmocka_unit_test(test_truncated),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
