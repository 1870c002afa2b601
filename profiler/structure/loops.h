/* Loop nests of one function, from its control-flow graph (cfg.h).
 *
 * Natural loops: a back edge goes from a block to one that dominates it
 * (every path from the entry to the block passes the header), and the
 * loop is the header with every block that reaches the back edge's source
 * without passing the header. Back edges to one header make one loop;
 * loops nest by containment. Dominators are computed with the iterative
 * algorithm of Cooper, Harvey and Kennedy over the blocks reachable from
 * the entry, in reverse postorder. A cycle entered at two places
 * (irreducible: no block dominates the others) has no header and is not
 * reported; compilers produce them rarely (a goto into a loop).
 *
 * Compilers share one header between a loop and the loop around it: gcc
 * at -O2 ends an outer loop's latch with a jump straight back into the
 * inner loop's header, so two source loops have one machine header. Given
 * source lines (line_of), back edges to one header whose source blocks
 * have different smallest lines (knit_loops_block_line: each latch holds
 * its own loop's increment; the branch itself may carry the inner loop's
 * line, as gcc's re-initialization of the inner counter before it does)
 * are kept apart,
 * nested by their lines: an outer loop is written before the loops it
 * holds, so the loop of the smallest line holds every back edge's blocks,
 * the next one those of the back edges from its line on, and so on. A
 * header whose back edges all come from blocks of one line makes one loop,
 * and so does every header without lines. What this cannot tell apart: a
 * `continue` compiled as a back edge of its own, from a block that begins
 * on the continue's line, shows as a loop inside the loop. */
#ifndef KNIT_STRUCTURE_LOOPS_H
#define KNIT_STRUCTURE_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "structure/cfg.h"

typedef struct knit_loop {
  uint32_t header; /* its header block */
  int32_t parent;  /* the innermost loop around it, or -1 */
  uint32_t depth;  /* 1 for an outermost loop */
  uint32_t blocks; /* how many blocks it holds, nested loops' included */
} knit_loop;

typedef struct knit_loop_nest {
  knit_loop *loops; /* outer loops before the loops they hold */
  size_t count;
  int32_t *innermost; /* per block of the graph: its innermost loop, or -1 */
  size_t block_count;
} knit_loop_nest;

/* The source line of the instruction at addr, or 0 when unknown, and in
 * *scope what names the code it belongs to: 0 for the function's own, a
 * value of the caller's choosing for each inlined call (code inlined into
 * a latch brings its own file's lines, which must not name the loop). */
typedef unsigned knit_line_of_fn(void *ctx, uint64_t addr, uint64_t *scope);

/* The smallest known line of a block's instructions of the scope its last
 * instruction is in (0 when none is known): a latch's, whose branch is the
 * loop's, the loop statement's line (its increment and test), where the
 * block may also hold body lines, and code inlined from elsewhere. Of any
 * scope when none is of that one. */
unsigned knit_loops_block_line(const knit_cfg *g, uint32_t block, knit_line_of_fn *line_of,
                               void *ctx);

/* Finds the loops of g; line_of may be NULL (see above). Returns 0, or -1
 * when out of memory. */
int knit_loops_find(const knit_cfg *g, knit_line_of_fn *line_of, void *ctx, knit_loop_nest *out);

/* The innermost loop holding the instruction at addr, or -1. */
int32_t knit_loops_at(const knit_loop_nest *nest, const knit_cfg *g, uint64_t addr);

/* Whether the block is in the loop (or in a loop it holds). */
int knit_loops_holds(const knit_loop_nest *nest, int32_t loop, uint32_t block);

void knit_loops_free(knit_loop_nest *nest);

#endif /* KNIT_STRUCTURE_LOOPS_H */
