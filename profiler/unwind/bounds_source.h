/* Internal to the bounds reader: the candidate list that bounds.c merges and
 * the .eh_frame source that fills part of it. Not a public interface. */
#ifndef KNIT_UNWIND_BOUNDS_SOURCE_H
#define KNIT_UNWIND_BOUNDS_SOURCE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How far a candidate's end can be trusted; a lower rank wins. */
enum {
  KNIT_RANK_SIZED_SYMBOL = 0, /* st_size of a function symbol */
  KNIT_RANK_FDE = 1,          /* initial location + address range */
  KNIT_RANK_PLT = 2,          /* one PLT stub */
  KNIT_RANK_OPEN_START = 3,   /* a start only; end is 0 or an upper limit */
};

typedef struct knit_bounds_candidate {
  uint64_t start;
  uint64_t end; /* 0: unknown (open start) */
  int rank;
} knit_bounds_candidate;

typedef struct knit_bounds_candidates {
  knit_bounds_candidate *items;
  size_t count;
  size_t capacity;
  uint64_t plt_lo, plt_hi; /* the span of the PLT sections; empty if none */
} knit_bounds_candidates;

/* Appends one candidate; ignores empty ones. Returns -1 when out of memory. */
int knit_bounds_add(knit_bounds_candidates *c, uint64_t start, uint64_t end, int rank);

typedef struct knit_eh_sections {
  Elf_Scn *eh_frame;
  uint64_t eh_frame_addr;
  Elf_Scn *eh_frame_hdr;
  uint64_t eh_frame_hdr_addr;
} knit_eh_sections;

/* Adds every FDE of .eh_frame (start and range) and every start of the
 * .eh_frame_hdr search table. Malformed data ends the walk quietly: what was
 * read stays. Returns -1 only when out of memory. */
int knit_bounds_add_eh_frame(Elf *elf, const knit_eh_sections *eh, knit_bounds_candidates *c);

#endif /* KNIT_UNWIND_BOUNDS_SOURCE_H */
