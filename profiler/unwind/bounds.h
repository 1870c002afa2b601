/* Function bounds of one ELF file, from every source that survives
 * stripping to some degree: .symtab and .dynsym (functions with sizes), the
 * PLT sections (one pseudo-function per stub), and the .eh_frame FDEs (which
 * are never stripped). Read when a module is loaded, never in the handler;
 * the result is immutable and may then be read from a signal handler. */
#ifndef KNIT_UNWIND_BOUNDS_H
#define KNIT_UNWIND_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct knit_func_table {
  uint64_t *start; /* sorted ascending, ELF virtual addresses */
  uint64_t *end;   /* one past the end; end[i] <= start[i+1] */
  size_t count;
  uint16_t elf_machine;
  /* The span of the code-carrying PLT sections (ELF virtual addresses;
   * plt_lo == plt_hi when there are none): a direct call into it is a call
   * through a stub, whose resolved target the step classes do not follow. */
  uint64_t plt_lo, plt_hi;
  /* NULL, or per function the start of its parent when it is a part
   * entered by jumps from that one function (a hot/cold split part,
   * foo.cold, entered from foo with foo's frame in place); 0 for none.
   * Found by the machine table's find_parts (x86-64 only); a candidate, which the parent's
   * analysis confirms by seeing the jump. */
  uint64_t *parent;
} knit_func_table;

/* Reads the bounds of the ELF file at path into *out (malloc'd arrays).
 * Returns 0, or -1 with a message in err (size errlen) when the file is not
 * a readable ELF file. A file with no symbols and no FDEs gives count 0. */
int knit_bounds_read(const char *path, knit_func_table *out, char *err, size_t errlen);

/* The same from an ELF image in memory (size bytes at image, headers
 * included): the vdso, which no file holds. */
int knit_bounds_read_image(const void *image, size_t size, knit_func_table *out, char *err,
                           size_t errlen);

/* Finds the function containing vaddr. Async-signal-safe (binary search). */
bool knit_bounds_lookup(const knit_func_table *t, uint64_t vaddr, uint64_t *start, uint64_t *end);

/* The index of the function starting exactly at vaddr, or t->count.
 * Async-signal-safe (binary search). */
size_t knit_bounds_index_of_start(const knit_func_table *t, uint64_t vaddr);

/* How many parts deep a chain of parents is followed (foo jumps into
 * foo.cold, which tail-jumps into a function reached from nowhere else):
 * the recipe cache and the audit analyze each from its own entry state. */
#define KNIT_MAX_PART_DEPTH 4

/* The parent of the function that starts at start (see parent above), with
 * its bounds. Async-signal-safe (binary searches). */
bool knit_bounds_parent(const knit_func_table *t, uint64_t start, uint64_t *parent_start,
                        uint64_t *parent_end);

void knit_bounds_free(knit_func_table *t);

#endif /* KNIT_UNWIND_BOUNDS_H */
