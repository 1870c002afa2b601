/* Frame elision's pure core: which unwound frames belong to a task, for
 * OMPT frame addresses given as CFAs and as frame pointers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ompt/frame_range.h"

/* A master thread inside a parallel region, innermost first:
 *   0 work         cfa 0x1000
 *   1 outlined     cfa 0x1100
 *   2 GOMP_parallel cfa 0x1200   (the runtime: the task's exit frame)
 *   3 compute      cfa 0x1300
 *   4 main         cfa 0x1400
 */
static const knit_frame master[] = {
    {0, 0x1000, 0, 0, 0}, {0, 0x1100, 0, 0, 0},     {0, 0x1200, 0, 0, 0},
    {0, 0x1300, 0, 0, 0}, {0, UINT64_MAX, 0, 0, 0},
};

static ompt_frame_t frame_of(void *exit, int exit_flags, void *enter, int enter_flags)
{
  ompt_frame_t f = {{.ptr = exit}, {.ptr = enter}, exit_flags, enter_flags};
  return f;
}

static void test_no_frame_record(void **state)
{
  (void)state;
  int first, last;
  assert_true(knit_task_frame_range(master, 5, NULL, &first, &last));
  assert_int_equal(first, 0);
  assert_int_equal(last, 4);
}

static void test_exit_frame_as_cfa(void **state)
{
  (void)state;
  ompt_frame_t f = frame_of((void *)0x1200, ompt_frame_runtime | ompt_frame_cfa, NULL, 0);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 0);
  assert_int_equal(last, 1); /* work and outlined; GOMP_parallel is cut */
}

static void test_exit_frame_as_frame_pointer(void **state)
{
  (void)state;
  /* A frame pointer inside GOMP_parallel's frame: above its callee's CFA,
   * below its own. Equal to the callee's CFA is possible too (aarch64). */
  ompt_frame_t f = frame_of((void *)0x11f0, ompt_frame_runtime | ompt_frame_framepointer, NULL, 0);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(last, 1);
  f = frame_of((void *)0x1100, ompt_frame_runtime | ompt_frame_framepointer, NULL, 0);
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(last, 1);
}

static void test_enter_frame(void **state)
{
  (void)state;
  /* The initial task while the region runs: it entered GOMP_parallel, so
   * its own frames are compute and main. */
  ompt_frame_t f = frame_of(NULL, 0, (void *)0x1200, ompt_frame_runtime | ompt_frame_cfa);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 3);
  assert_int_equal(last, 4);
}

static void test_task_in_runtime(void **state)
{
  (void)state;
  /* A task inside a barrier called from its body: frames 0 and 1 are the
   * runtime's, 2 and 3 the task's, 4 the runtime that called the task. */
  static const knit_frame stack[] = {
      {0, 0x100, 0, 0, 0}, {0, 0x200, 0, 0, 0}, {0, 0x300, 0, 0, 0},
      {0, 0x400, 0, 0, 0}, {0, 0x500, 0, 0, 0},
  };
  ompt_frame_t f = frame_of((void *)0x500, ompt_frame_cfa, (void *)0x200, ompt_frame_cfa);
  int first, last;
  assert_true(knit_task_frame_range(stack, 5, &f, &first, &last));
  assert_int_equal(first, 2);
  assert_int_equal(last, 3);
  /* Entered and exit frames that leave nothing between: empty. */
  f = frame_of((void *)0x300, ompt_frame_cfa, (void *)0x200, ompt_frame_cfa);
  assert_false(knit_task_frame_range(stack, 5, &f, &first, &last));
}

static void test_exit_frame_not_on_stack(void **state)
{
  (void)state;
  /* A partial unwind that never reached the exit frame keeps every frame:
   * the caller decides what a missing exit means. */
  ompt_frame_t f = frame_of((void *)0x9000, ompt_frame_cfa, NULL, 0);
  int first, last;
  assert_true(knit_task_frame_range(master, 4, &f, &first, &last));
  assert_int_equal(last, 3);
}

static void test_enter_frame_of_the_application(void **state)
{
  (void)state;
  /* libomp's if(0) task: the encountering task's enter frame is the frame
   * pointer of the program's function that called the runtime (compute,
   * cfa 0x1300), flagged as the application's. That function is the task's
   * own and stays; only what lies inward of it goes. */
  ompt_frame_t f =
      frame_of(NULL, 0, (void *)0x12f0, ompt_frame_application | ompt_frame_framepointer);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 3);
  assert_int_equal(last, 4);
  /* The same address flagged as the runtime's names compute as the
   * runtime function entered: cut. */
  f = frame_of(NULL, 0, (void *)0x12f0, ompt_frame_runtime | ompt_frame_framepointer);
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 4);
}

static void test_stale_flags(void **state)
{
  (void)state;
  /* Flags as a runtime sets them are kept; a word with bits no flag has
   * (libomp 14's frame record of a serialized region's task, made on the
   * stack without flags) is read as none. */
  assert_int_equal(knit_ompt_frame_flags(ompt_frame_application | ompt_frame_framepointer),
                   ompt_frame_application | ompt_frame_framepointer);
  assert_int_equal(knit_ompt_frame_flags(ompt_frame_runtime | ompt_frame_cfa), ompt_frame_cfa);
  assert_int_equal(knit_ompt_frame_flags(0x558b), 0);
  assert_int_equal(knit_ompt_frame_flags(0x43554445), 0);
  assert_int_equal(knit_ompt_frame_flags(0x160), 0);
  /* The same address as above with stale flags that hold the application's
   * bit: the runtime's frame, cut, as libomp means it. */
  ompt_frame_t f = frame_of(NULL, 0, (void *)0x12f0, 0x558b);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 4);
  /* An exit frame with a stale cfa bit: read as a frame pointer, which
   * names GOMP_parallel at 0x1200 as a frame pointer inside it would. */
  f = frame_of((void *)0x1100, 0x7ffe, NULL, 0);
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(last, 1);
}

static void test_enter_frame_equal_to_exit(void **state)
{
  (void)state;
  /* The body outlined runs called from GOMP_parallel (frame pointer
   * 0x11f0), whose enter frame, left from before the fork, is the same
   * address: ignored, the body's frames are the task's. */
  ompt_frame_t f = frame_of((void *)0x11f0, 0, (void *)0x11f0, 0);
  ompt_frame_t scratch;
  const ompt_frame_t *checked = knit_ompt_frame_checked(&f, &scratch);
  assert_ptr_equal(checked, &scratch);
  assert_null(checked->enter_frame.ptr);
  assert_ptr_equal(checked->exit_frame.ptr, (void *)0x11f0);
  int first, last;
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 0);
  assert_int_equal(last, 1);
  /* A task inside a runtime call from its body (frame 0, the runtime
   * function entered) keeps its enter frame. */
  f = frame_of((void *)0x11f0, 0, (void *)0x0ff0, 0);
  assert_ptr_equal(knit_ompt_frame_checked(&f, &scratch), &f);
  assert_true(knit_task_frame_range(master, 5, &f, &first, &last));
  assert_int_equal(first, 1);
  assert_int_equal(last, 1);
  assert_null(knit_ompt_frame_checked(NULL, &scratch));
}

static void test_live_frames(void **state)
{
  (void)state;
  /* Only addresses above the caller's own frame can name a live frame of
   * its stack: the register value clang keeps in rbp (a gtid) cannot. */
  uintptr_t below = (uintptr_t)__builtin_frame_address(0);
  assert_false(knit_ompt_frame_is_live(NULL, (const void *)below));
  assert_false(knit_ompt_frame_is_live((const void *)3, (const void *)below));
  assert_false(knit_ompt_frame_is_live((const void *)(below - 64), (const void *)below));
  assert_true(knit_ompt_frame_is_live((const void *)(below + 64), (const void *)below));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_frame_record),
      cmocka_unit_test(test_exit_frame_as_cfa),
      cmocka_unit_test(test_exit_frame_as_frame_pointer),
      cmocka_unit_test(test_enter_frame),
      cmocka_unit_test(test_task_in_runtime),
      cmocka_unit_test(test_exit_frame_not_on_stack),
      cmocka_unit_test(test_enter_frame_of_the_application),
      cmocka_unit_test(test_stale_flags),
      cmocka_unit_test(test_enter_frame_equal_to_exit),
      cmocka_unit_test(test_live_frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
