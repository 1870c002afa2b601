/* x86-64: the parts of hot/cold split functions, found by their jumps. */
#ifndef KNIT_UNWIND_X86_64_PARTS_H
#define KNIT_UNWIND_X86_64_PARTS_H

#include <gelf.h>

struct knit_func_table;

/* Fills t->parent (bounds.h) from the code of elf's executable sections;
 * leaves it NULL when no part is found. Returns 0, or -1 when out of
 * memory. Read with the bounds, never in a handler. */
int knit_x86_64_find_parts(Elf *elf, struct knit_func_table *t);

#endif /* KNIT_UNWIND_X86_64_PARTS_H */
