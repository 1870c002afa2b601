/* Inlined calls at an address; see inline_scopes.h.
 *
 * libdw's dwarf_getscopes does not serve here: at an inlined instance it
 * goes on with the scopes around the abstract definition, not with those
 * around the call, so the outer calls would be lost. The walk below goes
 * down from the unit instead, into each DIE whose ranges hold the address,
 * and into the DIEs that hold functions without ranges of their own
 * (namespaces, classes, modules), noting the inlined subroutines on the
 * way down: that is the chain, outermost first. */
#include "report/inline_scopes.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* A DIE that has no ranges but may hold functions that do. */
static int holds_functions(int tag)
{
  switch (tag) {
  case DW_TAG_namespace:
  case DW_TAG_class_type:
  case DW_TAG_structure_type:
  case DW_TAG_union_type:
  case DW_TAG_module: return 1;
  default: return 0;
  }
}

static const char *name_of(Dwarf_Die *die)
{
  Dwarf_Attribute a;
  /* Follows DW_AT_abstract_origin and DW_AT_specification to the
   * declaration, which holds the names. */
  const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
  if (name == NULL)
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
  const char *source = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
  if (name == NULL)
    return source;
  /* gfortran's external procedures link as their name with an underscore
   * (work_ for subroutine work): the source's name says it as written. */
  size_t n = source ? strlen(source) : 0;
  if (n > 0 && strncmp(name, source, n) == 0 && strcmp(name + n, "_") == 0)
    return source;
  return name;
}

static int is_fortran(Dwarf_Die *cu)
{
  switch (dwarf_srclang(cu)) {
  case DW_LANG_Fortran77:
  case DW_LANG_Fortran90:
  case DW_LANG_Fortran95:
  case DW_LANG_Fortran03:
  case DW_LANG_Fortran08: return 1;
  default: return 0;
  }
}

/* The module of an inlined Fortran procedure that has no linkage name:
 * gfortran writes none for the procedures it inlines, so the name alone
 * would not say which module's it is. The module is the parent of the
 * procedure's abstract definition, which only a walk of the unit finds
 * (dwarf_getscopes_die). NULL for any other function. */
static const char *fortran_module_of(Dwarf_Die *cu, Dwarf_Die *inlined)
{
  Dwarf_Attribute a;
  Dwarf_Die origin, *scopes = NULL;
  if (!is_fortran(cu) || dwarf_attr_integrate(inlined, DW_AT_linkage_name, &a) != NULL ||
      dwarf_formref_die(dwarf_attr(inlined, DW_AT_abstract_origin, &a), &origin) == NULL)
    return NULL;
  const char *module = NULL;
  int n = dwarf_getscopes_die(&origin, &scopes);
  /* scopes[0] is the definition itself, scopes[1] what holds it. */
  if (n > 1 && dwarf_tag(&scopes[1]) == DW_TAG_module)
    module = dwarf_diename(&scopes[1]);
  free(scopes);
  return module;
}

static void call_site(Dwarf_Die *cu, Dwarf_Die *die, knit_inline_call *c)
{
  Dwarf_Attribute a;
  Dwarf_Word file = 0, line = 0;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) == 0 && line <= 0xffffffffu)
    c->call_line = (unsigned)line;
  Dwarf_Files *files;
  size_t nfiles;
  /* The index is into the unit's line-program file table; 0 is a valid
   * index from DWARF 5 on (the primary file). */
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) == 0 &&
      dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && file < nfiles)
    c->call_file = dwarf_filesrc(files, file, NULL, NULL);
}

/* The child of parent whose ranges hold addr, into *out, looking into
 * namespaces and classes on the way; 0 when none does. Scopes nest, so at
 * most one child holds an address. */
/* gcc writes an outlined OpenMP body (main._omp_fn.0) as a subprogram
 * nested in the DIE of the function it was outlined from, whose own ranges
 * do not hold the body's code: a function that does not hold addr may
 * still hold, among its children, the subprogram that does. */
static int find_nested(Dwarf_Die *function, Dwarf_Addr addr, Dwarf_Die *out)
{
  Dwarf_Die child;
  if (dwarf_child(function, &child) != 0)
    return 0;
  do {
    if (dwarf_tag(&child) != DW_TAG_subprogram)
      continue;
    if (dwarf_haspc(&child, addr) > 0) {
      *out = child;
      return 1;
    }
    if (find_nested(&child, addr, out))
      return 1;
  } while (dwarf_siblingof(&child, &child) == 0);
  return 0;
}

static int find_holder(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out)
{
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0)
    return 0;
  do {
    if (dwarf_haspc(&child, addr) > 0) {
      *out = child;
      return 1;
    }
    if (holds_functions(dwarf_tag(&child)) && find_holder(&child, addr, out))
      return 1;
    if (dwarf_tag(&child) == DW_TAG_subprogram && find_nested(&child, addr, out))
      return 1;
  } while (dwarf_siblingof(&child, &child) == 0);
  return 0;
}

int knit_inline_scopes_at(Dwarf_Die *cu, Dwarf_Addr addr, knit_inline_call **calls, size_t *count)
{
  *calls = NULL;
  *count = 0;
  size_t cap = 0;
  Dwarf_Die scope = *cu, inner;
  for (; find_holder(&scope, addr, &inner); scope = inner) {
    if (dwarf_tag(&inner) != DW_TAG_inlined_subroutine)
      continue;
    if (*count == cap) {
      cap = cap ? 2 * cap : 4;
      knit_inline_call *grown = realloc(*calls, cap * sizeof *grown);
      if (grown == NULL) {
        free(*calls);
        *calls = NULL;
        *count = 0;
        return -1;
      }
      *calls = grown;
    }
    knit_inline_call *c = &(*calls)[(*count)++];
    *c = (knit_inline_call){.function = name_of(&inner), .module = fortran_module_of(cu, &inner)};
    call_site(cu, &inner, c);
  }
  return 0;
}
