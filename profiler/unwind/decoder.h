/* Capstone, made safe to use inside a signal handler.
 *
 * Recipes are built lazily, the first time a sample lands in a function, so
 * Capstone runs in the handler. Its allocations and its text formatting are
 * routed (CS_OPT_MEM) to knit's shared arena and signal-safe vsnprintf, and
 * each thread decodes with its own handle and instruction buffer, opened on
 * first use. After knit_decoder_setup, nothing here calls malloc or printf;
 * the one thing Capstone does with the C library's own malloc, sorting a
 * table with qsort the first time x86 code is decoded, knit_decoder_setup
 * does, outside any handler, by decoding a few instructions of each ISA.
 */
#ifndef KNIT_UNWIND_DECODER_H
#define KNIT_UNWIND_DECODER_H

#include <stdbool.h>
#include <stddef.h>

#include "unwind/isa.h"

typedef struct knit_decoder {
  size_t handle; /* csh */
  void *insn;    /* cs_insn from cs_malloc */
  const knit_isa_ops *isa;
  bool open;
} knit_decoder;

/* Routes Capstone's memory and formatting to signal-safe versions. Call once,
 * before any decoder is opened and before threads start sampling. */
bool knit_decoder_setup(void);

/* Opens a decoder for isa. Async-signal-safe after knit_decoder_setup. */
bool knit_decoder_open(knit_decoder *d, const knit_isa_ops *isa);

/* Closes it (its memory stays in the shared arena). */
void knit_decoder_close(knit_decoder *d);

#endif /* KNIT_UNWIND_DECODER_H */
