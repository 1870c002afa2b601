/* Outlined bodies named by their construct (report/construct_names.h) in
 * real programs: fixtures/constructs.c built by gcc and clang-14 at -O2 -g
 * (gcc describes its calls of the runtime in DWARF call-site entries,
 * clang 14 does not, so its calls are named by their PLT relocations), and
 * by clang-14 at -O0, whose parallel body is a wrapper calling a
 * `_debug__` body.
 *
 * `test_construct_names ppc64le` and `... ppc64` check clang-14's -O2
 * builds for POWER (ELFv2 little-endian, ELFv1 big-endian), whose calls of
 * the runtime go to the linker's stubs among the code, named through the
 * .plt slot each loads (isa.h: plt_stub_slot); they exit 77 when the
 * fixture or the cross objdump is missing.
 *
 * Where the fixture calls the runtime, and which symbol each body has, is
 * read from objdump's disassembly, a view independent of knit's. Each case
 * puts a body under the call site that opened it, as a measurement does,
 * and checks the name the symbolizer gives it against the line the
 * source marks with "@parallel", "@task" or "@taskloop". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "profiler/report/symbolize.h"
#include "profiler/unwind/isa.h"

#define FIXTURE(name) KNIT_FIXTURE_DIR "/" name
#define SOURCE        KNIT_FIXTURE_SRC "/constructs.c"

/* A call in the disassembly: the calling function, the callee (without
 * @plt) and the return address (the next instruction's). */
typedef struct call {
  char caller[128];
  char callee[64];
  uint64_t ra;
} call;

typedef struct function {
  char name[128];
  uint64_t addr;
} function;

typedef struct program {
  call calls[256];
  size_t call_count;
  function functions[256];
  size_t function_count;
} program;

static int present(const char *path)
{
  if (access(path, R_OK) == 0)
    return 1;
  print_message("skipping %s: not built (its compiler is missing)\n", path);
  return 0;
}

/* How the disassembly of a fixture is read: which objdump, and whether its
 * function labels carry ELFv1's dot (objdump names the code of function f
 * `.f`, f itself being the descriptor). */
typedef struct disassembler {
  const char *objdump;
  int dot_symbols;
} disassembler;

static const disassembler host_objdump = {"objdump", 0};

/* The callee of a call's `<...>`: without @plt, @@VERSION, and the
 * `0000001b.plt_call.` that POWER's linker puts before a stub's symbol. */
static void callee_of(char *out, size_t n, const char *lt)
{
  const char *name = lt + 1;
  const char *stub = strstr(name, ".plt_call.");
  if (stub != NULL && stub < name + strcspn(name, ">"))
    name = stub + strlen(".plt_call.");
  snprintf(out, n, "%.*s", (int)strcspn(name, "@>"), name);
}

static void disassemble(const disassembler *dis, const char *path, program *p)
{
  char command[512];
  snprintf(command, sizeof command, "%s -d --no-show-raw-insn %s", dis->objdump, path);
  FILE *f = popen(command, "r");
  assert_non_null(f);
  memset(p, 0, sizeof *p);
  char line[512];
  const char *caller = "";
  int pending = 0; /* the last instruction was a call: its ra is next */
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long addr;
    char name[128];
    if (sscanf(line, "%lx <%127[^>]>:", &addr, name) == 2 && p->function_count < 256) {
      function *fn = &p->functions[p->function_count++];
      snprintf(fn->name, sizeof fn->name, "%s", name + (dis->dot_symbols && name[0] == '.'));
      fn->addr = addr;
      caller = fn->name;
      pending = 0;
      continue;
    }
    if (sscanf(line, " %lx:", &addr) != 1)
      continue;
    if (pending) {
      p->calls[p->call_count - 1].ra = addr;
      pending = 0;
    }
    const char *lt = strchr(line, '<');
    if ((strstr(line, "\tcall") != NULL || strstr(line, "\tbl") != NULL) && lt != NULL &&
        p->call_count < 256) {
      call *c = &p->calls[p->call_count++];
      snprintf(c->caller, sizeof c->caller, "%s", caller);
      callee_of(c->callee, sizeof c->callee, lt + (dis->dot_symbols && lt[1] == '.'));
      pending = 1;
    }
  }
  assert_int_equal(pclose(f), 0);
}

/* The return address of the first call of callee from a function whose
 * name holds caller ("" for any). */
static uint64_t ra_of(const program *p, const char *caller, const char *callee)
{
  for (size_t i = 0; i < p->call_count; i++)
    if (strcmp(p->calls[i].callee, callee) == 0 && strstr(p->calls[i].caller, caller) != NULL &&
        p->calls[i].ra != 0)
      return p->calls[i].ra;
  fail_msg("no call of %s from %s", callee, caller);
  return 0;
}

static uint64_t addr_of(const program *p, const char *name)
{
  for (size_t i = 0; i < p->function_count; i++)
    if (strcmp(p->functions[i].name, name) == 0)
      return p->functions[i].addr;
  fail_msg("no function %s", name);
  return 0;
}

/* The line of the fixture's source that holds mark. */
static unsigned marked_line(const char *mark)
{
  FILE *f = fopen(SOURCE, "r");
  assert_non_null(f);
  char line[512];
  unsigned n = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    n++;
    if (strstr(line, mark) != NULL) {
      fclose(f);
      return n;
    }
  }
  fclose(f);
  fail_msg("no line marked %s", mark);
  return 0;
}

/* One body under the call that opened it: a path of nodes from the root,
 * each (kind, offset) in the fixture. */
typedef struct step {
  uint8_t kind;
  uint64_t offset;
} step;

/* The name the symbolizer gives the last node of the path. */
static char *name_of_path(const char *path, const step *steps, size_t n, int raw)
{
  char module[256];
  snprintf(module, sizeof module, "%s", path);
  knit_read_module mods[] = {{.id = 0, .path = module}};
  knit_read_node nodes[8] = {{0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT}};
  assert_true(n < 8);
  for (size_t i = 0; i < n; i++)
    nodes[i + 1] = (knit_read_node){(uint32_t)i, 0, steps[i].kind, steps[i].offset};
  knit_read_metric metric = {(uint32_t)n, KNIT_METRIC_SAMPLES, 1};
  knit_thread_file file = {.module_count = 1,
                           .modules = mods,
                           .node_count = (uint32_t)n + 1,
                           .nodes = nodes,
                           .metric_count = 1,
                           .metrics = &metric};
  knit_report_tree t;
  assert_int_equal(knit_report_tree_init(&t), 0);
  assert_int_equal(knit_report_tree_add_thread(&t, &file), 0);
  knit_symbolizer *s = knit_symbolizer_new();
  assert_non_null(s);
  knit_symbolizer_set_raw_names(s, raw);
  knit_report_tree_symbolize(&t, s);
  assert_int_equal(t.node_count, n + 1);
  char *name = strdup(t.nodes[n].function);
  if (!raw && t.nodes[n].raw_function != NULL)
    print_message("  %s (%s)\n", name, t.nodes[n].raw_function);
  knit_symbolizer_free(s);
  knit_report_tree_free(&t);
  return name;
}

/* A body under one call site: the body's sample right under the call. */
static void expect_body(const char *path, uint64_t ra, uint64_t body, const char *want)
{
  step steps[] = {{KNIT_NODE_CALL, ra}, {KNIT_NODE_SAMPLE, body}};
  char *got = name_of_path(path, steps, 2, 0);
  assert_string_equal(got, want);
  free(got);
}

static void label(char *out, size_t n, const char *construct, const char *mark)
{
  snprintf(out, n, "%s at constructs.c:%u", construct, marked_line(mark));
}

static void test_gcc(void **state)
{
  (void)state;
  const char *path = FIXTURE("constructs_gcc");
  program p;
  disassemble(&host_objdump, path, &p);
  char want[128];
  label(want, sizeof want, "parallel", "@parallel");
  expect_body(path, ra_of(&p, "run", "GOMP_parallel"), addr_of(&p, "run._omp_fn.0"), want);
  label(want, sizeof want, "task", "@task ");
  expect_body(path, ra_of(&p, "run._omp_fn", "GOMP_task"), addr_of(&p, "run._omp_fn.1"), want);
  label(want, sizeof want, "taskloop", "@taskloop");
  expect_body(path, ra_of(&p, "run._omp_fn", "GOMP_taskloop"), addr_of(&p, "run._omp_fn.2"), want);
  /* --raw-names: the symbol. */
  step steps[] = {{KNIT_NODE_CALL, ra_of(&p, "run", "GOMP_parallel")},
                  {KNIT_NODE_SAMPLE, addr_of(&p, "run._omp_fn.0")}};
  char *raw = name_of_path(path, steps, 2, 1);
  assert_string_equal(raw, "run._omp_fn.0");
  free(raw);
  /* A body under a call that opens no construct keeps its readable name. */
  expect_body(path, ra_of(&p, "run._omp_fn", "GOMP_single_start"), addr_of(&p, "run._omp_fn.0"),
              "run [omp_fn.0]");
}

/* clang -O2's bodies under the calls that open them. */
static void check_clang(const disassembler *dis, const char *path)
{
  program p;
  disassemble(dis, path, &p);
  char want[128];
  label(want, sizeof want, "parallel", "@parallel");
  uint64_t body = 0;
  for (size_t i = 0; i < p.call_count && body == 0; i++)
    if (strcmp(p.calls[i].callee, "__kmpc_omp_task") == 0)
      body = addr_of(&p, p.calls[i].caller);
  expect_body(path, ra_of(&p, "run", "__kmpc_fork_call"), body, want);
  /* A task is created by two calls: knit may record either. */
  label(want, sizeof want, "task", "@task ");
  expect_body(path, ra_of(&p, "", "__kmpc_omp_task_alloc"), addr_of(&p, ".omp_task_entry."), want);
  expect_body(path, ra_of(&p, "", "__kmpc_omp_task"), addr_of(&p, ".omp_task_entry."), want);
  label(want, sizeof want, "taskloop", "@taskloop");
  expect_body(path, ra_of(&p, "", "__kmpc_taskloop"), addr_of(&p, ".omp_task_entry..2"), want);
  /* A body under a call of the runtime that opens no construct keeps its
   * raw name: the stub of another entry is not taken for the one before
   * or after it. */
  uint64_t single = ra_of(&p, "", "__kmpc_single");
  step steps[] = {{KNIT_NODE_CALL, single}, {KNIT_NODE_SAMPLE, body}};
  char *other = name_of_path(path, steps, 2, 0);
  assert_null(strstr(other, " at constructs.c"));
  free(other);
}

static void test_clang(void **state)
{
  (void)state;
  const char *path = FIXTURE("constructs_clang");
  if (!present(path))
    return;
  check_clang(&host_objdump, path);
}

/* clang -O0: the region's wrapper (.omp_outlined..N) calls its body
 * (.omp_outlined._debug__), which is the construct's body. */
static void test_clang_wrapper(void **state)
{
  (void)state;
  const char *path = FIXTURE("constructs_clang_O0");
  if (!present(path))
    return;
  program p;
  disassemble(&host_objdump, path, &p);
  char want[128];
  label(want, sizeof want, "parallel", "@parallel");
  uint64_t fork = ra_of(&p, "run", "__kmpc_fork_call");
  uint64_t wrapper_call = ra_of(&p, ".omp_outlined.", ".omp_outlined._debug__");
  step steps[] = {{KNIT_NODE_CALL, fork},
                  {KNIT_NODE_CALL, wrapper_call},
                  {KNIT_NODE_SAMPLE, addr_of(&p, ".omp_outlined._debug__")}};
  char *wrapper = name_of_path(path, steps, 2, 0);
  assert_string_equal(wrapper, want);
  free(wrapper);
  label(want, sizeof want, "parallel body", "@parallel");
  char *inner = name_of_path(path, steps, 3, 0);
  assert_string_equal(inner, want);
  free(inner);
}

/* A clang build for POWER (ELFv2 or ELFv1), given as the test's state. */
typedef struct power_case {
  const char *isa;     /* the machine table's row */
  const char *triplet; /* its cross binutils' prefix */
  int dot_symbols;
  char path[512], stripped[512], objdump[128];
} power_case;

static power_case power_cases[] = {
    {.isa = "ppc64le", .triplet = "powerpc64le-linux-gnu", .dot_symbols = 0},
    {.isa = "ppc64", .triplet = "powerpc64-linux-gnu", .dot_symbols = 1},
};

static void test_clang_power(void **state)
{
  const power_case *pc = *state;
  const disassembler dis = {pc->objdump, pc->dot_symbols};
  check_clang(&dis, pc->path);
}

/* The TOC pointer the stubs address their slots from, as the row finds it
 * in a file. */
static uint64_t stub_base_of(const knit_isa_ops *isa, const char *path)
{
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  assert_non_null(elf);
  uint64_t base = isa->plt_stub_base(elf);
  elf_end(elf);
  close(fd);
  return base;
}

/* ... which is the linker's .TOC., as nm reads it, in the fixture and in
 * its copy without symbols alike. */
static void test_stub_base(void **state)
{
  const power_case *pc = *state;
  const knit_isa_ops *isa = knit_isa_named(pc->isa);
  assert_non_null(isa);
  assert_non_null(isa->plt_stub_base);
  char command[700];
  snprintf(command, sizeof command, "%s-nm %s | grep ' \\.TOC\\.$'", pc->triplet, pc->path);
  FILE *f = popen(command, "r");
  assert_non_null(f);
  unsigned long toc = 0;
  assert_int_equal(fscanf(f, "%lx", &toc), 1);
  pclose(f);
  assert_int_not_equal(toc, 0);
  assert_int_equal(stub_base_of(isa, pc->path), toc);
  assert_int_equal(stub_base_of(isa, pc->stripped), toc);
}

/* Whether the cross tools this case reads its fixture with are here. */
static int have_tool(const char *triplet, const char *tool)
{
  char command[256];
  snprintf(command, sizeof command, "command -v %s-%s >/dev/null 2>&1", triplet, tool);
  return system(command) == 0;
}

static int run_power(const char *isa)
{
  power_case *pc = NULL;
  for (size_t i = 0; i < sizeof power_cases / sizeof power_cases[0]; i++)
    if (strcmp(power_cases[i].isa, isa) == 0)
      pc = &power_cases[i];
  if (pc == NULL) {
    fprintf(stderr, "test_construct_names: no case %s (ppc64le or ppc64)\n", isa);
    return 2;
  }
  snprintf(pc->path, sizeof pc->path, "%s/constructs_clang_%s", KNIT_FIXTURE_DIR, pc->isa);
  snprintf(pc->stripped, sizeof pc->stripped, "%s/constructs_clang_%s_stripped", KNIT_FIXTURE_DIR,
           pc->isa);
  snprintf(pc->objdump, sizeof pc->objdump, "%s-objdump", pc->triplet);
  if (access(pc->path, R_OK) != 0 || access(pc->stripped, R_OK) != 0) {
    printf("skip: %s not built (clang-14 or %s-gcc missing)\n", pc->path, pc->triplet);
    return 77;
  }
  if (!have_tool(pc->triplet, "objdump") || !have_tool(pc->triplet, "nm")) {
    printf("skip: %s-objdump or %s-nm missing: nothing to read the fixture with\n", pc->triplet,
           pc->triplet);
    return 77;
  }
  elf_version(EV_CURRENT);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_prestate(test_clang_power, pc),
      cmocka_unit_test_prestate(test_stub_base, pc),
  };
  return cmocka_run_group_tests_name(pc->isa, tests, NULL, NULL);
}

int main(int argc, char **argv)
{
  if (argc > 1)
    return run_power(argv[1]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gcc),
      cmocka_unit_test(test_clang),
      cmocka_unit_test(test_clang_wrapper),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
