/* Symbolization with libdwfl, of this test's own functions: names, and a
 * file:line of a call site and of an instruction in this very file. Built
 * -g -O0 (report.cmake) so that lines and call sites are where they read. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <link.h>
#include <limits.h>
#include <unistd.h>

#include "profiler/report/symbolize.h"
#include "profiler/report/tree.h"

static char self_path[PATH_MAX];
static uintptr_t self_base;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  /* The first object is the executable itself; its load bias turns run-time
   * addresses into ELF virtual addresses, as the tool does. */
  self_base = info->dlpi_addr;
  return 1;
}

static int setup(void **state)
{
  (void)state;
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0)
    return -1;
  self_path[n] = '\0';
  dl_iterate_phdr(find_self, NULL);
  return 0;
}

static uint64_t offset_of(const void *address)
{
  return (uint64_t)((uintptr_t)address - self_base);
}

__attribute__((noinline)) void knit_test_sampled_function(void)
{
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void *return_address(void)
{
  return __builtin_return_address(0);
}

static unsigned call_line;

__attribute__((noinline)) void *knit_test_calling_function(void)
{
  call_line = __LINE__ + 1;
  void *ra = return_address();
  return ra;
}

static void test_function_names(void **state)
{
  (void)state;
  knit_symbolizer *s = knit_symbolizer_new();
  assert_true(knit_symbolizer_module_found(s, self_path));
  knit_symbol sym;
  knit_symbolizer_lookup(s, self_path, offset_of((void *)knit_test_sampled_function), 0, &sym);
  assert_int_equal(sym.resolved, 1);
  assert_string_equal(sym.function, "knit_test_sampled_function");
  assert_non_null(sym.file);
  assert_non_null(strstr(sym.file, "test_symbolize.c"));
  assert_true(sym.line > 0);
  /* A second look-up comes from the cache with the same answer. */
  knit_symbol again;
  knit_symbolizer_lookup(s, self_path, offset_of((void *)knit_test_sampled_function), 0, &again);
  assert_ptr_equal(again.function, sym.function);
  knit_symbolizer_free(s);
}

/* Nodes as the tool records them, named through the tree: a call site by its
 * return address, a sample, placeholders, an unknown module, a missing file. */
static void test_tree_names(void **state)
{
  (void)state;
  uint64_t ra = offset_of(knit_test_calling_function());
  knit_read_module mods[] = {{.id = 0, .path = self_path},
                             {.id = 1, .path = "/nonexistent/libgone.so"}};
  knit_read_node nodes[] = {
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
      {0, 0, KNIT_NODE_CALL, ra},
      {1, 0, KNIT_NODE_SAMPLE, offset_of((void *)knit_test_sampled_function)},
      {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_LOCK_WAIT},
      {0, KNIT_MODULE_UNKNOWN, KNIT_NODE_SAMPLE, 0x7fffdeadbeef},
      {0, 1, KNIT_NODE_CALL, 0x1234},
  };
  knit_thread_file f = {.module_count = 2, .modules = mods, .node_count = 6, .nodes = nodes};
  knit_report_tree t;
  assert_int_equal(knit_report_tree_init(&t), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &f), 0);
  assert_int_equal(t.node_count, 6);
  knit_symbolizer *s = knit_symbolizer_new();
  knit_report_tree_symbolize(&t, s);

  assert_string_equal(t.nodes[0].function, "ROOT");
  /* The call site: the function that made the call, on the line of it. */
  assert_string_equal(t.nodes[1].function, "knit_test_calling_function");
  assert_non_null(t.nodes[1].file);
  assert_non_null(strstr(t.nodes[1].file, "test_symbolize.c"));
  assert_int_equal(t.nodes[1].line, call_line);
  assert_string_equal(t.nodes[2].function, "knit_test_sampled_function");
  assert_string_equal(t.nodes[3].function, "<omp-lock-wait>");
  assert_string_equal(t.nodes[4].function, "0x7fffdeadbeef");
  assert_null(t.nodes[4].file);
  /* A module file that is gone names the frame by module and offset. */
  assert_string_equal(t.nodes[5].function, "libgone.so+0x1234");
  assert_null(t.nodes[5].file);
  assert_false(knit_symbolizer_module_found(s, "/nonexistent/libgone.so"));

  knit_symbolizer_free(s);
  knit_report_tree_free(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_function_names),
      cmocka_unit_test(test_tree_names),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
