/* Every recipe the analyzers emit for whole ELF files, as one digest per
 * file: a change of the analyzers that is meant to leave their results
 * alone (a refactoring, a faster decode) must leave every digest as it
 * was. Run it before and after and compare the lines.
 *
 *   recipe_digest [--cache-only] FILE...
 *
 * For every function of each file (bounds from unwind/bounds.h, code bytes
 * as the file holds them), the analyses the profiler and knit audit run:
 *   cache  as the recipe cache runs it: with the workspace, and a part of a
 *          hot/cold split from its parent's state at the jump into it
 *          (the parent analyzed first, its state at the jump included);
 *   stack  without a workspace (the analyzer's own smaller tables);
 *   short  with room for 7 recipes only (the last one stretched).
 * Each result (the count, or -1, and each recipe's fields) goes into a
 * 64-bit FNV-1a digest per kind; one line per file gives the function
 * count, the analyses run and the three digests. --cache-only runs the
 * first kind only (what a profiled program runs, for timing and profiling
 * the analyzers). Exit status 1 when a file cannot be read. Host only:
 * nothing is run, only decoded. */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler/unwind/bounds.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"

#define MAX_RECIPES 4096 /* the recipe cache's KNIT_RECIPE_SCRATCH */

typedef struct digest {
  uint64_t h;
} digest;

static void mix(digest *d, const void *p, size_t n)
{
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) {
    d->h ^= b[i];
    d->h *= 0x100000001b3ull;
  }
}

static void mix_u64(digest *d, uint64_t v)
{
  mix(d, &v, sizeof v);
}

/* Field by field: the struct's padding is not part of a recipe. */
static void mix_recipe(digest *d, const knit_recipe *r)
{
  mix_u64(d, r->start);
  mix_u64(d, r->end);
  int32_t ints[4] = {r->cfa_offset, r->ra_offset, r->fp_offset, r->fp_sp_delta};
  uint8_t bytes[4] = {r->cfa_base, r->ra_rule, r->fp_rule, r->flags};
  mix(d, ints, sizeof ints);
  mix(d, bytes, sizeof bytes);
}

static void mix_result(digest *d, uint64_t start, int n, const knit_recipe *r)
{
  mix_u64(d, start);
  mix_u64(d, (uint64_t)(int64_t)n);
  for (int i = 0; i < n; i++)
    mix_recipe(d, &r[i]);
}

static void mix_entries(digest *d, const knit_part_entries *e)
{
  mix_u64(d, (uint64_t)(int64_t)e->count);
  for (int i = 0; i < e->count; i++) {
    const knit_jump_state *j = &e->at[i];
    mix_u64(d, j->rule.start);
    mix_recipe(d, &j->rule);
    mix_u64(d, (uint64_t)(int64_t)j->sp_depth);
    mix_u64(d, j->sp_known);
  }
}

typedef struct file {
  Elf *elf;
  const knit_isa_ops *isa;
  knit_func_table funcs;
  csh cs;
  cs_insn *insn;
  knit_recipe *recipes;
  knit_analyze_work *work;
  uint64_t analyses;
  bool cache_only;
  digest cache, stack, part, shortd;
} file;

/* The bytes of [start, end) in the file, clipped to their section. */
static const uint8_t *code_at(file *f, uint64_t start, uint64_t end, size_t *len)
{
  for (Elf_Scn *scn = elf_nextscn(f->elf, NULL); scn; scn = elf_nextscn(f->elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
        start < sh.sh_addr || start >= sh.sh_addr + sh.sh_size)
      continue;
    Elf_Data *data = elf_rawdata(scn, NULL);
    if (!data || !data->d_buf || data->d_size < sh.sh_size)
      return NULL;
    uint64_t limit = sh.sh_addr + sh.sh_size;
    *len = (size_t)((end < limit ? end : limit) - start);
    return (const uint8_t *)data->d_buf + (start - sh.sh_addr);
  }
  return NULL;
}

/* As part_entry in unwind/recipe_cache.c: the states at the parent's jumps
 * into the part [start, end), the parent's own entries worked out first. */
static bool part_entry(file *f, uint64_t start, uint64_t end, int depth, knit_part_entries *entries)
{
  uint64_t pstart, pend;
  size_t plen;
  if (depth >= KNIT_MAX_PART_DEPTH || !f->isa->analyze_entered ||
      !knit_bounds_parent(&f->funcs, start, &pstart, &pend))
    return false;
  const uint8_t *pcode = code_at(f, pstart, pend, &plen);
  if (!pcode || plen == 0)
    return false;
  knit_part_entries parent_entries;
  bool parent_is_part = part_entry(f, pstart, pend, depth + 1, &parent_entries);
  int n = f->isa->analyze_entered((size_t)f->cs, f->insn, pcode, plen, pstart,
                                  parent_is_part ? &parent_entries : NULL, start, end, entries,
                                  f->recipes, MAX_RECIPES, f->work);
  f->analyses++;
  mix_result(&f->part, pstart, n, f->recipes);
  mix_entries(&f->part, entries);
  return n > 0 && knit_part_entry_at(entries, start);
}

static void digest_function(file *f, uint64_t start, uint64_t end)
{
  size_t len;
  const uint8_t *code = code_at(f, start, end, &len);
  if (!code || len == 0)
    return;
  knit_part_entries entries;
  int n;
  if (part_entry(f, start, end, 0, &entries))
    n = f->isa->analyze_entered((size_t)f->cs, f->insn, code, len, start, &entries, 0, 0, NULL,
                                f->recipes, MAX_RECIPES, f->work);
  else
    n = f->isa->analyze((size_t)f->cs, f->insn, code, len, start, f->recipes, MAX_RECIPES, f->work);
  mix_result(&f->cache, start, n, f->recipes);
  f->analyses++;
  if (f->cache_only)
    return;
  n = f->isa->analyze((size_t)f->cs, f->insn, code, len, start, f->recipes, MAX_RECIPES, NULL);
  mix_result(&f->stack, start, n, f->recipes);
  n = f->isa->analyze((size_t)f->cs, f->insn, code, len, start, f->recipes, 7, f->work);
  mix_result(&f->shortd, start, n, f->recipes);
  f->analyses += 2;
}

static int digest_file(const char *path, bool cache_only)
{
  file f = {.cache = {0xcbf29ce484222325ull}, .cache_only = cache_only};
  f.stack = f.part = f.shortd = f.cache;
  char err[256];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  int rc = 1;
  if (fd < 0) {
    perror(path);
    return 1;
  }
  elf_version(EV_CURRENT);
  f.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  if (!f.elf || !gelf_getehdr(f.elf, &eh) || !(f.isa = knit_isa_for_machine(eh.e_machine)) ||
      !f.isa->analyze) {
    fprintf(stderr, "%s: not an ELF file of an ISA with an analyzer\n", path);
    goto out;
  }
  if (knit_bounds_read(path, &f.funcs, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", path, err);
    goto out;
  }
  if (cs_open((cs_arch)f.isa->cs_arch, (cs_mode)f.isa->cs_mode, &f.cs) != CS_ERR_OK)
    goto out_funcs;
  cs_option(f.cs, CS_OPT_DETAIL, CS_OPT_ON);
  f.insn = cs_malloc(f.cs);
  f.recipes = malloc(MAX_RECIPES * sizeof *f.recipes);
  f.work = malloc(sizeof *f.work);
  if (f.insn && f.recipes && f.work) {
    for (size_t i = 0; i < f.funcs.count; i++)
      digest_function(&f, f.funcs.start[i], f.funcs.end[i]);
    printf("%s %s functions=%zu analyses=%" PRIu64 " cache=%016" PRIx64 " part=%016" PRIx64
           " stack=%016" PRIx64 " short=%016" PRIx64 "\n",
           path, f.isa->name, f.funcs.count, f.analyses, f.cache.h, f.part.h, f.stack.h,
           f.shortd.h);
    rc = 0;
  }
  free(f.work);
  free(f.recipes);
  if (f.insn)
    cs_free(f.insn, 1);
  cs_close(&f.cs);
out_funcs:
  knit_bounds_free(&f.funcs);
out:
  if (f.elf)
    elf_end(f.elf);
  close(fd);
  return rc;
}

int main(int argc, char **argv)
{
  bool cache_only = argc > 1 && strcmp(argv[1], "--cache-only") == 0;
  if (argc < 2 + cache_only) {
    fprintf(stderr, "usage: recipe_digest [--cache-only] FILE...\n");
    return 2;
  }
  int rc = 0;
  for (int i = 1 + cache_only; i < argc; i++)
    rc |= digest_file(argv[i], cache_only);
  return rc;
}
