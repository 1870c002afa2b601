/* Reading a measurement's file whole (measure/read_whole_file.h), which
 * thread files and trace files share: a regular file comes back byte for
 * byte, and what is no regular file, or is missing, is refused at once
 * with the reason both readers print, a FIFO without blocking. Then the
 * trace reader, which reads through it, refuses a FIFO the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "measure/read_trace.h"
#include "measure/read_whole_file.h"

typedef struct scratch {
  char dir[64];
  char path[128];
} scratch;

static int make_scratch(void **state)
{
  scratch *s = calloc(1, sizeof *s);
  assert_non_null(s);
  snprintf(s->dir, sizeof s->dir, "/tmp/knit-read-whole-XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  *state = s;
  return 0;
}

static int remove_scratch(void **state)
{
  scratch *s = *state;
  unlink(s->path);
  rmdir(s->dir);
  free(s);
  return 0;
}

static void regular_file_read_whole(void **state)
{
  scratch *s = *state;
  snprintf(s->path, sizeof s->path, "%s/thread-0-1.knit", s->dir);
  uint8_t bytes[3000];
  for (size_t i = 0; i < sizeof bytes; i++)
    bytes[i] = (uint8_t)(i * 7);
  FILE *f = fopen(s->path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, sizeof bytes, f), sizeof bytes);
  fclose(f);
  uint8_t *data = NULL;
  size_t len = 0;
  char err[128] = "";
  assert_int_equal(knit_read_whole_file(s->path, &data, &len, err, sizeof err), 0);
  assert_int_equal(len, sizeof bytes);
  assert_memory_equal(data, bytes, sizeof bytes);
  free(data);
}

static void empty_file_is_no_error(void **state)
{
  scratch *s = *state;
  snprintf(s->path, sizeof s->path, "%s/empty.knit", s->dir);
  FILE *f = fopen(s->path, "wb");
  assert_non_null(f);
  fclose(f);
  uint8_t *data = NULL;
  size_t len = 1;
  char err[128] = "";
  /* The parser says what is wrong with an empty file, not the reader. */
  assert_int_equal(knit_read_whole_file(s->path, &data, &len, err, sizeof err), 0);
  assert_int_equal(len, 0);
  assert_non_null(data);
  free(data);
}

static void fifo_refused_without_blocking(void **state)
{
  scratch *s = *state;
  snprintf(s->path, sizeof s->path, "%s/trace-0-1.knit", s->dir);
  assert_int_equal(mkfifo(s->path, 0600), 0);
  /* Nobody writes to the FIFO: a reader that opened it blocking would
   * hang here, and the alarm end the test as failed. */
  alarm(10);
  uint8_t *data = NULL;
  size_t len = 0;
  char err[128] = "";
  assert_int_equal(knit_read_whole_file(s->path, &data, &len, err, sizeof err), -1);
  assert_string_equal(err, "not a regular file; skipped");
  assert_null(data);
  knit_trace_file trace;
  err[0] = '\0';
  assert_int_equal(knit_trace_file_read(s->path, &trace, err, sizeof err), -1);
  assert_string_equal(err, "not a regular file; skipped");
  alarm(0);
}

static void missing_file_says_why(void **state)
{
  scratch *s = *state;
  snprintf(s->path, sizeof s->path, "%s/absent.knit", s->dir);
  uint8_t *data = NULL;
  size_t len = 0;
  char err[128] = "";
  assert_int_equal(knit_read_whole_file(s->path, &data, &len, err, sizeof err), -1);
  assert_string_equal(err, "cannot open: No such file or directory");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(regular_file_read_whole, make_scratch, remove_scratch),
      cmocka_unit_test_setup_teardown(empty_file_is_no_error, make_scratch, remove_scratch),
      cmocka_unit_test_setup_teardown(fifo_refused_without_blocking, make_scratch, remove_scratch),
      cmocka_unit_test_setup_teardown(missing_file_says_why, make_scratch, remove_scratch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
