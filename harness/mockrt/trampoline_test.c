/*
 * The Intel personality's assembly trampoline, tested on its own with the
 * project's C compiler, so every ISA's version is exercised (natively or
 * under QEMU) even where no clang-built program runs:
 *   - every forwarded pointer arrives in order, for 0..24 of them (register
 *     arguments, stack arguments, odd and even stack counts), read both by
 *     a variadic callee and by fixed-arity callees like clang's outlined
 *     functions;
 *   - the stack is 16-byte aligned at the call (the callee's CFA is);
 *   - the exit frame it stores is its frame pointer, as libomp's
 *     __kmp_invoke_microtask stores its own: 16 bytes below its CFA where
 *     the frame record or saved rbp is (x86-64, aarch64), its stack
 *     pointer at the call (POWER, where the back chain is), so at or above
 *     the callee's CFA and below the trampoline's;
 *   - its CFI lets the unwinder walk from the callee through it to the
 *     function that called it and on to that function's caller;
 *   - callee-saved registers and the caller's stack survive it.
 * Exit status 0 means pass.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

#include "check.h"

void mockrt_invoke_microtask(void (*fn)(void), int32_t *gtid, int32_t *btid, int argc, void **argv,
                             void **exit_frame);

#define MAX_ARGS 24

/* What the current call is expected to deliver, and what the callee saw. */
static int want_argc;
static void *want_argv[MAX_ARGS];
static void *exit_slot;
static char *caller_cfa;
static const void *caller_ra; /* where the calling function returns to */
static int32_t *want_gtid, *want_btid;
static int calls;

typedef struct unwind_search {
  const void *target;
  int depth;
  int found;
} unwind_search_t;

static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx, void *arg)
{
  unwind_search_t *s = arg;
  if ((const void *)_Unwind_GetIP(ctx) == s->target)
    s->found = 1;
  return ++s->depth > 64 || s->found ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static void call_through(void (*fn)(void), int argc);

/* The checks every callee makes, given its own CFA. */
static __attribute__((noinline)) void check_frame(char *callee_cfa)
{
  CHECK(((uintptr_t)callee_cfa & 15) == 0);
  char *exit_frame = exit_slot;
  CHECK(exit_frame >= callee_cfa && exit_frame < caller_cfa);
#if defined(__powerpc64__)
  CHECK(exit_frame == callee_cfa);
#else
  /* A frame record: the saved frame pointer, then the return address,
   * into the function that called the trampoline. */
  const char *ret = ((char **)(void *)exit_frame)[1];
  CHECK(ret > (const char *)(uintptr_t)call_through &&
        ret < (const char *)(uintptr_t)call_through + 4096);
#endif
  /* The unwinder reaches the trampoline's caller's return address. */
  unwind_search_t s = {caller_ra, 0, 0};
  _Unwind_Backtrace(unwind_step, &s);
  CHECK(s.found);
  calls++;
}

static void variadic_callee(int32_t *gtid, int32_t *btid, ...)
{
  va_list ap;
  CHECK(gtid == want_gtid && btid == want_btid && *gtid == 7 && *btid == 3);
  va_start(ap, btid);
  for (int i = 0; i < want_argc; i++) {
    void *p = va_arg(ap, void *);
    CHECK(p == want_argv[i]);
  }
  va_end(ap);
  check_frame(__builtin_dwarf_cfa());
}

/* Shaped like clang's outlined functions: fixed arity, no varargs. */
static void fixed_callee_8(int32_t *gtid, int32_t *btid, void *a0, void *a1, void *a2, void *a3,
                           void *a4, void *a5, void *a6, void *a7)
{
  void *got[] = {a0, a1, a2, a3, a4, a5, a6, a7};
  CHECK(gtid == want_gtid && btid == want_btid);
  CHECK(memcmp(got, want_argv, sizeof got) == 0);
  check_frame(__builtin_dwarf_cfa());
}

static void fixed_callee_13(int32_t *gtid, int32_t *btid, void *a0, void *a1, void *a2, void *a3,
                            void *a4, void *a5, void *a6, void *a7, void *a8, void *a9, void *a10,
                            void *a11, void *a12)
{
  void *got[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12};
  CHECK(gtid == want_gtid && btid == want_btid);
  CHECK(memcmp(got, want_argv, sizeof got) == 0);
  check_frame(__builtin_dwarf_cfa());
}

/* Values live across the call stay in callee-saved registers at -O2. */
static volatile long seed = 12345;

static __attribute__((noinline)) void call_through(void (*fn)(void), int argc)
{
  int32_t gtid = 7, btid = 3;
  void *argv[MAX_ARGS];
  long a = seed, b = a * 3, c = b ^ 0x55, d = c + a, e = d * 7, f = e - b, g = f | 9, h = g + c;

  for (int i = 0; i < argc; i++)
    argv[i] = want_argv[i] = (void *)(uintptr_t)(0x1000 * (i + 1) + i);
  want_argc = argc;
  want_gtid = &gtid;
  want_btid = &btid;
  caller_cfa = __builtin_dwarf_cfa();
  caller_ra = __builtin_return_address(0);
  exit_slot = NULL;
  /* argc 0 passes no argv at all: the trampoline must not read it. */
  mockrt_invoke_microtask(fn, &gtid, &btid, argc, argc ? argv : NULL, &exit_slot);
  CHECK(gtid == 7 && btid == 3);
  CHECK(a == seed && b == a * 3 && c == (b ^ 0x55) && d == c + a && e == d * 7 && f == e - b &&
        g == (f | 9) && h == g + c);
}

int main(void)
{
  for (int argc = 0; argc <= MAX_ARGS; argc++)
    call_through((void (*)(void))variadic_callee, argc);
  call_through((void (*)(void))fixed_callee_8, 8);
  call_through((void (*)(void))fixed_callee_13, 13);
  CHECK(calls == MAX_ARGS + 3);
  if (failures) {
    fprintf(stderr, "trampoline_test: %d failure(s)\n", failures);
    return 1;
  }
  printf("trampoline_test: all checks passed (%d calls)\n", calls);
  return 0;
}
