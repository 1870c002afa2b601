/* The report's loop levels (`loop at FILE:LINE`) for the symbolizer: the
 * loops of a module's machine code around an address (structure.h), each
 * placed after the inlined call its code belongs to, and code that the
 * compiler moved out of a loop's cycle placed back into the loop by its
 * lines. Part of symbolize.c's work, apart because it is one question of
 * its own: which loops hold an address. */
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/dwarf_units.h"
#include "report/inline_scopes.h"
#include "report/symbolize_internal.h"
#include "structure/structure.h"

/* What the structure analysis asks for lines through. */
typedef struct module_lines {
  knit_symbolizer *s;
  uint32_t mi;
} module_lines;

/* The line of a module's address (an ELF address of its file), or 0, and
 * its scope: 0 in the function's own code, else a hash of the inlined
 * calls that hold it. */
static unsigned module_line(void *ctx, uint64_t addr, uint64_t *scope)
{
  module_lines *ml = ctx;
  module_entry *m = &ml->s->modules[ml->mi];
  const char *file = NULL;
  unsigned line = 0;
  Dwarf_Addr a = addr + m->bias;
  *scope = 0;
  if (!knit_dwarf_units_line(knit_sym_units(m), a - m->dwarf_bias, &file, &line))
    return 0;
  Dwarf_Die *cu = knit_dwarf_units_find(knit_sym_units(m), a - m->dwarf_bias);
  knit_inline_call *calls;
  size_t count;
  if (cu != NULL && knit_inline_scopes_at(cu, a - m->dwarf_bias, &calls, &count) == 0) {
    uint64_t h = count ? 0xcbf29ce484222325ull : 0;
    for (size_t i = 0; i < count; i++) {
      for (const char *c = calls[i].function ? calls[i].function : ""; *c; c++)
        h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
      h = (h ^ calls[i].call_line) * 0x100000001b3ull;
    }
    *scope = h;
    free(calls);
  }
  return line;
}

/* The module's structure, opened on first use from the file libdwfl read;
 * NULL when it cannot be. */
static knit_structure *structure_of(knit_symbolizer *s, uint32_t mi)
{
  module_entry *m = &s->modules[mi];
  if (m->structure_tried)
    return m->structure;
  m->structure_tried = true;
  const char *file = NULL;
  if (m->module == NULL ||
      dwfl_module_info(m->module, NULL, NULL, NULL, NULL, NULL, &file, NULL) == NULL ||
      file == NULL)
    return NULL;
  m->lines = malloc(sizeof *m->lines);
  if (m->lines == NULL)
    return NULL;
  *m->lines = (module_lines){.s = s, .mi = mi};
  char err[256];
  m->structure = knit_structure_open(file, module_line, m->lines, err, sizeof err);
  return m->structure;
}

/* Whether two inlined calls are the same call (names are interned). */
static bool same_call(const knit_inline_level *a, const knit_inline_level *b)
{
  return a->function == b->function && a->call_line == b->call_line &&
         (a->call_file == b->call_file ||
          (a->call_file && b->call_file && strcmp(a->call_file, b->call_file) == 0));
}

/* The inlined calls around addr (an ELF address of module mi), for a
 * comparison only: release_calls(s, before) drops them again, so that
 * they are not kept for the report's life (one set a loop of every
 * address asked about). */
static owned_levels *compared_calls(knit_symbolizer *s, uint32_t mi, uint64_t addr, knit_symbol *h)
{
  owned_levels *before = s->levels;
  memset(h, 0, sizeof *h);
  knit_sym_inlined_calls(s, mi, addr + s->modules[mi].bias, h);
  return before;
}

static void release_calls(knit_symbolizer *s, owned_levels *before)
{
  if (s->levels != before) {
    owned_levels *used = s->levels;
    s->levels = used->next;
    free(used);
  }
}

/* How many inlined calls of at (outermost first) the instruction at the
 * latch is inside too. */
static size_t common_calls(const knit_symbol *at, const knit_symbol *latch)
{
  size_t d = 0;
  while (d < at->inlined_count && d < latch->inlined_count &&
         same_call(&at->inlined[d], &latch->inlined[d]))
    d++;
  return d;
}

/* What an instruction of a loop is compared with: the scope and line of
 * an address beside the loop. */
/* The line of at in the scope of its first `scope` inlined calls: the
 * line of the call it makes there, or its own. */
static unsigned line_at_depth(const knit_symbol *at, size_t scope)
{
  return at->inlined_count > scope ? at->inlined[scope].call_line : at->line;
}

/* A hash of at's first depth inlined calls (their names are interned, so
 * a name's address stands for it). */
static uint64_t calls_hash(const knit_symbol *at, size_t depth)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < depth && i < at->inlined_count; i++) {
    h = (h ^ (uint64_t)(uintptr_t)at->inlined[i].function) * 0x100000001b3ull;
    h = (h ^ at->inlined[i].call_line) * 0x100000001b3ull;
  }
  return h;
}

static uint64_t line_key(uint64_t calls, unsigned line)
{
  return (calls ^ ((uint64_t)line << 1 | 1)) * 0x9e3779b97f4a7c15ull;
}

/* What a loop's code says of its lines, found once per loop: its latch's
 * inlined calls (how many, and their hash) and, for each of the loop's
 * instructions inside those calls, the hash of its calls there with its
 * line there, sorted. */
typedef struct loop_lines {
  uint64_t function;
  uint32_t index;
  uint32_t scope;
  uint64_t latch_calls;
  uint64_t *keys;
  size_t count;
} loop_lines;

struct knit_loop_lines_cache {
  loop_lines *v; /* by (function, index) */
  size_t count, cap;
};

void knit_sym_loop_lines_free(module_entry *m)
{
  struct knit_loop_lines_cache *c = m->loop_lines;
  if (!c)
    return;
  for (size_t i = 0; i < c->count; i++)
    free(c->v[i].keys);
  free(c->v);
  free(c);
  m->loop_lines = NULL;
}

typedef struct key_collect {
  knit_symbolizer *s;
  uint32_t mi;
  size_t scope;
  uint64_t *keys;
  size_t count, cap;
} key_collect;

/* The key of one of the loop's instructions, when it is inside the
 * latch's calls (deeper or not). */
static int collect_key(void *ctx, uint64_t addr)
{
  key_collect *c = ctx;
  module_entry *m = &c->s->modules[c->mi];
  knit_symbol here;
  owned_levels *before = compared_calls(c->s, c->mi, addr, &here);
  const char *file = NULL;
  knit_dwarf_units_line(knit_sym_units(m), addr + m->bias - m->dwarf_bias, &file, &here.line);
  unsigned line = line_at_depth(&here, c->scope);
  if (here.inlined_count >= c->scope && line != 0) {
    if (c->count == c->cap) {
      size_t cap = c->cap ? 2 * c->cap : 64;
      uint64_t *k = realloc(c->keys, cap * sizeof *k);
      if (k) {
        c->keys = k;
        c->cap = cap;
      }
    }
    if (c->count < c->cap)
      c->keys[c->count++] = line_key(calls_hash(&here, c->scope), line);
  }
  release_calls(c->s, before);
  return 0;
}

static int compare_keys(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The lines of a loop of module mi, found on first use; NULL out of
 * memory. At most 4,096 of a loop's instructions are read: the code moved
 * out of a loop is its first iteration, which the start of the loop holds. */
static const loop_lines *lines_of_loop(knit_symbolizer *s, uint32_t mi, knit_structure *st,
                                       const knit_loop_ref *loop)
{
  module_entry *m = &s->modules[mi];
  if (!m->loop_lines && !(m->loop_lines = calloc(1, sizeof *m->loop_lines)))
    return NULL;
  struct knit_loop_lines_cache *c = m->loop_lines;
  size_t lo = 0, hi = c->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const loop_lines *x = &c->v[mid];
    if (x->function == loop->function && x->index == loop->index)
      return x;
    if (x->function < loop->function || (x->function == loop->function && x->index < loop->index))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (c->count == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 32;
    loop_lines *v = realloc(c->v, cap * sizeof *v);
    if (!v)
      return NULL;
    c->v = v;
    c->cap = cap;
  }
  knit_symbol latch;
  owned_levels *before = compared_calls(s, mi, loop->latch, &latch);
  loop_lines l = {.function = loop->function,
                  .index = loop->index,
                  .scope = latch.inlined_count,
                  .latch_calls = calls_hash(&latch, latch.inlined_count)};
  release_calls(s, before);
  key_collect k = {.s = s, .mi = mi, .scope = l.scope};
  knit_structure_loop_any(st, loop, 4096, collect_key, &k);
  if (k.count > 0)
    qsort(k.keys, k.count, sizeof *k.keys, compare_keys);
  l.keys = k.keys;
  l.count = k.count;
  memmove(&c->v[lo + 1], &c->v[lo], (c->count - lo) * sizeof *c->v);
  c->v[lo] = l;
  c->count++;
  return &c->v[lo];
}

/* A loop beside addr that addr's code belongs to by its lines, written to
 * *loop; 0 when none does. Compilers move code of a loop out of its
 * cycle: the first iteration, peeled before a loop they unroll (gcc does
 * on POWER at -O2), the loop's entry test, code hoisted out of it. Such
 * code is in the scope of the loop's latch (the same inlined calls), on a
 * line that the loop's own code has there too (directly, or as the line
 * of an inlined call). own holds addr's inlined calls and line. Each
 * loop's lines are found once (lines_of_loop), then looked up. */
static int moved_out_of_loop(knit_symbolizer *s, uint32_t mi, knit_structure *st, uint64_t addr,
                             const knit_symbol *own, knit_loop_ref *loop)
{
  knit_loop_ref beside[32];
  int n = knit_structure_loops_inside(st, addr, beside, 32);
  for (int j = 0; j < n && j < 32; j++) {
    const loop_lines *l = lines_of_loop(s, mi, st, &beside[j]);
    if (!l || own->inlined_count < l->scope || calls_hash(own, l->scope) != l->latch_calls)
      continue;
    unsigned line = line_at_depth(own, l->scope);
    uint64_t key = line_key(l->latch_calls, line);
    if (line != 0 && l->count > 0 &&
        bsearch(&key, l->keys, l->count, sizeof *l->keys, compare_keys) != NULL) {
      *loop = beside[j];
      return 1;
    }
  }
  return 0;
}

/* Adds the loops around addr (an ELF address of module mi) to out's
 * levels: each loop after the inlined call its latch's branch is in (the
 * calls that address and addr have in common: a loop of inlined code
 * belongs to that call), outer loops first. */
void knit_sym_add_loops(knit_symbolizer *s, uint32_t mi, uint64_t addr, knit_symbol *out)
{
  knit_structure *st = structure_of(s, mi);
  knit_loop_ref refs[32];
  int n = st ? knit_structure_loops_at(st, addr, refs, 32) : 0;
  if (n < 0)
    n = 0;
  if (n > 31)
    n = 31;
  module_entry *m = &s->modules[mi];
  /* addr's inlined calls, whether or not the report shows them: loops are
   * placed by them. */
  knit_symbol own = *out;
  owned_levels *own_before = s->levels;
  if (!s->inline_calls) {
    compared_calls(s, mi, addr, &own);
    own.line = out->line;
  }
  if (st && moved_out_of_loop(s, mi, st, addr, &own, &refs[n]))
    n++;
  if (!s->inline_calls)
    release_calls(s, own_before);
  if (n == 0)
    return;
  size_t calls = out->inlined_count;
  owned_levels *o = malloc(sizeof *o + (calls + (size_t)n) * sizeof o->levels[0]);
  if (o == NULL)
    return;
  /* Each loop's place: how many of addr's inlined calls its header is
   * inside too; never less than the loop around it. */
  size_t depth[32];
  for (int j = 0; j < n; j++) {
    knit_symbol h;
    memset(&h, 0, sizeof h);
    owned_levels *before = s->levels;
    if (s->inline_calls)
      before = compared_calls(s, mi, refs[j].latch, &h);
    size_t d = common_calls(out, &h);
    depth[j] = j > 0 && d < depth[j - 1] ? depth[j - 1] : d;
    release_calls(s, before);
  }
  size_t k = 0;
  int j = 0;
  for (size_t d = 0; d <= calls; d++) {
    for (; j < n && depth[j] == d; j++) {
      /* The file of the loop's own code: its latch's branch's line's. */
      const char *file = NULL;
      unsigned line = refs[j].line, latch_line = 0;
      knit_dwarf_units_line(knit_sym_units(m), refs[j].latch + m->bias - m->dwarf_bias, &file,
                            &latch_line);
      if (line == 0)
        line = latch_line;
      char text[600];
      const char *shown = file ? knit_sym_printable(s, file) : NULL;
      const char *slash = shown ? strrchr(shown, '/') : NULL;
      if (shown != NULL && line > 0)
        snprintf(text, sizeof text, "loop at %s:%u", slash ? slash + 1 : shown, line);
      else {
        /* No line: by its header's place in its function, as perf names
         * addresses (clock_gettime+0x26). */
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *fn = m->module ? dwfl_module_addrinfo(m->module, refs[j].header + m->bias, &off,
                                                          &sym, NULL, NULL, NULL)
                                   : NULL;
        if (fn != NULL)
          snprintf(text, sizeof text, "loop at %s+0x%llx", fn, (unsigned long long)off);
        else
          snprintf(text, sizeof text, "loop at %s+0x%llx", m->base_name,
                   (unsigned long long)refs[j].header);
      }
      o->levels[k++] = (knit_inline_level){
          .function = knit_sym_keep(s, text), .call_file = shown, .call_line = line, .loop = 1};
    }
    if (d < calls)
      o->levels[k++] = out->inlined[d];
  }
  o->next = s->levels;
  s->levels = o;
  out->inlined = o->levels;
  out->inlined_count = (uint32_t)k;
}
