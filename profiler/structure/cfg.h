/* The control-flow graph of one function's machine code, for the structure
 * analysis (loops.h). Host-side, at report time: the instructions are
 * decoded with Capstone and classified by the ISA's audit row
 * (audit/audit_isa.h: path ends, calls, conditional branches, direct
 * targets, by instruction text), so nothing here names an ISA.
 *
 * A block is a run of instructions entered only at its first and left only
 * at its last. Calls fall through (a call that never returns ends no block
 * here: the graph is conservative); a direct jump or conditional branch to
 * an address inside the function is an edge; one outside (a tail call)
 * ends the path. An indirect jump is where a jump table's cases are
 * entered: their blocks, which no edge reaches, are given as its
 * successors (the `cases`), each to the nearest indirect jump before it
 * (compilers put a switch's cases after its dispatch). Without them a loop
 * around a switch would lose its cases: their back edges would come from
 * unreachable blocks. */
#ifndef KNIT_STRUCTURE_CFG_H
#define KNIT_STRUCTURE_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/isa.h"

typedef struct knit_cfg_block {
  uint64_t start, end; /* [start, end): its instructions' addresses */
  uint64_t last;       /* its last instruction's address */
  uint32_t first_insn; /* its instructions: insn_at[first_insn ..] */
  uint32_t insn_count;
  uint32_t succ[2]; /* successor blocks */
  uint8_t succ_count;
  uint32_t case_first; /* an indirect jump's: cases[case_first ..] */
  uint32_t case_count;
} knit_cfg_block;

typedef struct knit_cfg {
  knit_cfg_block *blocks; /* by address; blocks[0] starts at the entry */
  size_t count;
  uint64_t *insn_at; /* every decoded instruction's address, ascending */
  size_t insn_count;
  uint32_t *cases; /* the indirect jumps' successors (blocks) */
} knit_cfg;

/* A block's successors, its cases after its succ: how many, and the k-th. */
static inline uint32_t knit_cfg_succ_count(const knit_cfg_block *b)
{
  return b->succ_count + b->case_count;
}

static inline uint32_t knit_cfg_succ(const knit_cfg *g, const knit_cfg_block *b, uint32_t k)
{
  return k < b->succ_count ? b->succ[k] : g->cases[b->case_first + (k - b->succ_count)];
}

/* Builds the graph of the code [addr, addr + len) (its bytes at code), an
 * ISA's function, decoding with cs (a Capstone handle of the row's arch and
 * mode; detail not needed). Returns 0, or -1 when out of memory or when the
 * ISA has no audit row to classify with. */
int knit_cfg_build(const knit_isa_ops *isa, size_t cs, const uint8_t *code, size_t len,
                   uint64_t addr, knit_cfg *out);

/* The block holding addr, or -1. */
long knit_cfg_block_of(const knit_cfg *g, uint64_t addr);

void knit_cfg_free(knit_cfg *g);

#endif /* KNIT_STRUCTURE_CFG_H */
