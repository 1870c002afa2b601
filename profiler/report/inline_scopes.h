/* The calls the compiler inlined at an address: the DWARF's
 * DW_TAG_inlined_subroutine scopes that hold it, read from the compile
 * unit's DIEs. A sample or call inside code that was inlined into a
 * function F belongs, in the source, to the inlined function, called from
 * a line of F (or of the inlined function around it); the symbol table
 * knows only F.
 *
 * Each inlined call is named by its abstract origin (DW_AT_linkage_name,
 * else DW_AT_name, as the DWARF has it; the symbolizer makes it readable,
 * names.h) and placed by DW_AT_call_file and DW_AT_call_line. The address's
 * own line, from the line table, is the innermost call's. */
#ifndef KNIT_REPORT_INLINE_SCOPES_H
#define KNIT_REPORT_INLINE_SCOPES_H

#include <elfutils/libdw.h>
#include <stddef.h>

/* One inlined call. Strings are libdw's (valid while its Dwarf lives);
 * NULL when the DWARF does not give them. */
typedef struct knit_inline_call {
  const char *function;  /* the inlined function, as the DWARF names it */
  const char *call_file; /* where it was called from */
  unsigned call_line;    /* 0 when unknown */
  const char *module;    /* a Fortran module procedure without a linkage
                            name in the DWARF (gfortran's inlined ones):
                            its module, else NULL */
} knit_inline_call;

/* The inlined calls whose code holds addr (a DWARF address) in the compile
 * unit cu, outermost first, into *calls (malloc'd; free it) and *count:
 * the first was called from the function the symbol names, each other from
 * the one before it. Returns 0 (with *count 0 and *calls NULL when the
 * address is in no inlined code), or -1 when out of memory. */
int knit_inline_scopes_at(Dwarf_Die *cu, Dwarf_Addr addr, knit_inline_call **calls, size_t *count);

#endif /* KNIT_REPORT_INLINE_SCOPES_H */
