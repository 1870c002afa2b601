/* Outlined bodies named by their construct; the rules are in
 * construct_names.h. */
#include "report/construct_names.h"
#include "report/construct_label.h"
#include "report/plt_callee.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DWARF 4's GNU extension for call sites (DWARF 5's DW_TAG_call_site),
 * which older headers may lack. */
#ifndef DW_TAG_GNU_call_site
#define DW_TAG_GNU_call_site 0x4109
#endif

/* The construct of a runtime entry point. Entries that open nothing
 * (GOMP_parallel_end, GOMP_taskwait) are not here: a body is never under
 * them. clang creates a task in two calls, __kmpc_omp_task_alloc and then
 * __kmpc_omp_task or __kmpc_taskloop; knit may record either as the
 * creation site, so the allocation is a task until the call after it says
 * otherwise (call_sites_kind). */
typedef struct entry {
  const char *name;
  const char *construct;
  bool prefix; /* name begins the entry's name (GOMP_parallel_loop_...) */
} entry;

static const char TASK_ALLOC[] = "task-alloc";

static const entry ENTRIES[] = {
    {"GOMP_parallel_end", NULL, false},
    {"GOMP_parallel", "parallel", true},
    {"GOMP_task", "task", false},
    {"GOMP_taskloop", "taskloop", true},
    {"GOMP_teams", "teams", true},
    {"GOMP_target", "target", true},
    {"__kmpc_fork_call", "parallel", true},
    {"__kmpc_fork_teams", "teams", false},
    {"__kmpc_omp_task_alloc", TASK_ALLOC, false},
    {"__kmpc_omp_target_task_alloc", TASK_ALLOC, false},
    {"__kmpc_omp_task", "task", false},
    {"__kmpc_omp_task_with_deps", "task", false},
    {"__kmpc_taskloop", "taskloop", true},
    {"__tgt_target", "target", true},
};

static const char *entry_kind(const char *name)
{
  if (strncmp(name, "__builtin_", 10) == 0)
    name += 10;
  for (size_t i = 0; i < sizeof ENTRIES / sizeof *ENTRIES; i++) {
    size_t n = strlen(ENTRIES[i].name);
    if (strncmp(name, ENTRIES[i].name, n) == 0 &&
        (name[n] == '\0' || (ENTRIES[i].prefix && name[n] == '_')))
      return ENTRIES[i].construct;
  }
  return NULL;
}

const char *knit_construct_of_entry(const char *name)
{
  const char *kind = entry_kind(name);
  return kind == TASK_ALLOC ? "task" : kind;
}

/* The calls into the runtime of one module that open a construct, by the
 * return address in the DWARF's terms, sorted. */
typedef struct call_site {
  uint64_t return_pc;
  const char *kind; /* an ENTRIES construct, TASK_ALLOC included */
} call_site;

typedef struct call_sites {
  bool read;
  Elf *elf; /* the module file, for calls through its PLT */
  const knit_isa_ops *isa;
  int64_t elf_to_dwarf;
  call_site *sites;
  size_t count;
  size_t cap;
} call_sites;

static const char *callee_name(Dwarf_Die *site)
{
  Dwarf_Attribute attr;
  Dwarf_Die callee;
  if (dwarf_attr(site, DW_AT_call_origin, &attr) == NULL &&
      dwarf_attr(site, DW_AT_abstract_origin, &attr) == NULL)
    return NULL;
  if (dwarf_formref_die(&attr, &callee) == NULL)
    return NULL;
  const char *name = NULL;
  if (dwarf_attr_integrate(&callee, DW_AT_linkage_name, &attr) != NULL)
    name = dwarf_formstring(&attr);
  return name != NULL ? name : dwarf_diename(&callee);
}

static void add_site(call_sites *cs, Dwarf_Die *die)
{
  const char *name = callee_name(die);
  const char *kind = name != NULL ? entry_kind(name) : NULL;
  if (kind == NULL)
    return;
  Dwarf_Attribute attr;
  Dwarf_Addr pc;
  if ((dwarf_attr(die, DW_AT_call_return_pc, &attr) == NULL &&
       dwarf_attr(die, DW_AT_low_pc, &attr) == NULL) ||
      dwarf_formaddr(&attr, &pc) != 0)
    return;
  if (cs->count == cs->cap) {
    size_t cap = cs->cap ? 2 * cs->cap : 32;
    call_site *grown = realloc(cs->sites, cap * sizeof *grown);
    if (grown == NULL)
      return; /* a site fewer: its body keeps its readable name */
    cs->sites = grown;
    cs->cap = cap;
  }
  cs->sites[cs->count++] = (call_site){.return_pc = pc, .kind = kind};
}

/* Call sites are children of the function, or of a scope in it (a lexical
 * block, an inlined function); functions may be inside namespaces and
 * classes. Types and variables hold none, and are not walked. */
static bool may_hold_sites(int tag)
{
  switch (tag) {
  case DW_TAG_compile_unit:
  case DW_TAG_partial_unit:
  case DW_TAG_subprogram:
  case DW_TAG_lexical_block:
  case DW_TAG_inlined_subroutine:
  case DW_TAG_namespace:
  case DW_TAG_module:
  case DW_TAG_class_type:
  case DW_TAG_structure_type: return true;
  default: return false;
  }
}

static void walk(call_sites *cs, Dwarf_Die *parent, int depth)
{
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0)
    return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
      add_site(cs, &child);
    else if (may_hold_sites(tag))
      walk(cs, &child, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

static int by_pc(const void *a, const void *b)
{
  uint64_t x = ((const call_site *)a)->return_pc, y = ((const call_site *)b)->return_pc;
  return (x > y) - (x < y);
}

static void read_sites(call_sites *cs, Dwarf *dw)
{
  Dwarf_Off off = 0, next;
  size_t header;
  while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dw, off + header, &cu) != NULL)
      walk(cs, &cu, 0);
    off = next;
  }
  if (cs->count > 0)
    qsort(cs->sites, cs->count, sizeof *cs->sites, by_pc);
}

/* gcc on POWER gives a call's return pc past the instruction after the
 * call, which restores the TOC pointer (ld r2,24(r1)): the call site of
 * the call returning to ra (DWARF address pc) is then the first one past
 * pc, within one instruction, provided no call ends where it says (that
 * would be the site of the next call, the one returning to ra having
 * none). */
static const call_site *site_past_return(const call_sites *cs, uint64_t ra, uint64_t pc)
{
  size_t lo = 0, hi = cs->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cs->sites[mid].return_pc <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == cs->count || cs->sites[lo].return_pc - pc > 4)
    return NULL;
  uint64_t elf_pc = ra + (cs->sites[lo].return_pc - pc);
  return knit_call_ends_at(cs->elf, cs->isa, elf_pc) ? NULL : &cs->sites[lo];
}

/* The construct the call returning to ELF address ra opens, or NULL. A
 * task allocation is what the call after it in the same code creates:
 * a taskloop when that is __kmpc_taskloop, else a task. */
static const char *call_sites_kind(const call_sites *cs, uint64_t ra)
{
  uint64_t pc = (uint64_t)((int64_t)ra + cs->elf_to_dwarf);
  call_site key = {.return_pc = pc};
  const call_site *hit =
      cs->count ? bsearch(&key, cs->sites, cs->count, sizeof *cs->sites, by_pc) : NULL;
  if (hit == NULL)
    hit = site_past_return(cs, ra, pc);
  if (hit == NULL)
    return NULL;
  if (hit->kind != TASK_ALLOC)
    return hit->kind;
  if (hit + 1 < cs->sites + cs->count && hit[1].kind != TASK_ALLOC &&
      strcmp(hit[1].kind, "taskloop") == 0)
    return "taskloop";
  return "task";
}

static const char *symbol_of(const knit_report_node *n)
{
  return n->raw_function != NULL ? n->raw_function : n->function;
}

static bool is_task_entry(const char *sym)
{
  return strncmp(sym, ".omp_task_entry.", 16) == 0;
}

static bool is_clang_body(const char *sym)
{
  return strstr(sym, ".omp_outlined") != NULL;
}

static bool is_body(const char *sym)
{
  return strstr(sym, "._omp_fn.") != NULL || is_clang_body(sym) || is_task_entry(sym);
}

/* Whether body symbol inner, right under outer in the same module, is the
 * body outer wraps (construct_names.h). */
static bool wrapped_by(const char *inner, const char *outer)
{
  if (is_task_entry(outer))
    return is_clang_body(inner) && strstr(inner, "_debug__") == NULL;
  return is_clang_body(outer) && strstr(outer, "_debug__") == NULL &&
         strstr(inner, "_debug__") != NULL && is_clang_body(inner);
}

typedef struct namer {
  knit_report_tree *t;
  knit_symbolizer *s;
  call_sites *modules; /* by the tree's module index */
} namer;

static const call_sites *sites_of(namer *nm, uint32_t module)
{
  if (module >= nm->t->module_count)
    return NULL;
  call_sites *cs = &nm->modules[module];
  if (!cs->read) {
    cs->read = true;
    Dwarf *dw = knit_symbolizer_dwarf(nm->s, nm->t->modules[module], &cs->elf_to_dwarf);
    cs->elf = knit_symbolizer_elf(nm->s, nm->t->modules[module]);
    GElf_Ehdr eh;
    if (cs->elf != NULL && gelf_getehdr(cs->elf, &eh) != NULL)
      cs->isa = knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
    if (dw != NULL)
      read_sites(cs, dw);
  }
  return cs;
}

/* The construct of body node i and the node of the call that opened it;
 * NULL when none is known. */
static const char *construct_of(namer *nm, uint32_t i, uint32_t *site)
{
  const knit_report_tree *t = nm->t;
  const knit_report_node *body = &t->nodes[i];
  const char *seen = NULL; /* the outermost runtime entry passed */
  uint32_t p = body->parent;
  for (int steps = 0; p != 0 && steps < 32; steps++, p = t->nodes[p].parent) {
    const knit_report_node *n = &t->nodes[p];
    if (n->module == KNIT_MODULE_PLACEHOLDER)
      return NULL;
    if (n->module != body->module) {
      const char *kind = knit_construct_of_entry(symbol_of(n));
      if (kind != NULL)
        seen = kind;
      continue;
    }
    /* The first frame of the body's own module is the one that opened it. */
    const call_sites *cs = sites_of(nm, n->module);
    const char *kind =
        n->kind == KNIT_NODE_CALL && cs != NULL ? call_sites_kind(cs, n->offset) : NULL;
    if (kind == NULL && n->kind == KNIT_NODE_CALL && cs != NULL) {
      const char *callee = knit_plt_callee(cs->elf, cs->isa, n->offset);
      kind = callee != NULL ? knit_construct_of_entry(callee) : NULL;
    }
    if (kind == NULL)
      kind = seen;
    if (kind == NULL && is_task_entry(symbol_of(body)))
      kind = "task";
    *site = p;
    return kind;
  }
  return NULL;
}

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* The name of body node i: NULL to keep the one it has. */
static const char *name_for(namer *nm, uint32_t i, const char **symbols)
{
  knit_report_tree *t = nm->t;
  const knit_report_node *n = &t->nodes[i];
  int inner = 0;
  uint32_t p = n->parent;
  if (p != 0 && t->nodes[p].module == n->module && wrapped_by(symbols[i], symbols[p])) {
    /* The wrapper's own construct and site name the body too. */
    i = p;
    inner = 1;
  }
  uint32_t site = 0;
  const char *kind = construct_of(nm, i, &site);
  if (kind == NULL || t->nodes[site].file == NULL)
    return NULL;
  char text[512];
  knit_construct_label(text, sizeof text, kind, inner, base_name(t->nodes[site].file),
                       t->nodes[site].line);
  return knit_symbolizer_keep(nm->s, text);
}

void knit_construct_names_apply(knit_report_tree *t, knit_symbolizer *s)
{
  namer nm = {.t = t, .s = s, .modules = calloc(t->module_count + 1, sizeof *nm.modules)};
  /* Every body's symbol, taken before any node is renamed: a body's name
   * rests on its wrapper's symbol. */
  const char **symbols = malloc(t->node_count * sizeof *symbols);
  if (nm.modules == NULL || symbols == NULL) {
    free(nm.modules);
    free(symbols);
    return; /* out of memory: the readable names stay */
  }
  for (size_t i = 0; i < t->node_count; i++)
    symbols[i] = t->nodes[i].function != NULL ? symbol_of(&t->nodes[i]) : "";
  const char **names = calloc(t->node_count, sizeof *names);
  if (names != NULL) {
    for (size_t i = 1; i < t->node_count; i++)
      if (t->nodes[i].module < t->module_count && is_body(symbols[i]))
        names[i] = name_for(&nm, (uint32_t)i, symbols);
    for (size_t i = 1; i < t->node_count; i++) {
      if (names[i] == NULL)
        continue;
      t->nodes[i].raw_function = symbols[i];
      t->nodes[i].function = names[i];
    }
  }
  free(names);
  free(symbols);
  for (size_t m = 0; m < t->module_count; m++)
    free(nm.modules[m].sites);
  free(nm.modules);
}
