/* A module's loops, per function on first use; see structure.h. */
#include "structure/structure.h"

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "structure/cfg.h"
#include "structure/structure_cache.h"
#include "unwind/bounds.h"
#include "unwind/isa.h"

struct knit_structure {
  int fd;
  Elf *elf;
  const knit_isa_ops *isa;
  csh cs;
  bool cs_open;
  knit_func_table funcs;
  /* The functions asked about so far and those the cache file held, by
   * start, sorted: each function's loops in the form the file keeps, so
   * that answers from the file and from the code are one. */
  knit_function_loops *done;
  size_t done_count, done_cap;
  knit_line_of_fn *line_of;
  void *ctx;
  knit_structure_key key;
  char *cache_path; /* NULL: not cached (no build-id, or the cache off) */
  size_t analyzed;  /* functions analyzed from their code */
};

knit_structure *knit_structure_open(const char *path, knit_line_of_fn *line_of, void *ctx,
                                    char *err, size_t errlen)
{
  knit_structure *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  s->fd = -1;
  s->line_of = line_of;
  s->ctx = ctx;
  elf_version(EV_CURRENT);
  s->fd = open(path, O_RDONLY | O_CLOEXEC);
  s->elf = s->fd >= 0 ? elf_begin(s->fd, ELF_C_READ, NULL) : NULL;
  GElf_Ehdr eh;
  if (!s->elf || !gelf_getehdr(s->elf, &eh)) {
    snprintf(err, errlen, "%s: not an ELF file", path);
    knit_structure_close(s);
    return NULL;
  }
  s->isa = knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
  if (!s->isa) {
    snprintf(err, errlen, "%s: an ISA knit does not know", path);
    knit_structure_close(s);
    return NULL;
  }
  if (knit_bounds_read(path, &s->funcs, err, errlen) != 0) {
    knit_structure_close(s);
    return NULL;
  }
  s->cs_open = cs_open(s->isa->cs_arch, s->isa->cs_mode, &s->cs) == CS_ERR_OK;
  if (knit_structure_key_of(s->elf, line_of != NULL, &s->key))
    s->cache_path = knit_structure_cache_path(&s->key);
  if (s->cache_path && knit_structure_cache_read(s->cache_path, &s->key, &s->done, &s->done_count))
    s->done_cap = s->done_count;
  return s;
}

/* The bytes of [start, end) from the executable section holding them. */
static const uint8_t *code_of(const knit_structure *s, uint64_t start, uint64_t end)
{
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
      continue;
    if (start < sh.sh_addr || end > sh.sh_addr + sh.sh_size)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size < sh.sh_size)
      return NULL;
    return (const uint8_t *)d->d_buf + (start - sh.sh_addr);
  }
  return NULL;
}

/* Each loop as the report shows it: its header, and the line naming it,
 * the smallest line of its back edges' source blocks
 * (knit_loops_block_line), with that back edge's branch as its latch (the
 * header block's last branch when no line is known). */
static void name_loops(const knit_structure *s, const knit_cfg *g, const knit_loop_nest *nest,
                       knit_cached_loop *loops)
{
  for (size_t l = 0; l < nest->count; l++) {
    const knit_loop *lp = &nest->loops[l];
    loops[l] = (knit_cached_loop){.header = g->blocks[lp->header].start,
                                  .latch = g->blocks[lp->header].last,
                                  .parent = lp->parent,
                                  .depth = lp->depth};
  }
  if (!s->line_of)
    return;
  for (size_t b = 0; b < g->count && b < nest->block_count; b++) {
    const knit_cfg_block *blk = &g->blocks[b];
    for (uint32_t k = 0; k < knit_cfg_succ_count(blk); k++) {
      uint32_t h = knit_cfg_succ(g, blk, k);
      for (int32_t l = nest->innermost[b]; l >= 0; l = nest->loops[l].parent) {
        if (nest->loops[l].header != h)
          continue;
        unsigned at = knit_loops_block_line(g, (uint32_t)b, s->line_of, s->ctx);
        if (at && (loops[l].line == 0 || at < loops[l].line)) {
          loops[l].line = at;
          loops[l].latch = blk->last;
        }
        /* An inner loop of the same header: the line belongs to the
         * innermost loop that has this back edge. */
        break;
      }
    }
  }
}

/* The code of each loop: the blocks whose innermost loop it is, adjacent
 * ones merged. A block ends where the next begins or earlier (bytes that
 * did not decode); an address between them is in no loop, as it is in no
 * block. */
static bool loop_spans(const knit_cfg *g, const knit_loop_nest *nest, knit_function_loops *f)
{
  size_t n = 0;
  for (size_t b = 0; b < g->count && b < nest->block_count; b++)
    n += nest->innermost[b] >= 0;
  f->spans = calloc(n ? n : 1, sizeof *f->spans);
  if (!f->spans)
    return false;
  for (size_t b = 0; b < g->count && b < nest->block_count; b++) {
    int32_t l = nest->innermost[b];
    if (l < 0)
      continue;
    knit_loop_span *last = f->span_count ? &f->spans[f->span_count - 1] : NULL;
    if (last && last->loop == l && last->end == g->blocks[b].start)
      last->end = g->blocks[b].end;
    else
      f->spans[f->span_count++] =
          (knit_loop_span){.start = g->blocks[b].start, .end = g->blocks[b].end, .loop = l};
  }
  return true;
}

/* Analyzes the code of f (its bounds set): its loops, or f->analyzed
 * false when the code cannot be read or decoded. */
static void analyze(knit_structure *s, knit_function_loops *f)
{
  s->analyzed++;
  const uint8_t *code = s->cs_open ? code_of(s, f->start, f->end) : NULL;
  knit_cfg g;
  knit_loop_nest nest;
  if (!code || knit_cfg_build(s->isa, s->cs, code, f->end - f->start, f->start, &g) != 0)
    return;
  if (knit_loops_find(&g, s->line_of, s->ctx, &nest) == 0) {
    f->loops = calloc(nest.count ? nest.count : 1, sizeof *f->loops);
    if (f->loops && nest.count <= UINT32_MAX && loop_spans(&g, &nest, f)) {
      f->loop_count = (uint32_t)nest.count;
      name_loops(s, &g, &nest, f->loops);
      f->analyzed = true;
    } else {
      knit_function_loops_free(f);
      f->span_count = 0;
    }
    knit_loops_free(&nest);
  }
  knit_cfg_free(&g);
}

/* The loops of the function holding addr: from the cache file, from an
 * earlier question, or analyzed now. */
static knit_function_loops *function_at(knit_structure *s, uint64_t addr)
{
  uint64_t start, end;
  if (!knit_bounds_lookup(&s->funcs, addr, &start, &end))
    return NULL;
  size_t lo = 0, hi = s->done_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->done[mid].start == start && s->done[mid].end == end)
      return &s->done[mid];
    if (s->done[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (s->done_count == s->done_cap) {
    size_t cap = s->done_cap ? s->done_cap * 2 : 64;
    knit_function_loops *v = realloc(s->done, cap * sizeof *v);
    if (!v)
      return NULL;
    s->done = v;
    s->done_cap = cap;
  }
  /* A cached entry of the same start but other bounds (not the table's:
   * the file is untrusted) is analyzed again in its place. */
  knit_function_loops *f = &s->done[lo];
  if (lo < s->done_count && f->start == start) {
    knit_function_loops_free(f);
  } else {
    memmove(&s->done[lo + 1], &s->done[lo], (s->done_count - lo) * sizeof *s->done);
    s->done_count++;
  }
  *f = (knit_function_loops){.start = start, .end = end};
  analyze(s, f);
  return f;
}

/* The innermost loop of f holding addr, or -1. */
static int32_t loop_at(const knit_function_loops *f, uint64_t addr)
{
  size_t lo = 0, hi = f->span_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->spans[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && addr < f->spans[lo - 1].end ? f->spans[lo - 1].loop : -1;
}

static knit_loop_ref ref_of(const knit_function_loops *f, int32_t l)
{
  return (knit_loop_ref){.function = f->start,
                         .index = (uint32_t)l,
                         .header = f->loops[l].header,
                         .latch = f->loops[l].latch,
                         .line = f->loops[l].line};
}

int knit_structure_loops_at(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max)
{
  const knit_function_loops *f = function_at(s, addr);
  if (!f || !f->analyzed)
    return 0;
  int32_t l = loop_at(f, addr);
  int depth = l >= 0 ? (int)f->loops[l].depth : 0;
  for (int d = depth - 1; l >= 0; l = f->loops[l].parent, d--) {
    if (d < max)
      out[d] = ref_of(f, l);
  }
  return depth;
}

int knit_structure_loops_inside(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max)
{
  const knit_function_loops *f = function_at(s, addr);
  if (!f || !f->analyzed)
    return 0;
  int32_t around = loop_at(f, addr);
  int n = 0;
  for (uint32_t l = 0; l < f->loop_count; l++) {
    if (f->loops[l].parent != around)
      continue;
    if (n < max)
      out[n] = ref_of(f, (int32_t)l);
    n++;
  }
  return n;
}

/* Whether loop l of f is loop outer or inside it. */
static bool loop_within(const knit_function_loops *f, int32_t l, int32_t outer)
{
  for (; l >= 0 && (uint32_t)l < f->loop_count; l = f->loops[l].parent)
    if (l == outer)
      return true;
  return false;
}

int knit_structure_loop_any(knit_structure *s, const knit_loop_ref *loop, size_t limit,
                            knit_loop_insn_fn *visit, void *ctx)
{
  const knit_function_loops *f = function_at(s, loop->function);
  if (!f || !f->analyzed || f->start != loop->function || loop->index >= f->loop_count ||
      !s->cs_open)
    return 0;
  cs_insn *in = cs_malloc(s->cs);
  if (!in)
    return 0;
  /* The loop's code, its spans and its inner loops', decoded again: the
   * instructions are not kept (the cache file holds spans only). */
  size_t seen = 0, step = s->isa->cs_arch == CS_ARCH_X86 ? 1 : 4;
  int r = 0;
  for (uint32_t i = 0; i < f->span_count && r == 0 && seen < limit; i++) {
    const knit_loop_span *sp = &f->spans[i];
    const uint8_t *code =
        loop_within(f, sp->loop, (int32_t)loop->index) ? code_of(s, sp->start, sp->end) : NULL;
    size_t left = code ? (size_t)(sp->end - sp->start) : 0;
    uint64_t pc = sp->start;
    while (left > 0 && r == 0 && seen < limit) {
      if (!cs_disasm_iter(s->cs, &code, &left, &pc, in)) {
        size_t k = left < step ? left : step;
        code += k, left -= k, pc += k;
        continue;
      }
      seen++;
      r = visit(ctx, in->address);
    }
  }
  cs_free(in, 1);
  return r;
}

size_t knit_structure_loop_count(const knit_structure *s)
{
  size_t n = 0;
  for (size_t i = 0; i < s->done_count; i++)
    n += s->done[i].analyzed ? s->done[i].loop_count : 0;
  return n;
}

size_t knit_structure_analyzed_count(const knit_structure *s)
{
  return s->analyzed;
}

/* Writes the cache file: the functions known now, with those another
 * report wrote to the file since it was read (reports of one module may
 * run at once; each adds what it analyzed, and the last rename keeps
 * both). */
static void save(knit_structure *s)
{
  knit_function_loops *other = NULL, *all = NULL;
  size_t other_count = 0, n = 0;
  knit_structure_cache_read(s->cache_path, &s->key, &other, &other_count);
  all = malloc((s->done_count + other_count + 1) * sizeof *all);
  if (all) {
    size_t i = 0, j = 0;
    while (i < s->done_count || j < other_count) {
      /* Ours first at equal starts; theirs only where ours leave room. */
      bool take_ours =
          j == other_count || (i < s->done_count && s->done[i].start <= other[j].start);
      const knit_function_loops *f = take_ours ? &s->done[i++] : &other[j++];
      if (n > 0 && f->start < all[n - 1].end)
        continue;
      if (!take_ours && i < s->done_count && f->end > s->done[i].start)
        continue;
      all[n++] = *f;
    }
    knit_structure_cache_write(s->cache_path, &s->key, all, n);
  }
  free(all);
  for (size_t j = 0; j < other_count; j++)
    knit_function_loops_free(&other[j]);
  free(other);
}

void knit_structure_close(knit_structure *s)
{
  if (!s)
    return;
  /* Without Capstone nothing was analyzed for real: not a result to keep. */
  if (s->cache_path && s->analyzed > 0 && s->cs_open)
    save(s);
  for (size_t i = 0; i < s->done_count; i++)
    knit_function_loops_free(&s->done[i]);
  free(s->done);
  free(s->cache_path);
  if (s->funcs.start)
    knit_bounds_free(&s->funcs);
  if (s->cs_open)
    cs_close(&s->cs);
  if (s->elf)
    elf_end(s->elf);
  if (s->fd >= 0)
    close(s->fd);
  free(s);
}
