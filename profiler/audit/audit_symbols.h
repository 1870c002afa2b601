/* Function names of one ELF file, for naming disagreements. Internal to
 * profiler/audit. */
#ifndef KNIT_AUDIT_SYMBOLS_H
#define KNIT_AUDIT_SYMBOLS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct knit_audit_symbol {
  uint64_t addr;
  const char *name; /* points into the Elf's string table */
} knit_audit_symbol;

typedef struct knit_audit_symbols {
  knit_audit_symbol *items; /* sorted by addr */
  size_t count;
} knit_audit_symbols;

/* Collects the function symbols of .symtab and .dynsym. The names stay
 * valid as long as elf is open. Returns -1 when out of memory. */
int knit_audit_symbols_read(Elf *elf, knit_audit_symbols *out);

/* The symbol at or before addr and the distance to it; NULL when none. */
const char *knit_audit_symbols_find(const knit_audit_symbols *s, uint64_t addr, uint64_t *offset);

void knit_audit_symbols_free(knit_audit_symbols *s);

#endif /* KNIT_AUDIT_SYMBOLS_H */
