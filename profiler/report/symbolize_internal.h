/* What symbolize.c and loop_levels.c share: the symbolizer's state and
 * the helpers both use. Internal to profiler/report. */
#ifndef KNIT_REPORT_SYMBOLIZE_INTERNAL_H
#define KNIT_REPORT_SYMBOLIZE_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "console/progress.h"
#include "report/dwarf_units.h"
#include "report/symbolize.h"
#include "structure/structure.h"
#include "unwind/isa.h"

typedef struct module_entry {
  char *path;
  const char *base_name; /* last component of path */
  Dwfl *dwfl;            /* NULL when the file could not be opened */
  Dwfl_Module *module;
  Dwarf_Addr bias; /* added to ELF addresses to get Dwfl addresses */
  /* The DWARF, read on first use (in the file or in its separate debug
   * file), and its units by address. */
  bool dwarf_read;
  Dwarf_Addr dwarf_bias; /* subtracted from Dwfl addresses for DWARF's */
  knit_dwarf_units units;
  /* Its loops (structure.h), opened on first use; the context its line
   * function reads (allocated: modules move as the array grows). */
  knit_structure *structure;
  bool structure_tried;
  struct module_lines *lines;
  /* Each loop's lines, found on first use (loop_levels.c). */
  struct knit_loop_lines_cache *loop_lines;
} module_entry;

typedef struct cache_entry {
  uint32_t module; /* index into modules; UINT32_MAX marks empty */
  uint64_t addr;
  uint64_t fallback_offset; /* part of the key: it shows in fallback names */
  knit_symbol symbol;
} cache_entry;

/* A symbol's names, once per symbol: keyed by the module and the name's
 * address in libdwfl's string table, which is the same for every address
 * the symbol covers. */
typedef struct name_entry {
  uint32_t module;    /* UINT32_MAX marks empty */
  const char *symbol; /* libdwfl's */
  const char *raw;    /* printable, version cut off */
  const char *shown;  /* what the report shows */
} name_entry;

typedef struct owned_string {
  struct owned_string *next;
  char text[];
} owned_string;

/* The inlined calls of an address, as handed out. */
typedef struct owned_levels {
  struct owned_levels *next;
  knit_inline_level levels[];
} owned_levels;

struct knit_symbolizer {
  module_entry *modules;
  size_t module_count;
  cache_entry *cache;
  size_t cache_slots;
  size_t cache_used;
  name_entry *names;
  size_t name_slots;
  size_t name_used;
  owned_string *strings;
  owned_string *composed; /* composed_name's */
  owned_levels *levels;
  int inline_calls;        /* lookups give the inlined calls too */
  int loops;               /* and the loops around the address */
  const knit_isa_ops *isa; /* the measurement's ISA, NULL if unknown */
  int raw_names;           /* show symbols as they are */
  /* Where separate debug files are looked for: NULL is libdwfl's default
   * (".debug" beside the file, /usr/lib/debug, by build ID in
   * /usr/lib/debug/.build-id). Every session points at it. */
  char *debuginfo_path;
  Dwfl_Callbacks callbacks;
  /* The measurement's directory, or NULL: where a module named without a
   * directory (the vdso, linux-vdso.so.1) may have a copy (core/vdso_copy.h). */
  char *measurement_dir;
  /* Its copies of modules whose files were gone or other files by the
   * report's time (image_copies.h), or NULL. */
  struct knit_image_copies *image_copies;
  knit_progress *progress; /* naming's progress line, or NULL */
};

/* A copy of text's printable form that lives as long as the symbolizer. */
const char *knit_sym_keep(knit_symbolizer *s, const char *text);

/* text itself when it is printable (libdwfl's names live as long as the
 * symbolizer), else a kept copy of its printable form. */
const char *knit_sym_printable(knit_symbolizer *s, const char *text);

/* The module's compile units by address, read on first use. */
knit_dwarf_units *knit_sym_units(module_entry *m);

/* The calls inlined at the Dwfl address a of module index mi into out
 * (out->inlined, kept on s->levels). */
void knit_sym_inlined_calls(knit_symbolizer *s, uint32_t mi, Dwarf_Addr a, knit_symbol *out);

/* Frees what loop_levels.c keeps for the module. */
void knit_sym_loop_lines_free(module_entry *m);

/* Adds the loops around addr (an ELF address of module mi) to out's levels
 * (loop_levels.c). */
void knit_sym_add_loops(knit_symbolizer *s, uint32_t mi, uint64_t addr, knit_symbol *out);

#endif /* KNIT_REPORT_SYMBOLIZE_INTERNAL_H */
