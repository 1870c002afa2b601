/* A module's program structure for the report: for an instruction address,
 * the loops around it, outermost first, each with the source line that
 * names it ("loop at file:line"). Computed per function on first use (its
 * bounds from the module's function table, its code from the file, its
 * loops from cfg.h and loops.h), then kept: a report asks about many
 * addresses of few functions.
 *
 * Lines come from the caller (a line_of function over the module's DWARF,
 * the symbolizer's), which both splits loops that share a header
 * (loops.h) and names each loop: by the smallest line of its back edges'
 * source blocks, the loop statement's own line for the loops compilers
 * emit (the latch holds the increment and the test). Inlined code inside
 * a latch would bring its own lines: line_of should give the function's
 * own line there (the inlined call's).
 *
 * What is computed outlives the report: a module with a GNU build-id keeps
 * its functions' loops in a cache file (structure_cache.h), read at open
 * and written at close, so a binary's code is analyzed once, not once per
 * report. */
#ifndef KNIT_STRUCTURE_STRUCTURE_H
#define KNIT_STRUCTURE_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include "structure/loops.h"

typedef struct knit_structure knit_structure;

/* A loop as the report shows it. */
typedef struct knit_loop_ref {
  uint64_t function; /* start of the function it is in */
  uint32_t index;    /* its number within the function, outer loops first */
  uint64_t header;   /* its header's address */
  uint64_t latch;    /* the branch of the back edge that names it: the
                        loop's own code (inlined code has its scope) */
  unsigned line;     /* the line naming it, 0 when unknown */
} knit_loop_ref;

/* Opens the module file at path (an ELF file of any ISA of the machine
 * table). line_of/ctx give source lines of the module's addresses (may be
 * NULL: loops then have line 0 and loops sharing a header are one). NULL
 * when the file cannot be read as ELF of a known ISA; err says why. */
knit_structure *knit_structure_open(const char *path, knit_line_of_fn *line_of, void *ctx,
                                    char *err, size_t errlen);

/* The loops around the instruction at addr (an address of the module as
 * its file gives them), outermost first: writes at most max and returns
 * how many there are (0 outside every loop, or where the code cannot be
 * analyzed). */
int knit_structure_loops_at(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max);

/* The loops that the innermost loop around addr holds directly (the
 * outermost loops of addr's function when addr is in none): where the
 * compiler may have moved code of a loop out of its cycle, a peeled first
 * iteration or the loop's entry test, which the report places by their
 * lines (knit_structure_loop_any).
 * Writes at most max and returns how many there are. */
int knit_structure_loops_inside(knit_structure *s, uint64_t addr, knit_loop_ref *out, int max);

/* Calls visit for the instructions of a loop (those of the loops it holds
 * too), at most limit of them, until visit returns nonzero; returns that
 * value, or 0. */
typedef int knit_loop_insn_fn(void *ctx, uint64_t addr);
int knit_structure_loop_any(knit_structure *s, const knit_loop_ref *loop, size_t limit,
                            knit_loop_insn_fn *visit, void *ctx);

/* How many loops the functions known so far hold: those analyzed and
 * those the cache file gave. */
size_t knit_structure_loop_count(const knit_structure *s);

/* How many functions were analyzed from their code since the open (those
 * the cache file held are not). */
size_t knit_structure_analyzed_count(const knit_structure *s);

/* Writes the cache file when functions were analyzed (and the module is
 * cached), then releases s. */
void knit_structure_close(knit_structure *s);

#endif /* KNIT_STRUCTURE_STRUCTURE_H */
