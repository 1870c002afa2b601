/* Compile units by address, without .debug_aranges; see dwarf_units.h. */
#include "report/dwarf_units.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

static int compare_ranges(const void *pa, const void *pb)
{
  const knit_unit_range *a = pa, *b = pb;
  if (a->low != b->low)
    return a->low < b->low ? -1 : 1;
  return a->high < b->high ? -1 : a->high > b->high;
}

static int add_range(knit_dwarf_units *u, size_t *cap, Dwarf_Addr low, Dwarf_Addr high, size_t unit)
{
  if (u->range_count == *cap) {
    size_t grown_cap = *cap ? 2 * *cap : 64;
    knit_unit_range *grown = realloc(u->ranges, grown_cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    u->ranges = grown;
    *cap = grown_cap;
  }
  u->ranges[u->range_count++] = (knit_unit_range){.low = low, .high = high, .unit = unit};
  return 0;
}

static int is_fortran(int language)
{
  switch (language) {
  case DW_LANG_Fortran77:
  case DW_LANG_Fortran90:
  case DW_LANG_Fortran95:
  case DW_LANG_Fortran03:
  case DW_LANG_Fortran08: return 1;
  default: return 0;
  }
}

/* Whether die is a Fortran main program: DW_AT_main_subprogram (DWARF 4
 * on, as gfortran writes it), or DW_CC_program, which older producers and
 * strict DWARF 2/3 use. */
static int is_main_program(Dwarf_Die *die)
{
  if (dwarf_tag(die) != DW_TAG_subprogram)
    return 0;
  Dwarf_Attribute attr;
  bool flag = false;
  if (dwarf_attr(die, DW_AT_main_subprogram, &attr) != NULL && dwarf_formflag(&attr, &flag) == 0 &&
      flag)
    return 1;
  Dwarf_Word cc = 0;
  return dwarf_attr(die, DW_AT_calling_convention, &attr) != NULL &&
         dwarf_formudata(&attr, &cc) == 0 && cc == DW_CC_program;
}

/* The name of the main program among a Fortran unit's top-level DIEs. */
static const char *main_program_of(Dwarf_Die *cudie)
{
  Dwarf_Die child;
  if (dwarf_child(cudie, &child) != 0)
    return NULL;
  do {
    if (is_main_program(&child))
      return dwarf_diename(&child);
  } while (dwarf_siblingof(&child, &child) == 0);
  return NULL;
}

static int add_unit(knit_dwarf_units *u, size_t *unit_cap, size_t *range_cap, Dwarf_Die *cudie)
{
  if (u->unit_count == *unit_cap) {
    size_t grown_cap = *unit_cap ? 2 * *unit_cap : 16;
    Dwarf_Die *grown = realloc(u->units, grown_cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    u->units = grown;
    *unit_cap = grown_cap;
  }
  size_t index = u->unit_count++;
  u->units[index] = *cudie;
  Dwarf_Addr base, low, high;
  ptrdiff_t offset = 0;
  while ((offset = dwarf_ranges(cudie, offset, &base, &low, &high)) > 0) {
    /* A range at 0 is code the linker dropped (ld's tombstone), empty
     * ones hold nothing. */
    if (low != 0 && high > low && add_range(u, range_cap, low, high, index) != 0)
      return -1;
  }
  if (u->main_program == NULL && is_fortran(dwarf_srclang(cudie))) {
    const char *name = main_program_of(cudie);
    if (name != NULL && (u->main_program = strdup(name)) == NULL)
      return -1;
  }
  return 0;
}

int knit_dwarf_units_read(knit_dwarf_units *u, Dwarf *dw)
{
  memset(u, 0, sizeof *u);
  if (dw == NULL)
    return 0;
  size_t unit_cap = 0, range_cap = 0;
  Dwarf_CU *cu = NULL;
  Dwarf_Half version;
  uint8_t type;
  Dwarf_Die cudie, subdie;
  while (dwarf_get_units(dw, cu, &cu, &version, &type, &cudie, &subdie) == 0) {
    /* Type units hold no code; a skeleton unit (split DWARF) holds the
     * ranges and the line table's place. */
    if (type != DW_UT_compile && type != DW_UT_skeleton && type != DW_UT_partial)
      continue;
    if (add_unit(u, &unit_cap, &range_cap, &cudie) != 0) {
      knit_dwarf_units_free(u);
      return -1;
    }
  }
  if (u->range_count > 0)
    qsort(u->ranges, u->range_count, sizeof *u->ranges, compare_ranges);
  return 0;
}

void knit_dwarf_units_free(knit_dwarf_units *u)
{
  free(u->units);
  free(u->ranges);
  free(u->main_program);
  memset(u, 0, sizeof *u);
}

Dwarf_Die *knit_dwarf_units_find(knit_dwarf_units *u, Dwarf_Addr addr)
{
  /* The last range that starts at or before addr; units do not overlap,
   * but a unit's ranges may nest (a range list that repeats a function),
   * so a few ranges before it are tried too. */
  size_t lo = 0, hi = u->range_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->ranges[mid].low <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo, tried = 0; i > 0 && tried < 8; i--, tried++)
    if (addr < u->ranges[i - 1].high)
      return &u->units[u->ranges[i - 1].unit];
  return NULL;
}

int knit_dwarf_units_line(knit_dwarf_units *u, Dwarf_Addr addr, const char **file, unsigned *line)
{
  Dwarf_Die *cudie = knit_dwarf_units_find(u, addr);
  if (cudie == NULL)
    return 0;
  Dwarf_Line *l = dwarf_getsrc_die(cudie, addr);
  int lineno = 0;
  const char *name = l != NULL ? dwarf_linesrc(l, NULL, NULL) : NULL;
  if (name == NULL || dwarf_lineno(l, &lineno) != 0 || lineno <= 0)
    return 0;
  *file = name;
  *line = (unsigned)lineno;
  return 1;
}

knit_source_language knit_dwarf_units_language(knit_dwarf_units *u, Dwarf_Addr addr)
{
  Dwarf_Die *cudie = knit_dwarf_units_find(u, addr);
  if (cudie == NULL)
    return KNIT_LANGUAGE_UNKNOWN;
  int language = dwarf_srclang(cudie);
  if (language < 0)
    return KNIT_LANGUAGE_UNKNOWN;
  return is_fortran(language) ? KNIT_LANGUAGE_FORTRAN : KNIT_LANGUAGE_OTHER;
}
