/* Step classes: how sure the unwinder can be of one step from a callee's
 * frame to its caller's return address.
 *
 * A step is checked against the code at the return address: a real return
 * address follows a call instruction. The class compares that call with the
 * function the callee frame is in:
 *   confirmed  a direct call to the callee's function (or to a PLT stub,
 *              whose resolved target knit does not follow) ends at RA;
 *   probable   an indirect call ends at RA, or a direct call to another
 *              function (which then tail-called the callee);
 *   wrong      no call ends at RA, or RA lies in no known module: the
 *              callee's recipe found something that is not a return address.
 * Everything here is pure or reads through the unwinder's read function, so
 * it is async-signal-safe and testable on any host.
 */
#ifndef KNIT_UNWIND_STEP_CLASS_H
#define KNIT_UNWIND_STEP_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/loadmap.h"
#include "unwind/recipe.h"

struct knit_isa_ops;

/* What ends at a return address; the values fit in 2 bits (step cache). */
typedef enum knit_call_kind {
  KNIT_CALL_NONE = 0,       /* not a call: the address is no return address */
  KNIT_CALL_DIRECT = 1,     /* a call whose target is in the instruction */
  KNIT_CALL_INDIRECT = 2,   /* a call through a register or memory */
  KNIT_CALL_DIRECT_PLT = 3, /* a direct call to a PLT stub of the caller's module */
} knit_call_kind;

/* Classes of one step (knit_frame.step); 0 means the frame made no step
 * (the last frame of a walk). */
typedef enum knit_step_class {
  KNIT_STEP_UNCLASSIFIED = 0,
  KNIT_STEP_CONFIRMED = 1,
  KNIT_STEP_PROBABLE = 2,
  KNIT_STEP_WRONG = 3,
} knit_step_class;

/* The per-ISA decoders of the instruction that ends at a return address
 * (isa.h: call_before). bytes are the n bytes that end at ra (n <= 16; the
 * fixed-width ISAs look at the last 4). Return a knit_call_kind (never
 * KNIT_CALL_DIRECT_PLT) and, for a direct call, its target. Pure. */
int knit_x86_64_call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target);
int knit_aarch64_call_before(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target);

/* The most bytes a call_before looks at. */
#define KNIT_CALL_BYTES 16u

/* What a frame's pc tells about the steps into and out of it. */
typedef struct knit_step_facts {
  uint64_t func;   /* start of the frame's function; 0 when unknown */
  uint64_t target; /* KNIT_CALL_DIRECT: the call's target */
  uint8_t call;    /* knit_call_kind of the instruction that ends at pc */
} knit_step_facts;

/* Decodes the call that ends at the return address ra, which lies in
 * module m (not NULL): reads up to KNIT_CALL_BYTES bytes before ra through
 * read, never before m's first executable byte, and tells a direct call to
 * one of m's PLT stubs apart. A read that fails gives KNIT_CALL_NONE.
 * Async-signal-safe. */
void knit_step_read_call(const struct knit_isa_ops *isa, knit_read_word_fn read, void *ctx,
                         const knit_module *m, uint64_t ra, knit_step_facts *out);

/* The class of a step from a frame in the function that starts at
 * callee_func (0: unknown) to a return address whose call is described by
 * caller (call and target). ppc64le's direct calls within a module enter a
 * function at its local entry point, a few instructions past its start:
 * slack (isa.h: call_entry_slack) says how far past still counts. */
static inline knit_step_class knit_step_classify(uint64_t callee_func, unsigned slack, uint8_t call,
                                                 uint64_t target)
{
  /* Without branches: it runs for every frame of every sample, and the mix
   * of call kinds along a path defeats branch prediction (a switch here
   * cost several ns per frame in bench_unwind_cost). A direct call is
   * probable unless its target is the callee's function: then one better. */
  static const uint8_t by_call[4] = {KNIT_STEP_WRONG, KNIT_STEP_PROBABLE, KNIT_STEP_PROBABLE,
                                     KNIT_STEP_CONFIRMED};
  unsigned match =
      (call == KNIT_CALL_DIRECT) & (callee_func != 0) & (target - callee_func <= slack);
  return (knit_step_class)(by_call[call & 3] - match);
}

#endif /* KNIT_UNWIND_STEP_CLASS_H */
