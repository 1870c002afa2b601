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
#include "unwind/bounds.h"
#include "unwind/isa.h"

/* One analyzed function. */
typedef struct function_loops {
  uint64_t start, end;
  knit_cfg cfg;
  knit_loop_nest nest;
  unsigned *line;  /* per loop: the line naming it */
  uint64_t *latch; /* per loop: the branch of that back edge */
  bool analyzed;   /* false: its code could not be read or decoded */
} function_loops;

struct knit_structure {
  int fd;
  Elf *elf;
  const knit_isa_ops *isa;
  csh cs;
  bool cs_open;
  knit_func_table funcs;
  function_loops *done; /* by start, sorted */
  size_t done_count, done_cap;
  knit_line_of_fn *line_of;
  void *ctx;
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

/* The line naming each loop: the smallest line of its back edges' source
 * blocks (knit_loops_block_line). */
static unsigned *loop_lines(const knit_structure *s, function_loops *f)
{
  size_t n = f->nest.count;
  unsigned *line = calloc(n ? n : 1, sizeof *line);
  f->latch = calloc(n ? n : 1, sizeof *f->latch);
  if (!line || !f->latch) {
    free(line);
    return NULL;
  }
  for (size_t l = 0; l < n; l++)
    f->latch[l] = f->cfg.blocks[f->nest.loops[l].header].last;
  if (!s->line_of)
    return line;
  for (size_t b = 0; b < f->cfg.count; b++) {
    const knit_cfg_block *blk = &f->cfg.blocks[b];
    for (uint32_t k = 0; k < knit_cfg_succ_count(blk); k++) {
      uint32_t h = knit_cfg_succ(&f->cfg, blk, k);
      for (int32_t l = f->nest.innermost[b]; l >= 0; l = f->nest.loops[l].parent) {
        if (f->nest.loops[l].header != h)
          continue;
        unsigned at = knit_loops_block_line(&f->cfg, (uint32_t)b, s->line_of, s->ctx);
        if (at && (line[l] == 0 || at < line[l])) {
          line[l] = at;
          f->latch[l] = blk->last;
        }
        /* An inner loop of the same header: the line belongs to the
         * innermost loop that has this back edge. */
        break;
      }
    }
  }
  return line;
}

static function_loops *function_at(knit_structure *s, uint64_t addr)
{
  uint64_t start, end;
  if (!knit_bounds_lookup(&s->funcs, addr, &start, &end))
    return NULL;
  size_t lo = 0, hi = s->done_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->done[mid].start == start)
      return &s->done[mid];
    if (s->done[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (s->done_count == s->done_cap) {
    size_t cap = s->done_cap ? s->done_cap * 2 : 64;
    function_loops *v = realloc(s->done, cap * sizeof *v);
    if (!v)
      return NULL;
    s->done = v;
    s->done_cap = cap;
  }
  memmove(&s->done[lo + 1], &s->done[lo], (s->done_count - lo) * sizeof *s->done);
  s->done_count++;
  function_loops *f = &s->done[lo];
  memset(f, 0, sizeof *f);
  f->start = start;
  f->end = end;
  const uint8_t *code = s->cs_open ? code_of(s, start, end) : NULL;
  if (code && knit_cfg_build(s->isa, s->cs, code, end - start, start, &f->cfg) == 0) {
    if (knit_loops_find(&f->cfg, s->line_of, s->ctx, &f->nest) == 0) {
      f->line = loop_lines(s, f);
      f->analyzed = f->line != NULL;
    }
  }
  return f;
}

static knit_loop_ref ref_of(const function_loops *f, int32_t l)
{
  return (knit_loop_ref){.function = f->start,
                         .index = (uint32_t)l,
                         .header = f->cfg.blocks[f->nest.loops[l].header].start,
                         .latch = f->latch[l],
                         .line = f->line[l]};
}

int knit_structure_loops_at(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max)
{
  function_loops *f = function_at(s, addr);
  if (!f || !f->analyzed)
    return 0;
  int32_t l = knit_loops_at(&f->nest, &f->cfg, addr);
  int depth = l >= 0 ? (int)f->nest.loops[l].depth : 0;
  for (int d = depth - 1; l >= 0; l = f->nest.loops[l].parent, d--) {
    if (d < max)
      out[d] = ref_of(f, l);
  }
  return depth;
}

int knit_structure_loops_inside(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max)
{
  function_loops *f = function_at(s, addr);
  if (!f || !f->analyzed)
    return 0;
  int32_t around = knit_loops_at(&f->nest, &f->cfg, addr);
  int n = 0;
  for (size_t l = 0; l < f->nest.count; l++) {
    if (f->nest.loops[l].parent != around)
      continue;
    if (n < max)
      out[n] = ref_of(f, (int32_t)l);
    n++;
  }
  return n;
}

int knit_structure_loop_any(knit_structure *s, const knit_loop_ref *loop, size_t limit,
                            knit_loop_insn_fn *visit, void *ctx)
{
  function_loops *f = function_at(s, loop->function);
  if (!f || !f->analyzed || f->start != loop->function || loop->index >= f->nest.count)
    return 0;
  size_t seen = 0;
  for (size_t b = 0; b < f->cfg.count; b++) {
    if (!knit_loops_holds(&f->nest, (int32_t)loop->index, (uint32_t)b))
      continue;
    const knit_cfg_block *blk = &f->cfg.blocks[b];
    for (uint32_t i = 0; i < blk->insn_count; i++) {
      if (seen++ == limit)
        return 0;
      int r = visit(ctx, f->cfg.insn_at[blk->first_insn + i]);
      if (r)
        return r;
    }
  }
  return 0;
}

size_t knit_structure_loop_count(const knit_structure *s)
{
  size_t n = 0;
  for (size_t i = 0; i < s->done_count; i++)
    n += s->done[i].analyzed ? s->done[i].nest.count : 0;
  return n;
}

void knit_structure_close(knit_structure *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->done_count; i++) {
    knit_cfg_free(&s->done[i].cfg);
    knit_loops_free(&s->done[i].nest);
    free(s->done[i].line);
    free(s->done[i].latch);
  }
  free(s->done);
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
