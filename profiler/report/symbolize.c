/* libdwfl symbolization with caches; see symbolize.h.
 *
 * One Dwfl session per module file: reporting every file at base 0 in one
 * session would make their address ranges overlap. Names returned by libdwfl
 * stay valid while its session lives, so sessions live as long as the
 * symbolizer, and only the names knit makes up itself are copied into the
 * symbolizer's string list.
 *
 * Function names come from the symbol tables (libdwfl), made readable once
 * per symbol (names.h); lines come from the module's DWARF through a table
 * of its compile units (dwarf_units.h), which needs no .debug_aranges, and
 * from libdwfl's own look-up where that table has no answer.
 *
 * Every name handed out is printable (measure/read_printable.h): symbol and
 * file names come from files the measurement names, and the fallback names
 * from its module paths, so any of them may hold bytes a terminal obeys.
 * The few that do are copied in their printable form. */
#include "report/symbolize.h"
#include "report/symbolize_internal.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/read_printable.h"
#include "report/construct_label.h"
#include "report/construct_names.h"
#include "report/dwarf_units.h"
#include "report/image_copies.h"
#include "report/inline_scopes.h"
#include "report/names.h"
#include "structure/structure.h"
#include "unwind/isa.h"

/* A copy of text's printable form that lives as long as the symbolizer. */
const char *knit_sym_keep(knit_symbolizer *s, const char *text)
{
  size_t len = knit_printable_length(text);
  owned_string *o = malloc(sizeof *o + len + 1);
  if (o == NULL)
    return "<out of memory>";
  knit_printable(text, o->text, len + 1);
  o->next = s->strings;
  s->strings = o;
  return o->text;
}

/* A name made up by the symbolizer, kept once for each text: names_of
 * knows names by their address. Such names are few (one for each Fortran
 * module procedure inlined somewhere), so a list serves. */
static const char *composed_name(knit_symbolizer *s, const char *text)
{
  for (owned_string *o = s->composed; o != NULL; o = o->next)
    if (strcmp(o->text, text) == 0)
      return o->text;
  size_t len = strlen(text);
  owned_string *o = malloc(sizeof *o + len + 1);
  if (o == NULL)
    return "<out of memory>";
  memcpy(o->text, text, len + 1);
  o->next = s->composed;
  s->composed = o;
  return o->text;
}

/* text itself when it is printable (libdwfl's names live as long as the
 * symbolizer), else a kept copy of its printable form. */
const char *knit_sym_printable(knit_symbolizer *s, const char *text)
{
  return knit_is_printable(text) ? text : knit_sym_keep(s, text);
}

knit_symbolizer *knit_symbolizer_new(void)
{
  knit_symbolizer *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->cache_slots = 4096;
  s->cache = malloc(s->cache_slots * sizeof *s->cache);
  s->name_slots = 1024;
  s->names = malloc(s->name_slots * sizeof *s->names);
  if (s->cache == NULL || s->names == NULL) {
    free(s->cache);
    free(s->names);
    free(s);
    return NULL;
  }
  for (size_t i = 0; i < s->cache_slots; i++)
    s->cache[i].module = UINT32_MAX;
  for (size_t i = 0; i < s->name_slots; i++)
    s->names[i].module = UINT32_MAX;
  s->callbacks = (Dwfl_Callbacks){
      .find_elf = dwfl_build_id_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = &s->debuginfo_path,
  };
  return s;
}

void knit_symbolizer_set_raw_names(knit_symbolizer *s, int raw)
{
  s->raw_names = raw;
}

void knit_symbolizer_set_inline(knit_symbolizer *s, int on)
{
  s->inline_calls = on;
}

void knit_symbolizer_set_loops(knit_symbolizer *s, int on)
{
  s->loops = on;
}

int knit_symbolizer_set_debuginfo_path(knit_symbolizer *s, const char *path)
{
  char *copy = NULL;
  if (path != NULL && (copy = strdup(path)) == NULL)
    return -1;
  free(s->debuginfo_path);
  s->debuginfo_path = copy;
  return 0;
}

void knit_symbolizer_free(knit_symbolizer *s)
{
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->module_count; i++) {
    knit_dwarf_units_free(&s->modules[i].units);
    knit_structure_close(s->modules[i].structure);
    knit_sym_loop_lines_free(&s->modules[i]);
    free(s->modules[i].lines);
    if (s->modules[i].dwfl != NULL)
      dwfl_end(s->modules[i].dwfl);
    free(s->modules[i].path);
  }
  free(s->modules);
  free(s->cache);
  free(s->names);
  free(s->debuginfo_path);
  free(s->measurement_dir);
  knit_image_copies_free(s->image_copies);
  while (s->composed != NULL) {
    owned_string *next = s->composed->next;
    free(s->composed);
    s->composed = next;
  }
  while (s->strings != NULL) {
    owned_string *next = s->strings->next;
    free(s->strings);
    s->strings = next;
  }
  while (s->levels != NULL) {
    owned_levels *next = s->levels->next;
    free(s->levels);
    s->levels = next;
  }
  free(s);
}

/* Opens file as the module's ELF file; false when it cannot be read or is
 * of another ISA than the measurement's. */
static bool try_open(module_entry *m, const char *file, const knit_isa_ops *isa,
                     const Dwfl_Callbacks *callbacks)
{
  m->dwfl = dwfl_begin(callbacks);
  if (m->dwfl == NULL)
    return false;
  dwfl_report_begin(m->dwfl);
  m->module = dwfl_report_elf(m->dwfl, m->base_name, file, -1, 0, false);
  dwfl_report_end(m->dwfl, NULL, NULL);
  Elf *elf = m->module ? dwfl_module_getelf(m->module, &m->bias) : NULL;
  GElf_Ehdr eh;
  if (elf && (isa == NULL || (gelf_getehdr(elf, &eh) && eh.e_machine == isa->elf_machine &&
                              eh.e_ident[EI_DATA] == isa->elf_data)))
    return true;
  dwfl_end(m->dwfl);
  m->dwfl = NULL;
  m->module = NULL;
  return false;
}

/* Where the files of a program run under QEMU live on the host: the guest
 * names its libraries as it sees them (/lib/libc.so.6), QEMU finds them
 * under the sysroot it was given with -L. KNIT_SYSROOT names another. */
static const char *sysroot_for(const knit_isa_ops *isa)
{
  const char *env = getenv("KNIT_SYSROOT");
  if (env && *env)
    return env;
  return isa && isa->sysroot[0] ? isa->sysroot : NULL; /* the machine table's */
}

static void open_module(module_entry *m, const knit_isa_ops *isa, const Dwfl_Callbacks *callbacks,
                        const char *measurement_dir, const knit_image_copies *copies)
{
  if (m->path[0] != '/' && strchr(m->path, '/') == NULL) {
    /* No file of that name: a copy the tool left in the measurement. */
    if (!measurement_dir)
      return;
    size_t n = strlen(measurement_dir) + strlen(m->path) + 2;
    char *copy = malloc(n);
    if (!copy)
      return;
    snprintf(copy, n, "%s/%s", measurement_dir, m->path);
    try_open(m, copy, isa, callbacks);
    free(copy);
    return;
  }
  /* The recording's copy when the file at the path is gone or is another
   * file; then the path, and the sysroot, as for any module. */
  const char *copy = knit_image_copies_file(copies, m->path);
  if (copy != m->path && try_open(m, copy, isa, callbacks))
    return;
  if (try_open(m, m->path, isa, callbacks))
    return;
  const char *root = sysroot_for(isa);
  if (!root || m->path[0] != '/')
    return;
  size_t n = strlen(root) + strlen(m->path) + 1;
  char *file = malloc(n);
  if (!file)
    return;
  snprintf(file, n, "%s%s", root, m->path);
  try_open(m, file, isa, callbacks);
  free(file);
}

/* The index of the module entry for path, opened on first use. */
static uint32_t module_index(knit_symbolizer *s, const char *path)
{
  /* Few modules, looked up once per distinct address: a scan is enough. */
  for (size_t i = 0; i < s->module_count; i++)
    if (strcmp(s->modules[i].path, path) == 0)
      return (uint32_t)i;
  module_entry *grown = realloc(s->modules, (s->module_count + 1) * sizeof *grown);
  if (grown == NULL)
    return UINT32_MAX;
  s->modules = grown;
  module_entry *m = &s->modules[s->module_count];
  memset(m, 0, sizeof *m);
  m->path = strdup(path);
  if (m->path == NULL)
    return UINT32_MAX;
  const char *slash = strrchr(m->path, '/');
  m->base_name = slash != NULL ? slash + 1 : m->path;
  open_module(m, s->isa, &s->callbacks, s->measurement_dir, s->image_copies);
  return (uint32_t)s->module_count++;
}

void knit_symbolizer_set_isa(knit_symbolizer *s, const knit_isa_ops *isa)
{
  s->isa = isa;
}

void knit_symbolizer_set_measurement_dir(knit_symbolizer *s, const char *dir)
{
  free(s->measurement_dir);
  s->measurement_dir = dir ? strdup(dir) : NULL;
  knit_image_copies_free(s->image_copies);
  s->image_copies = dir ? knit_image_copies_read(dir) : NULL;
}

int knit_symbolizer_module_found(knit_symbolizer *s, const char *path)
{
  uint32_t i = module_index(s, path);
  return i != UINT32_MAX && s->modules[i].dwfl != NULL;
}

/* The module's DWARF and its units, read on first use. */
knit_dwarf_units *knit_sym_units(module_entry *m)
{
  if (!m->dwarf_read) {
    m->dwarf_read = true;
    Dwarf *dw = dwfl_module_getdwarf(m->module, &m->dwarf_bias);
    /* Out of memory leaves the table empty: libdwfl's look-up still runs. */
    (void)knit_dwarf_units_read(&m->units, dw);
  }
  return &m->units;
}

static size_t name_slot(const knit_symbolizer *s, uint32_t module, const char *symbol)
{
  uint64_t h = ((uint64_t)(uintptr_t)symbol ^ ((uint64_t)module << 48)) * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 20) & (s->name_slots - 1);
}

static void grow_names(knit_symbolizer *s)
{
  size_t old_slots = s->name_slots;
  name_entry *old = s->names;
  name_entry *names = malloc(2 * old_slots * sizeof *names);
  if (names == NULL)
    return; /* Names are made again, and kept again: slower, still right. */
  s->names = names;
  s->name_slots = 2 * old_slots;
  for (size_t i = 0; i < s->name_slots; i++)
    names[i].module = UINT32_MAX;
  for (size_t i = 0; i < old_slots; i++) {
    if (old[i].module == UINT32_MAX)
      continue;
    size_t j = name_slot(s, old[i].module, old[i].symbol);
    while (names[j].module != UINT32_MAX)
      j = (j + 1) & (s->name_slots - 1);
    names[j] = old[i];
  }
  free(old);
}

/* The raw and shown names of libdwfl's symbol name, which covers the
 * Dwfl address a of module index mi. */
static name_entry names_of(knit_symbolizer *s, uint32_t mi, const char *symbol, Dwarf_Addr a)
{
  if (2 * (s->name_used + 1) > s->name_slots)
    grow_names(s);
  size_t j = name_slot(s, mi, symbol);
  for (; s->names[j].module != UINT32_MAX; j = (j + 1) & (s->name_slots - 1))
    if (s->names[j].module == mi && s->names[j].symbol == symbol)
      return s->names[j];

  module_entry *m = &s->modules[mi];
  /* Symbol tables may carry the symbol version ("memcpy@@GLIBC_2.14"); the
   * function is the same whatever the version, and names are compared
   * across systems, so it is cut off. */
  const char *raw;
  const char *at = strchr(symbol, '@');
  if (at != NULL && at != symbol) {
    char bare[512];
    snprintf(bare, sizeof bare, "%.*s", (int)(at - symbol), symbol);
    raw = knit_sym_keep(s, bare);
  } else {
    raw = knit_sym_printable(s, symbol);
  }
  const char *shown = raw;
  if (!s->raw_names) {
    knit_dwarf_units *u = knit_sym_units(m);
    knit_name_context ctx = {
        .language = knit_dwarf_units_language(u, a - m->dwarf_bias),
        .main_program = u->main_program,
    };
    char *readable = knit_readable_name(raw, &ctx);
    if (readable != NULL) {
      shown = knit_sym_keep(s, readable);
      free(readable);
    }
  }
  name_entry e = {.module = mi, .symbol = symbol, .raw = raw, .shown = shown};
  if (2 * (s->name_used + 1) <= s->name_slots) {
    s->names[j] = e;
    s->name_used++;
  }
  return e;
}

/* The calls inlined at the Dwfl address a of module index mi, named as
 * symbols are (names_of: a DWARF name's address is as fixed as a symbol
 * name's), into out. Out of memory, or without DWARF, there are none. */
void knit_sym_inlined_calls(knit_symbolizer *s, uint32_t mi, Dwarf_Addr a, knit_symbol *out)
{
  module_entry *m = &s->modules[mi];
  Dwarf_Die *cu = knit_dwarf_units_find(knit_sym_units(m), a - m->dwarf_bias);
  knit_inline_call *calls;
  size_t count;
  if (cu == NULL || knit_inline_scopes_at(cu, a - m->dwarf_bias, &calls, &count) != 0 || count == 0)
    return;
  owned_levels *o = malloc(sizeof *o + count * sizeof o->levels[0]);
  if (o != NULL) {
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
      /* clang splits one construct's body into a wrapper and the body it
       * calls (.omp_outlined. and .omp_outlined._debug__, a task entry and
       * .omp_outlined..N) and inlines the second into the first: one
       * construct, which the wrapper's frame already names
       * (construct_names.h); the body's inlined level would only repeat it.
       * The calls inside it then hang from the wrapper's level. */
      if (calls[i].function != NULL && (strncmp(calls[i].function, ".omp_outlined", 13) == 0 ||
                                        strncmp(calls[i].function, ".omp_task_entry", 15) == 0))
        continue;
      knit_inline_level *l = &o->levels[kept++];
      *l = (knit_inline_level){.function = "?"};
      if (calls[i].function != NULL && calls[i].function[0] != '\0') {
        /* A Fortran module procedure by the symbol gfortran gives it
         * (__MODULE_MOD_NAME), which names_of shows as MODULE::NAME. */
        char symbol[512];
        const char *name = calls[i].function;
        if (calls[i].module != NULL && (size_t)snprintf(symbol, sizeof symbol, "__%s_MOD_%s",
                                                        calls[i].module, name) < sizeof symbol)
          name = composed_name(s, symbol);
        name_entry e = names_of(s, mi, name, a);
        l->function = e.shown;
        l->raw_function = e.raw != e.shown ? e.raw : NULL;
      }
      if (calls[i].call_file != NULL && calls[i].call_line > 0) {
        l->call_file = knit_sym_printable(s, calls[i].call_file);
        l->call_line = calls[i].call_line;
      }
    }
    o->next = s->levels;
    s->levels = o;
    out->inlined = kept ? o->levels : NULL;
    out->inlined_count = (uint32_t)kept;
  }
  free(calls);
}

static void resolve(knit_symbolizer *s, uint32_t mi, uint64_t addr, uint64_t fallback_offset,
                    knit_symbol *out)
{
  memset(out, 0, sizeof *out);
  module_entry *m = &s->modules[mi];
  if (m->module != NULL) {
    Dwarf_Addr a = addr + m->bias;
    const char *name = dwfl_module_addrname(m->module, a);
    if (name != NULL && name[0] != '\0') {
      name_entry e = names_of(s, mi, name, a);
      out->function = e.shown;
      out->raw = e.raw != e.shown ? e.raw : NULL;
      out->resolved = 1;
    }
    const char *file = NULL;
    unsigned line = 0;
    if (!knit_dwarf_units_line(knit_sym_units(m), a - m->dwarf_bias, &file, &line)) {
      /* Units without ranges of their own may still be in .debug_aranges. */
      Dwfl_Line *l = dwfl_module_getsrc(m->module, a);
      int lineno = 0;
      file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
      line = lineno > 0 ? (unsigned)lineno : 0;
    }
    if (file != NULL && line > 0) {
      out->file = knit_sym_printable(s, file);
      out->line = line;
    }
    if (s->inline_calls)
      knit_sym_inlined_calls(s, mi, a, out);
    if (s->loops)
      knit_sym_add_loops(s, mi, addr, out);
  }
  if (out->function == NULL) {
    char text[600];
    snprintf(text, sizeof text, "%s+0x%llx", m->base_name, (unsigned long long)fallback_offset);
    out->function = knit_sym_keep(s, text);
  }
}

static size_t cache_slot(const knit_symbolizer *s, uint32_t module, uint64_t addr)
{
  uint64_t h = (addr ^ ((uint64_t)module << 48)) * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 20) & (s->cache_slots - 1);
}

static void grow_cache(knit_symbolizer *s)
{
  size_t old_slots = s->cache_slots;
  cache_entry *old = s->cache;
  cache_entry *cache = malloc(2 * old_slots * sizeof *cache);
  if (cache == NULL)
    return; /* The cache stays as it is; lookups still work, slower. */
  s->cache = cache;
  s->cache_slots = 2 * old_slots;
  for (size_t i = 0; i < s->cache_slots; i++)
    cache[i].module = UINT32_MAX;
  for (size_t i = 0; i < old_slots; i++) {
    if (old[i].module == UINT32_MAX)
      continue;
    size_t j = cache_slot(s, old[i].module, old[i].addr);
    while (cache[j].module != UINT32_MAX)
      j = (j + 1) & (s->cache_slots - 1);
    cache[j] = old[i];
  }
  free(old);
}

void knit_symbolizer_lookup(knit_symbolizer *s, const char *path, uint64_t addr,
                            uint64_t fallback_offset, knit_symbol *out)
{
  uint32_t module = module_index(s, path);
  if (module == UINT32_MAX) {
    *out = (knit_symbol){.function = "<out of memory>"};
    return;
  }
  if (2 * (s->cache_used + 1) > s->cache_slots)
    grow_cache(s);
  size_t j = cache_slot(s, module, addr);
  for (; s->cache[j].module != UINT32_MAX; j = (j + 1) & (s->cache_slots - 1)) {
    if (s->cache[j].module == module && s->cache[j].addr == addr &&
        s->cache[j].fallback_offset == fallback_offset) {
      *out = s->cache[j].symbol;
      return;
    }
  }
  resolve(s, module, addr, fallback_offset, out);
  if (2 * (s->cache_used + 1) <= s->cache_slots) {
    s->cache[j] = (cache_entry){
        .module = module, .addr = addr, .fallback_offset = fallback_offset, .symbol = *out};
    s->cache_used++;
  }
}

const char *knit_symbolizer_keep(knit_symbolizer *s, const char *text)
{
  return knit_sym_keep(s, text);
}

struct Dwarf *knit_symbolizer_dwarf(knit_symbolizer *s, const char *path, int64_t *elf_to_dwarf)
{
  uint32_t i = module_index(s, path);
  if (i == UINT32_MAX || s->modules[i].module == NULL)
    return NULL;
  module_entry *m = &s->modules[i];
  Dwarf_Addr bias = 0;
  Dwarf *dw = dwfl_module_getdwarf(m->module, &bias);
  *elf_to_dwarf = (int64_t)m->bias - (int64_t)bias;
  return dw;
}

Elf *knit_symbolizer_elf(knit_symbolizer *s, const char *path)
{
  uint32_t i = module_index(s, path);
  if (i == UINT32_MAX || s->modules[i].module == NULL)
    return NULL;
  Dwarf_Addr bias;
  return dwfl_module_getelf(s->modules[i].module, &bias);
}

const char *knit_placeholder_name(uint64_t placeholder)
{
  switch (placeholder) {
  case KNIT_PH_ROOT: return "ROOT";
  case KNIT_PH_OMP_IDLE: return "<omp-idle>";
  case KNIT_PH_OMP_BARRIER: return "<omp-barrier>";
  case KNIT_PH_OMP_LOCK_WAIT: return "<omp-lock-wait>";
  case KNIT_PH_OMP_OVERHEAD: return "<omp-overhead>";
  case KNIT_PH_PARTIAL: return "<partial>";
  case KNIT_PH_SIGNAL: return "<signal>";
  case KNIT_PH_OMP_TARGET_WAIT: return "<omp-target-wait>";
  case KNIT_PH_OMP_TARGET: return "<omp-target>";
  default: return "<placeholder>";
  }
}

void knit_symbolizer_set_progress(knit_symbolizer *s, knit_progress *progress)
{
  s->progress = progress;
}

/* A target construct's node is named by the line of the call that
 * launched it, `target at FILE:LINE`, as a construct's body is
 * (construct_names.h); it has no symbol to keep raw. */
static void name_target_constructs(knit_report_tree *t, knit_symbolizer *s)
{
  for (size_t i = 1; i < t->node_count; i++) {
    knit_report_node *n = &t->nodes[i];
    const knit_report_node *call = &t->nodes[n->parent];
    if (n->module != KNIT_MODULE_PLACEHOLDER || n->offset != KNIT_PH_OMP_TARGET ||
        call->file == NULL)
      continue;
    const char *slash = strrchr(call->file, '/');
    char label[512];
    knit_construct_label(label, sizeof label, "target", 0, slash ? slash + 1 : call->file,
                         call->line);
    n->function = knit_symbolizer_keep(s, label);
  }
}

void knit_report_tree_symbolize(knit_report_tree *t, knit_symbolizer *s)
{
  char text[32];
  for (size_t i = 0; i < t->node_count; i++) {
    knit_report_node *n = &t->nodes[i];
    /* Reading a module's DWARF and finding its loops happen in here, at
     * the first node of each function: the long part of a big report. */
    if ((i & 63) == 0)
      knit_progress_update(s->progress, "naming nodes", i, t->node_count);
    n->file = NULL;
    n->line = 0;
    n->raw_function = NULL;
    n->inlined = NULL;
    n->inlined_count = 0;
    if (n->module == KNIT_MODULE_PLACEHOLDER) {
      n->function = knit_placeholder_name(n->offset);
      continue;
    }
    const char *path = knit_report_node_module(t, n);
    if (path == NULL) {
      snprintf(text, sizeof text, "0x%llx", (unsigned long long)n->offset);
      n->function = knit_sym_keep(s, text);
      continue;
    }
    /* A return address points after the call; the call itself, one byte
     * back, is in the calling function and on the calling line even when
     * the call is the last instruction of the function. */
    uint64_t addr = n->kind == KNIT_NODE_CALL && n->offset > 0 ? n->offset - 1 : n->offset;
    knit_symbol sym;
    knit_symbolizer_lookup(s, path, addr, n->offset, &sym);
    n->function = sym.function;
    n->raw_function = sym.raw;
    n->file = sym.file;
    n->line = sym.line;
    n->inlined = sym.inlined;
    n->inlined_count = sym.inlined_count;
  }
  if (!s->raw_names)
    knit_construct_names_apply(t, s);
  name_target_constructs(t, s);
}
