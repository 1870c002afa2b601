/* Which compile unit of a module's DWARF holds an address, and what the
 * units say: the source line of an address, the unit's language, and the
 * Fortran main program's name.
 *
 * libdw's own address look-ups (dwarf_addrdie, and libdwfl's
 * dwfl_module_getsrc on top of it) go through .debug_aranges, which clang
 * does not write (unless given -gdwarf-aranges): every address of a
 * clang-built file then has no line. The table here is built once per
 * module from every unit's own address ranges (DW_AT_low_pc/high_pc or
 * DW_AT_ranges, DWARF 2 to 5), whatever the compiler, so it needs no
 * .debug_aranges at all. */
#ifndef KNIT_REPORT_DWARF_UNITS_H
#define KNIT_REPORT_DWARF_UNITS_H

#include <elfutils/libdw.h>
#include <stddef.h>

#include "report/names.h"

typedef struct knit_unit_range {
  Dwarf_Addr low;  /* first address */
  Dwarf_Addr high; /* one past the last */
  size_t unit;     /* index into units */
} knit_unit_range;

typedef struct knit_dwarf_units {
  Dwarf_Die *units; /* the compile units' DIEs */
  size_t unit_count;
  knit_unit_range *ranges; /* sorted by low */
  size_t range_count;
  char *main_program; /* the Fortran main program's name, or NULL */
} knit_dwarf_units;

/* Reads the units of dw (which must outlive the table). Returns 0, or -1
 * when out of memory (the table is then empty, and usable). */
int knit_dwarf_units_read(knit_dwarf_units *u, Dwarf *dw);

void knit_dwarf_units_free(knit_dwarf_units *u);

/* The DIE of the compile unit whose ranges hold addr (a DWARF address), or
 * NULL. */
Dwarf_Die *knit_dwarf_units_find(knit_dwarf_units *u, Dwarf_Addr addr);

/* The source line of addr in its unit's line table: *file (libdw's, valid
 * while dw lives) and *line, and 1; 0 when no line with a number holds it. */
int knit_dwarf_units_line(knit_dwarf_units *u, Dwarf_Addr addr, const char **file, unsigned *line);

/* The language of the unit that holds addr, for names (names.h). */
knit_source_language knit_dwarf_units_language(knit_dwarf_units *u, Dwarf_Addr addr);

#endif /* KNIT_REPORT_DWARF_UNITS_H */
