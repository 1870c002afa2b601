/* Symbolization of module addresses with libdwfl: function names from the
 * symbol tables, shown in their readable form (names.h: C++ demangled,
 * Fortran's names as the source writes them, outlined OpenMP bodies as
 * `function [omp_fn.N]`) unless raw names are asked for, and file:line
 * from the DWARF line tables, found through the compile units' own ranges
 * (dwarf_units.h: clang writes no .debug_aranges). The DWARF may be in the
 * file itself or in a separate debug file, found the standard way: by
 * build ID under /usr/lib/debug/.build-id, by .gnu_debuglink beside the file,
 * in a .debug folder or under /usr/lib/debug.
 *
 * Each module file is opened once, offline (addresses are the ELF virtual
 * addresses the measurement records, so the module is reported at base 0),
 * and every answer is cached. A module file that cannot be opened, or an
 * address no symbol covers, is named "basename+0xOFFSET": never a failure.
 */
#ifndef KNIT_REPORT_SYMBOLIZE_H
#define KNIT_REPORT_SYMBOLIZE_H

#include <stdint.h>

#include "report/tree.h"
#include "unwind/isa.h"

typedef struct knit_symbolizer knit_symbolizer;

typedef struct knit_symbol {
  const char *function; /* never NULL; valid until knit_symbolizer_free */
  const char *raw;      /* the symbol as the file has it, when function
                            shows it otherwise (names.h); else NULL */
  const char *file;     /* source file, or NULL when no line is known */
  unsigned line;        /* 0 when file is NULL */
  int resolved;         /* 1 when a symbol covered the address */
  /* With inlined calls asked for: the calls the compiler inlined at the
   * address, outermost first (tree.h); file:line is the innermost's. */
  const knit_inline_level *inlined;
  uint32_t inlined_count;
} knit_symbol;

knit_symbolizer *knit_symbolizer_new(void);
void knit_symbolizer_free(knit_symbolizer *s);

/* The ISA of the measured process (its machine table row, or NULL when
 * unknown), so that module files are checked against it (machine and byte
 * order) and, for a program run under QEMU, looked for in that ISA's
 * sysroot (/usr/<triplet>, or KNIT_SYSROOT) when the path the guest saw
 * does not exist on the host. Call before the first lookup. */
void knit_symbolizer_set_isa(knit_symbolizer *s, const knit_isa_ops *isa);

/* The measurement's directory: a module named without a directory (the
 * vdso) is read from the copy the tool left there, and so is a module whose
 * file was gone or another file by the report's time (image_copies.h). Call
 * before the first lookup. */
void knit_symbolizer_set_measurement_dir(knit_symbolizer *s, const char *dir);

/* Where knit_report_tree_symbolize reports how far it is (progress.h), or
 * NULL (the default): none. */
struct knit_progress;
void knit_symbolizer_set_progress(knit_symbolizer *s, struct knit_progress *progress);

/* Whether functions are named by their symbols as they are (1), or in
 * their readable form (0, the default). Call before the first lookup. */
void knit_symbolizer_set_raw_names(knit_symbolizer *s, int raw);

/* Whether lookups also give the calls inlined at the address (1), read
 * from the DWARF's inlined-subroutine scopes (inline_scopes.h), or not (0,
 * the default). Call before the first lookup. */
void knit_symbolizer_set_inline(knit_symbolizer *s, int on);

/* Whether lookups also give the loops around the address (1), found in the
 * module's machine code (profiler/structure) and each named by its line,
 * `loop at FILE:LINE`, among the inlined calls (0, the default). Call
 * before the first lookup. */
void knit_symbolizer_set_loops(knit_symbolizer *s, int on);

/* Where separate debug files are looked for, in libdwfl's form (folders
 * separated by ':'; see dwfl_standard_find_debuginfo), instead of the
 * standard places; NULL restores them. Call before the first lookup.
 * Returns 0, or -1 when out of memory (nothing changed). */
int knit_symbolizer_set_debuginfo_path(knit_symbolizer *s, const char *path);

/* Looks up the ELF virtual address addr in the module file at path. The
 * fallback name (when unresolved) shows fallback_offset, which callers set
 * to the address the measurement recorded. */
void knit_symbolizer_lookup(knit_symbolizer *s, const char *path, uint64_t addr,
                            uint64_t fallback_offset, knit_symbol *out);

/* Whether the module file at path could be opened (1) or not (0). */
int knit_symbolizer_module_found(knit_symbolizer *s, const char *path);

/* A copy of text's printable form that lives as long as the symbolizer. */
const char *knit_symbolizer_keep(knit_symbolizer *s, const char *text);

/* The DWARF of the module file at path (in it or in its separate debug
 * file), or NULL; *elf_to_dwarf is what to add to the file's ELF addresses
 * for the DWARF's. Valid until knit_symbolizer_free. */
struct Dwarf *knit_symbolizer_dwarf(knit_symbolizer *s, const char *path, int64_t *elf_to_dwarf);

/* The ELF file of the module at path, or NULL; its addresses are the
 * measurement's. Valid until knit_symbolizer_free. */
struct Elf *knit_symbolizer_elf(knit_symbolizer *s, const char *path);

/* The name of a placeholder frame ("<omp-idle>", ...; "ROOT" for the root). */
const char *knit_placeholder_name(uint64_t placeholder);

/* Names every node of the tree: placeholders by their names, unknown modules
 * as "0x<address>", call sites by the function that holds the return address
 * minus one (the call instruction) with the call's file:line, samples by the
 * function and line of the sampled instruction, and outlined OpenMP bodies
 * by their construct (construct_names.h) unless raw names are asked for. A
 * node whose function is shown otherwise than its symbol gets the symbol
 * as raw_function. With inlined calls asked for, each node gets those at
 * that address. */
void knit_report_tree_symbolize(knit_report_tree *t, knit_symbolizer *s);

#endif /* KNIT_REPORT_SYMBOLIZE_H */
