/* The machine table: one row per ISA, its data and its operations.
 * Everything that differs between x86-64, aarch64, ppc64le and ppc64 lives
 * behind it, in profiler/unwind/<isa>/ (each row is defined in <isa>_ops.c;
 * ppc64le and ppc64 share the POWER model of profiler/unwind/power/); code
 * elsewhere asks the row (knit_isa_for_elf, knit_isa_named, knit_isas)
 * rather than testing the architecture. */
#ifndef KNIT_UNWIND_ISA_H
#define KNIT_UNWIND_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "recipe.h"

struct Elf;             /* libelf's */
struct knit_func_table; /* bounds.h */

/* The frame state at a direct jump that enters another function: a part of
 * a hot/cold split (gcc's foo.cold), entered from foo with foo's frame in
 * place. ISA-neutral: the rule that holds at the jump, plus how far sp is
 * below the CFA when the analyzer knows it (after a frame set-up the rule
 * computes the CFA from fp, and the distance would be lost). rule.start is
 * the address jumped to. */
typedef struct knit_jump_state {
  knit_recipe rule; /* start: the jump's target; end unused */
  int32_t sp_depth; /* CFA - sp, when sp_known */
  bool sp_known;
  bool found; /* set by the analysis that saw the jump */
} knit_jump_state;

/* Every address at which a parent enters a part, each with its state. A
 * part may hold unlikely blocks from several places of its parent, each
 * entered by a jump of its own: the mock runtime's GOMP_parallel.cold
 * holds the tool's side of both the fork and the join, entered before and
 * after the body with the same frame, and the block of the join, after
 * the fork block's jump back, was reached by no path of the part itself:
 * analyzed from a guess, it was 32 bytes off (the fork's pushed
 * arguments), and every walk from the master's join through it read a
 * stack address as a return address. libstdc++'s parts have up to 22
 * entries (exception landing pads); beyond this many, the others are not
 * recorded (their blocks are guessed, as before), but the start always is. */
#define KNIT_MAX_PART_ENTRIES 32
typedef struct knit_part_entries {
  int count;
  knit_jump_state at[KNIT_MAX_PART_ENTRIES];
} knit_part_entries;

/* The entry of entries at addr, or NULL. */
static inline const knit_jump_state *knit_part_entry_at(const knit_part_entries *entries,
                                                        uint64_t addr)
{
  for (int i = 0; entries && i < entries->count; i++)
    if (entries->at[i].rule.start == addr)
      return &entries->at[i];
  return NULL;
}

/* Caller-provided room for an analysis (unwind/analyze.c): the branch
 * target table (ppc64le's holds 4468 targets, 210 KiB, so that a large
 * switch gets its cases without a large stack frame: analyzers run inside
 * the signal handler, on whatever stack the thread has), then the
 * records of the function's instructions, decoded once and read by every
 * pass (at most 120 bytes each: room for more than 4,000 instructions on
 * every ISA, more than the largest function of libc, libstdc++ or libomp
 * has; a larger one is decoded again past that). The recipe cache keeps
 * one per thread in its scratch (allocated once, from the thread's arena,
 * whose pages are touched only as far as an analysis uses them); the
 * audit allocates one. An analyzer given NULL uses a smaller target table
 * on its stack and decodes on every pass. Opaque bytes. */
#define KNIT_ANALYZE_WORK_BYTES (512u * 1024)

typedef struct knit_analyze_work {
  _Alignas(16) unsigned char bytes[KNIT_ANALYZE_WORK_BYTES];
} knit_analyze_work;

typedef struct knit_isa_ops {
  const char *name;     /* the ISA's name, as knit record --qemu and knit conform --isa say it */
  uint16_t elf_machine; /* its ELF e_machine */
  uint8_t elf_class;    /* ELFCLASS64 */
  uint8_t elf_data;     /* ELFDATA2LSB: its byte order */
  int cs_arch;          /* Capstone architecture */
  int cs_mode;          /* Capstone mode */
  /* --- running its programs on another host (knit record --qemu) --- */
  const char *qemu;    /* QEMU user mode's program for it */
  const char *sysroot; /* where Debian's cross packages put its libraries,
                            "" where the host's own serve */
  /* The resolver stub that heads .plt, in bytes; 0: one entry, as on
   * x86-64 (16), where aarch64's takes two (32). */
  uint32_t plt0_size;
  /* Finds the parts of hot/cold split functions in an ELF file whose
   * bounds t holds, filling t->parent (bounds.h); 0, or -1 when out of
   * memory. NULL where the ISA finds none (each part is then analyzed as
   * entered by a call). Read with the bounds, never in a handler. */
  int (*find_parts)(struct Elf *elf, struct knit_func_table *t);
  /* The code address of a function symbol of section shndx and value
   * value, where the ABI's function symbols name a descriptor rather than
   * code (ppc64's ELFv1: the symbol is in .opd, the code address is the
   * descriptor's first doubleword). False when the descriptor cannot be
   * read. NULL where a symbol's value is its code address. Read with the
   * bounds, never in a handler. */
  bool (*symbol_code)(struct Elf *elf, size_t shndx, uint64_t value, uint64_t *code);
  /* Calls through stubs the linker puts outside .plt (report/plt_callee.c).
   * Where the ABI's call stubs sit among the code and load their target from
   * a PLT slot addressed from a base register (ppc64le's and ppc64's: the
   * TOC pointer, r2), rather than being .plt's entries in .rela.plt's
   * order, the report names a call by the relocation at the slot's address.
   * plt_stub_base: the base register's value in an ELF file's code, or 0
   * when the file does not say. plt_stub_slot: the address of the slot the
   * stub whose code is the n bytes at addr loads its target from, given the
   * base; 0 when the code is no such stub. Pure: it reads code alone. Both
   * NULL where every stub is in .plt or .plt.sec. Read with the report,
   * never in a handler. */
  uint64_t (*plt_stub_base)(struct Elf *elf);
  uint64_t (*plt_stub_slot)(const uint8_t *code, size_t n, uint64_t addr, uint64_t base);
  /* A few instructions knit_decoder_setup decodes once, outside any
   * handler: Capstone initializes some tables on first use (x86's printer
   * sorts its table of implicit registers with qsort, which allocates with
   * malloc), and that first use must not be a sample's. */
  const uint8_t *warm_code;
  uint32_t warm_code_len;

  /* Decodes one function's code (bytes of [addr, addr+len)) and writes the
   * recipes covering it, sorted and merged, into out (at most max). Returns
   * the number written, or -1 when the code cannot be decoded at all.
   * cs_handle is an open Capstone handle of cs_arch/cs_mode with detail on;
   * insn is a buffer from cs_malloc on that handle. Pure apart from Capstone:
   * no global state, no allocation (so it may run in a signal handler).
   * NULL when the ISA has no analyzer yet: the caller then falls back to
   * entry_recipe for every address (right at a function's first instruction
   * and, on link-register ISAs, in leaf code that never touches the stack;
   * a guess everywhere else). work: the caller's workspace, or NULL (see
   * knit_analyze_work); it holds nothing between calls. */
  int (*analyze)(size_t cs_handle, void *insn, const uint8_t *code, size_t len, uint64_t addr,
                 knit_recipe *out, int max, knit_analyze_work *work);

  /* The recipe that holds at the first instruction of any function: the
   * return address where the call put it. Used for code whose bounds are
   * unknown at the innermost frame. */
  knit_recipe entry_recipe;

  /* DWARF register numbers of the registers recipes speak of, so that
   * recipes can be compared with the compiler's CFI (knit audit). */
  int dwarf_sp;
  int dwarf_fp;
  int dwarf_ra; /* the return-address column of the CFI */
  int dwarf_lr; /* the link register, or -1 (x86-64 has none) */

  /* --- signal trampolines (sigreturn_step) --- */
  /* Recognizes the signal trampoline by its code at pc (the handler's
   * return address, or the trampoline's system call instruction for an
   * innermost frame), reading code and stack only through read. When pc is
   * one, fills *interrupted with the registers the signal interrupted (pc
   * exact, lr from the saved context) from the signal frame at here->sp,
   * and returns true. Pure and allocation-free: it runs in the handler and
   * in host tests from recorded bytes. Defined in <isa>/<isa>_sigframe.c. */
  bool (*sigreturn_step)(uint64_t pc, knit_read_word_fn read, void *ctx, const knit_regs *here,
                         knit_regs *interrupted);

  /* --- step classes (unwind/step_class.h) --- */
  /* Decodes the instruction that ends at the return address ra from the n
   * bytes before it (n <= KNIT_CALL_BYTES): returns a knit_call_kind and,
   * for a direct call, sets *target. Pure and allocation-free (it runs in
   * the handler). Defined in <isa>/<isa>_call.c. */
  int (*call_before)(const uint8_t *bytes, size_t n, uint64_t ra, uint64_t *target);
  /* How far past a function's start a direct call may enter it and still
   * be a call to that function: ppc64le's local entry point skips the TOC
   * set-up (8 bytes, as gcc and clang emit it); 0 elsewhere. */
  uint8_t call_entry_slack;

  /* --- parts entered by a jump (hot/cold splits) --- */
  /* analyze, with two additions; the same contract (pure, no allocation,
   * signal-safe). entries: the addresses the code is entered at by jumps
   * of its parent, each with the parent's state there (the one at addr
   * is the state at the start), or NULL for a call. [into, into_end),
   * when not empty and outside the code: *at_jumps receives the state at
   * the direct jumps (jmp or jcc) from this code into that range, one
   * entry per address jumped to (at most KNIT_MAX_PART_ENTRIES, into
   * always among them when jumped to), each preferring a jump the analysis
   * followed from the entry over a guessed one. NULL on ISAs that do not
   * model such parts yet. */
  int (*analyze_entered)(size_t cs_handle, void *insn, const uint8_t *code, size_t len,
                         uint64_t addr, const knit_part_entries *entries, uint64_t into,
                         uint64_t into_end, knit_part_entries *at_jumps, knit_recipe *out, int max,
                         knit_analyze_work *work);
} knit_isa_ops;

extern const knit_isa_ops knit_isa_x86_64;
extern const knit_isa_ops knit_isa_aarch64;
extern const knit_isa_ops knit_isa_ppc64le;
extern const knit_isa_ops knit_isa_ppc64;

/* Every row, NULL-terminated (isa.c). */
extern const knit_isa_ops *const knit_isas[];

/* The row for an ELF file's machine, class and byte order (e_ident's
 * EI_CLASS and EI_DATA), or NULL when knit has none. */
const knit_isa_ops *knit_isa_for_elf(uint16_t machine, uint8_t elf_class, uint8_t elf_data);

/* The row of that name, or NULL. */
const knit_isa_ops *knit_isa_named(const char *name);

/* "x86_64, aarch64, ppc64le or ppc64": every row's name, for messages. */
void knit_isa_names(char *out, size_t len);

/* The ops of the ISA this library was built for. Defined, with the three
 * functions below, in <isa>/<isa>_context.c of the native ISA only. */
const knit_isa_ops *knit_isa_native(void);

/* Copies pc, sp, fp and lr out of a ucontext_t of the native ISA (from a
 * signal handler or getcontext). Async-signal-safe. */
void knit_native_regs_from_ucontext(const void *ucontext, knit_regs *out);

/* The address of the first instruction of a function of this process,
 * given a pointer to it: the pointer itself, except where the ABI's
 * function pointers point at a descriptor (ppc64's ELFv1, whose pointers
 * lead to .opd). Reads memory only where the ABI has descriptors, and then
 * only the descriptor the pointer names: async-signal-safe. */
uint64_t knit_native_code_of(void (*fn)(void));

/* The caller's registers as getcontext would give them, without its system
 * call (getcontext saves the signal mask, an rt_sigprocmask every time): pc
 * is the return address of this call, sp the caller's stack pointer once
 * the call has returned, fp its frame-pointer register and lr its link
 * register (the return address again on aarch64 and ppc64le, which a call
 * sets; 0 on x86-64). A few instructions of assembly, so that no compiler
 * frame comes between: no system call, no memory but *out touched, so
 * async-signal-safe. */
void knit_native_regs_here(knit_regs *out);

/* Each <isa>_context.c defines knit_native_regs_here in top-level
 * assembly, its body between these two, storing pc, sp, fp and lr at the
 * offsets checked here. */
_Static_assert(offsetof(knit_regs, pc) == 0 && offsetof(knit_regs, sp) == 8 &&
                   offsetof(knit_regs, fp) == 16 && offsetof(knit_regs, lr) == 24,
               "knit_native_regs_here stores knit_regs at offsets 0, 8, 16 and 24");
#define KNIT_REGS_HERE_BEGIN                                                                       \
  ".pushsection .text\n"                                                                           \
  ".globl knit_native_regs_here\n"                                                                 \
  ".hidden knit_native_regs_here\n"                                                                \
  ".type knit_native_regs_here, %function\n"                                                       \
  ".p2align 4\n"                                                                                   \
  "knit_native_regs_here:\n"                                                                       \
  ".cfi_startproc\n"
#define KNIT_REGS_HERE_END                                                                         \
  ".cfi_endproc\n"                                                                                 \
  ".size knit_native_regs_here, .-knit_native_regs_here\n"                                         \
  ".popsection\n"

/* The ops for an ELF e_machine value, or NULL. */
const knit_isa_ops *knit_isa_for_machine(uint16_t elf_machine);

#endif /* KNIT_UNWIND_ISA_H */
