/* The per-ISA operations table. Everything that differs between x86-64,
 * aarch64 and ppc64le lives behind this table, in profiler/unwind/<isa>/;
 * nothing outside those folders tests the target architecture. */
#ifndef KNIT_UNWIND_ISA_H
#define KNIT_UNWIND_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "recipe.h"

typedef struct knit_isa_ops {
  const char *name;      /* "x86_64", "aarch64", "ppc64le" */
  uint16_t elf_machine;  /* EM_X86_64, EM_AARCH64, EM_PPC64 */
  int cs_arch;           /* Capstone architecture */
  int cs_mode;           /* Capstone mode */

  /* Decodes one function's code (bytes of [addr, addr+len)) and writes the
   * recipes covering it, sorted and merged, into out (at most max). Returns
   * the number written, or -1 when the code cannot be decoded at all.
   * cs_handle is an open Capstone handle of cs_arch/cs_mode with detail on;
   * insn is a buffer from cs_malloc on that handle. Pure apart from Capstone:
   * no global state, no allocation (so it may run in a signal handler).
   * NULL when the ISA has no analyzer yet: the caller then falls back to
   * entry_recipe for every address (right at a function's first instruction
   * and, on link-register ISAs, in leaf code that never touches the stack;
   * a guess everywhere else). */
  int (*analyze)(size_t cs_handle, void *insn, const uint8_t *code, size_t len,
                 uint64_t addr, knit_recipe *out, int max);

  /* The recipe that holds at the first instruction of any function: the
   * return address where the call put it. Used for code whose bounds are
   * unknown at the innermost frame. */
  knit_recipe entry_recipe;

  /* DWARF register numbers of the registers recipes speak of, so that
   * recipes can be compared with the compiler's CFI (knit audit). */
  int dwarf_sp;
  int dwarf_fp;
  int dwarf_ra;  /* the return-address column of the CFI */
  int dwarf_lr;  /* the link register, or -1 (x86-64 has none) */
} knit_isa_ops;

extern const knit_isa_ops knit_isa_x86_64;
extern const knit_isa_ops knit_isa_aarch64;
extern const knit_isa_ops knit_isa_ppc64le;

/* The ops of the ISA this library was built for. Defined, with the two
 * functions below, in <isa>/<isa>_context.c of the native ISA only. */
const knit_isa_ops *knit_isa_native(void);

/* Copies pc, sp, fp and lr out of a ucontext_t of the native ISA (from a
 * signal handler or getcontext). Async-signal-safe. */
void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out);

/* The ops for an ELF e_machine value, or NULL. */
const knit_isa_ops *knit_isa_for_machine(uint16_t elf_machine);

#endif /* KNIT_UNWIND_ISA_H */
