/* The fixture of the recipe analyzers' unit tests, one for every ISA: a
 * Capstone handle and instruction buffer as the analyzers' contract wants
 * them (isa.h: detail on, the buffer from cs_malloc), a workspace, and the
 * checks every analysis must pass. A test names its ISA in knit_fx.isa and
 * runs its group with knit_fixture_setup and knit_fixture_teardown. */
#ifndef KNIT_HARNESS_ANALYZE_FIXTURE_H
#define KNIT_HARNESS_ANALYZE_FIXTURE_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

#include "profiler/unwind/isa.h"
#include "profiler/unwind/recipe.h"

typedef struct knit_fixture {
  const knit_isa_ops *isa; /* set by the test before its group runs */
  csh cs;
  cs_insn *insn;
  knit_analyze_work *work;
} knit_fixture;

extern knit_fixture knit_fx;

/* CMocka group set-up and tear-down: open and close knit_fx's decoder for
 * knit_fx.isa, and its workspace. */
int knit_fixture_setup(void **state);
int knit_fixture_teardown(void **state);

/* Runs knit_fx.isa's analyzer over the code [addr, addr+len) without a
 * workspace, as the fixtures were recorded, and checks what every result
 * must satisfy: sorted, contiguous intervals that cover exactly [addr,
 * addr+len). Also runs it with the workspace, whose instruction records
 * every pass after the first reads instead of decoding again, and checks
 * that the recipes are the same. Returns the number of recipes. */
int knit_fixture_analyze(const uint8_t *code, size_t len, uint64_t addr, knit_recipe *out, int max);

#endif /* KNIT_HARNESS_ANALYZE_FIXTURE_H */
