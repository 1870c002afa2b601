/* Unit tests of the structure analysis (profiler/structure): loop nests
 * from control-flow graphs made by hand, then from the machine code of
 * test_loops_subject.c as each compiler of this machine builds it (gcc
 * and clang natively, the aarch64, ppc64le and ppc64 cross compilers): the
 * loops the source writes, no more and no fewer, nested as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "structure/cfg.h"
#include "structure/loops.h"
#include "structure/structure.h"

/* ---- graphs made by hand ---- */

/* A graph of n blocks at addresses 0x10 * i, with the edges given as
 * (from, to) pairs. */
static knit_cfg graph(size_t n, size_t edges, const uint32_t (*e)[2])
{
  knit_cfg g = {calloc(n, sizeof(knit_cfg_block)), n, calloc(n, sizeof(uint64_t)), n, NULL};
  assert_non_null(g.blocks);
  assert_non_null(g.insn_at);
  for (size_t i = 0; i < n; i++) {
    g.blocks[i].start = 0x10 * i;
    g.blocks[i].end = 0x10 * i + 0x10;
    g.blocks[i].last = 0x10 * i;
    g.blocks[i].first_insn = (uint32_t)i;
    g.blocks[i].insn_count = 1;
    g.insn_at[i] = 0x10 * i;
  }
  for (size_t k = 0; k < edges; k++) {
    knit_cfg_block *b = &g.blocks[e[k][0]];
    assert_true(b->succ_count < 2);
    b->succ[b->succ_count++] = e[k][1];
  }
  return g;
}

static void test_nested_by_hand(void **state)
{
  (void)state;
  /* 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 (inner back edge);
   * 3 -> 4 -> 1 (outer back edge); 1 -> 5 (exit). */
  const uint32_t e[][2] = {{0, 1}, {1, 2}, {1, 5}, {2, 3}, {3, 2}, {3, 4}, {4, 1}};
  knit_cfg g = graph(6, sizeof e / sizeof e[0], e);
  knit_loop_nest nest;
  assert_int_equal(knit_loops_find(&g, NULL, NULL, &nest), 0);
  assert_int_equal(nest.count, 2);
  assert_int_equal(nest.loops[0].header, 1);
  assert_int_equal(nest.loops[0].depth, 1);
  assert_int_equal(nest.loops[0].parent, -1);
  assert_int_equal(nest.loops[0].blocks, 4);
  assert_int_equal(nest.loops[1].header, 2);
  assert_int_equal(nest.loops[1].depth, 2);
  assert_int_equal(nest.loops[1].parent, 0);
  assert_int_equal(nest.loops[1].blocks, 2);
  assert_int_equal(nest.innermost[0], -1);
  assert_int_equal(nest.innermost[4], 0);
  assert_int_equal(nest.innermost[3], 1);
  assert_int_equal(nest.innermost[5], -1);
  assert_int_equal(knit_loops_at(&nest, &g, 0x34), 1);
  assert_int_equal(knit_loops_at(&nest, &g, 0x48), 0);
  assert_true(knit_loops_holds(&nest, 0, 3));
  assert_false(knit_loops_holds(&nest, 1, 4));
  knit_loops_free(&nest);
  knit_cfg_free(&g);
}

static void test_self_loop_and_two_back_edges(void **state)
{
  (void)state;
  /* 1 loops on itself; 2 is the header of a loop with two back edges
   * (from 3 and from 4: a continue). */
  const uint32_t e[][2] = {{0, 1}, {1, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 2}, {4, 5}};
  knit_cfg g = graph(6, sizeof e / sizeof e[0], e);
  knit_loop_nest nest;
  assert_int_equal(knit_loops_find(&g, NULL, NULL, &nest), 0);
  assert_int_equal(nest.count, 2);
  assert_int_equal(nest.loops[0].header, 1);
  assert_int_equal(nest.loops[0].blocks, 1);
  assert_int_equal(nest.loops[1].header, 2);
  assert_int_equal(nest.loops[1].blocks, 3);
  assert_int_equal(nest.loops[1].parent, -1);
  knit_loops_free(&nest);
  knit_cfg_free(&g);
}

/* Lines of the hand-made graphs' back edges: by block address. */
static unsigned line_by_block(void *ctx, uint64_t addr, uint64_t *scope)
{
  const unsigned *lines = ctx;
  *scope = 0;
  return lines[addr / 0x10];
}

static void test_shared_header(void **state)
{
  (void)state;
  /* gcc's shape for two nested loops: the inner loop's header 1 is also
   * where the outer loop's latch 3 jumps back to. 2 is the inner latch
   * (line 20), 3 the outer's (line 10): two loops, one header. */
  const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 1}, {3, 4}};
  knit_cfg g = graph(5, sizeof e / sizeof e[0], e);
  unsigned lines[5] = {5, 20, 20, 10, 30};
  knit_loop_nest nest;
  assert_int_equal(knit_loops_find(&g, line_by_block, lines, &nest), 0);
  assert_int_equal(nest.count, 2);
  assert_int_equal(nest.loops[0].header, 1);
  assert_int_equal(nest.loops[0].blocks, 3);
  assert_int_equal(nest.loops[1].header, 1);
  assert_int_equal(nest.loops[1].blocks, 2);
  assert_int_equal(nest.loops[1].parent, 0);
  assert_int_equal(nest.innermost[2], 1);
  assert_int_equal(nest.innermost[3], 0);
  knit_loops_free(&nest);
  /* Both latches on one line (a continue): one loop. */
  lines[3] = 20;
  assert_int_equal(knit_loops_find(&g, line_by_block, lines, &nest), 0);
  assert_int_equal(nest.count, 1);
  knit_loops_free(&nest);
  /* Without lines: one loop per header. */
  assert_int_equal(knit_loops_find(&g, NULL, NULL, &nest), 0);
  assert_int_equal(nest.count, 1);
  assert_int_equal(nest.loops[0].blocks, 3);
  knit_loops_free(&nest);
  knit_cfg_free(&g);
}

static void test_irreducible_and_unreachable(void **state)
{
  (void)state;
  /* 0 branches into both 1 and 2, which go to each other: a cycle with two
   * entries, no header. Block 3 is reached by nothing and loops on
   * itself: not a loop of the function. */
  const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {3, 3}};
  knit_cfg g = graph(4, sizeof e / sizeof e[0], e);
  knit_loop_nest nest;
  assert_int_equal(knit_loops_find(&g, NULL, NULL, &nest), 0);
  assert_int_equal(nest.count, 0);
  for (size_t b = 0; b < 4; b++)
    assert_int_equal(nest.innermost[b], -1);
  knit_loops_free(&nest);
  knit_cfg_free(&g);
}

/* ---- compiled code ---- */

typedef struct subject {
  int fd;
  Elf *elf;
  Dwarf *dwarf;
  const knit_isa_ops *isa;
} subject;

/* The line of addr from the subject's DWARF (its compile units' own
 * ranges: clang writes no .debug_aranges). */
static unsigned subject_line(void *ctx, uint64_t addr, uint64_t *scope)
{
  const subject *s = ctx;
  *scope = 0; /* the subject inlines nothing into its loops */
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (s->dwarf && dwarf_nextcu(s->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(s->dwarf, off + hsize, &cu) && dwarf_haspc(&cu, addr) == 1) {
      Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
      int line = 0;
      if (l && dwarf_lineno(l, &line) == 0)
        return (unsigned)line;
    }
    off = next;
  }
  return 0;
}

static bool open_subject(const char *path, subject *s)
{
  elf_version(EV_CURRENT);
  s->fd = open(path, O_RDONLY);
  s->elf = s->fd >= 0 ? elf_begin(s->fd, ELF_C_READ, NULL) : NULL;
  GElf_Ehdr eh;
  if (!s->elf || !gelf_getehdr(s->elf, &eh))
    return false;
  s->isa = knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
  s->dwarf = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
  return s->isa != NULL;
}

static void close_subject(subject *s)
{
  if (s->dwarf)
    dwarf_end(s->dwarf);
  if (s->elf)
    elf_end(s->elf);
  if (s->fd >= 0)
    close(s->fd);
}

/* The code of the function named name: its address, bytes and length. */
static bool function_code(const subject *s, const char *name, uint64_t *addr, const uint8_t **code,
                          size_t *len)
{
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
        continue;
      const char *n = elf_strptr(s->elf, sh.sh_link, sym.st_name);
      if (!n || strcmp(n, name) != 0)
        continue;
      uint64_t at = sym.st_value;
      if (s->isa->symbol_code && !s->isa->symbol_code(s->elf, sym.st_shndx, sym.st_value, &at))
        return false;
      /* The executable section that holds the code. */
      Elf_Scn *c = NULL;
      GElf_Shdr ch;
      while ((c = elf_nextscn(s->elf, c)) != NULL) {
        if (!gelf_getshdr(c, &ch) || !(ch.sh_flags & SHF_EXECINSTR) || at < ch.sh_addr ||
            at + sym.st_size > ch.sh_addr + ch.sh_size)
          continue;
        Elf_Data *cd = elf_getdata(c, NULL);
        if (!cd)
          return false;
        *addr = at;
        *code = (const uint8_t *)cd->d_buf + (at - ch.sh_addr);
        *len = sym.st_size;
        return true;
      }
    }
  }
  return false;
}

/* The loops of one function, with their depths in order (outer first). */
static knit_loop_nest loops_of(const subject *s, csh cs, const char *name, knit_cfg *g)
{
  uint64_t addr = 0;
  const uint8_t *code = NULL;
  size_t len = 0;
  if (!function_code(s, name, &addr, &code, &len))
    fail_msg("%s: no function %s", s->isa->name, name);
  assert_int_equal(knit_cfg_build(s->isa, cs, code, len, addr, g), 0);
  knit_loop_nest nest;
  assert_int_equal(knit_loops_find(g, subject_line, (void *)s, &nest), 0);
  return nest;
}

/* loops_switch's case lines (their marker comments), read from the
 * subject's source once. */
static unsigned case_lines[16];
static size_t case_lines_count;

static size_t case_count(void)
{
  static bool read;
  if (!read) {
    read = true;
    FILE *f = fopen(KNIT_LOOPS_SUBJECT_SOURCE, "r");
    char text[256];
    for (unsigned at = 1; f && fgets(text, sizeof text, f); at++)
      if (strstr(text, "/* case */") && case_lines_count < 16)
        case_lines[case_lines_count++] = at;
    if (f)
      fclose(f);
    assert_true(case_lines_count >= 7);
  }
  return case_lines_count;
}

/* Which case a source line is, or -1. */
static int case_index(unsigned line)
{
  for (size_t i = 0; i < case_count(); i++)
    if (case_lines[i] == line)
      return (int)i;
  return -1;
}

static void check_subject(const char *path)
{
  subject s = {.fd = -1};
  if (!open_subject(path, &s))
    fail_msg("%s: not an ELF file of a known ISA", path);
  csh cs;
  assert_int_equal(cs_open(s.isa->cs_arch, s.isa->cs_mode, &cs), CS_ERR_OK);
  knit_cfg g;
  print_message("  %s (%s)\n", path, s.isa->name);

  knit_loop_nest nest = loops_of(&s, cs, "loops_nest3", &g);
  if (nest.count != 3)
    fail_msg("%s loops_nest3: %zu loops, not 3", s.isa->name, nest.count);
  for (size_t l = 0; l < 3; l++) {
    assert_int_equal(nest.loops[l].depth, l + 1);
    assert_int_equal(nest.loops[l].parent, (int32_t)l - 1);
  }
  knit_loops_free(&nest);
  knit_cfg_free(&g);

  nest = loops_of(&s, cs, "loops_sequence", &g);
  if (nest.count != 2)
    fail_msg("%s loops_sequence: %zu loops, not 2", s.isa->name, nest.count);
  assert_int_equal(nest.loops[0].depth, 1);
  assert_int_equal(nest.loops[1].depth, 1);
  knit_loops_free(&nest);
  knit_cfg_free(&g);

  nest = loops_of(&s, cs, "loops_siblings", &g);
  if (nest.count != 3)
    fail_msg("%s loops_siblings: %zu loops, not 3", s.isa->name, nest.count);
  assert_int_equal(nest.loops[0].depth, 1);
  assert_int_equal(nest.loops[1].parent, 0);
  assert_int_equal(nest.loops[2].parent, 0);
  knit_loops_free(&nest);
  knit_cfg_free(&g);

  /* A switch in a loop: the cases, entered through the jump table's
   * indirect jump, are in the loop, the only one. */
  nest = loops_of(&s, cs, "loops_switch", &g);
  if (nest.count != 1)
    fail_msg("%s loops_switch: %zu loops, not 1", s.isa->name, nest.count);
  /* Every case has code in the loop (a case's line may also be carried on
   * by an instruction after it, such as a shared return). */
  unsigned in_loop[16] = {0};
  size_t cases = 0;
  for (size_t b = 0; b < g.count; b++) {
    if (!knit_loops_holds(&nest, 0, (uint32_t)b))
      continue;
    for (uint32_t i = 0; i < g.blocks[b].insn_count; i++) {
      uint64_t scope;
      int k = case_index(subject_line(&s, g.insn_at[g.blocks[b].first_insn + i], &scope));
      if (k >= 0 && in_loop[k]++ == 0)
        cases++;
    }
  }
  if (cases != case_count())
    fail_msg("%s loops_switch: code of %zu of the %zu cases in the loop", s.isa->name, cases,
             case_count());
  knit_loops_free(&nest);
  knit_cfg_free(&g);

  nest = loops_of(&s, cs, "loops_none", &g);
  assert_int_equal(nest.count, 0);
  knit_loops_free(&nest);
  knit_cfg_free(&g);

  /* The module view: each loop of loops_nest3 named by its own for
   * statement's line (16, 17 and 18 in test_loops_subject.c), wherever in
   * the function the address is asked. */
  char err[256];
  knit_structure *st = knit_structure_open(path, subject_line, &s, err, sizeof err);
  if (!st)
    fail_msg("%s", err);
  uint64_t addr = 0;
  const uint8_t *code = NULL;
  size_t len = 0;
  assert_true(function_code(&s, "loops_nest3", &addr, &code, &len));
  unsigned line_at_depth[4] = {0};
  int deepest = 0;
  for (uint64_t a = addr; a < addr + len; a++) {
    knit_loop_ref r[4];
    int d = knit_structure_loops_at(st, a, r, 4);
    assert_true(d >= 0 && d <= 3);
    for (int k = 0; k < d; k++) {
      if (line_at_depth[k] == 0)
        line_at_depth[k] = r[k].line;
      if (line_at_depth[k] != r[k].line)
        fail_msg("%s: the loop at depth %d is named by lines %u and %u", s.isa->name, k + 1,
                 line_at_depth[k], r[k].line);
    }
    if (d > deepest)
      deepest = d;
  }
  assert_int_equal(deepest, 3);
  print_message("    loops_nest3: lines %u, %u, %u\n", line_at_depth[0], line_at_depth[1],
                line_at_depth[2]);
  assert_int_equal(line_at_depth[0], 16);
  assert_int_equal(line_at_depth[1], 17);
  assert_int_equal(line_at_depth[2], 18);
  knit_structure_close(st);

  cs_close(&cs);
  close_subject(&s);
}

static void test_compiled(void **state)
{
  (void)state;
  char list[] = KNIT_LOOPS_SUBJECTS;
  size_t checked = 0;
  for (char *p = strtok(list, ";"); p; p = strtok(NULL, ";")) {
    if (access(p, R_OK) != 0)
      continue; /* a compiler this machine lacks */
    check_subject(p);
    checked++;
  }
  if (checked == 0)
    skip();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nested_by_hand), cmocka_unit_test(test_self_loop_and_two_back_edges),
      cmocka_unit_test(test_shared_header),  cmocka_unit_test(test_irreducible_and_unreachable),
      cmocka_unit_test(test_compiled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
