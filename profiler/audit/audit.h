/* knit audit: the recipes of the binary analysis against the compiler's CFI.
 *
 * For every function of an ELF file (bounds from unwind/bounds.h), at every
 * instruction boundary, the recipe the ISA's analyzer builds from the code
 * bytes in the file is compared with the DWARF CFI (.eh_frame, else
 * .debug_frame) at that address: the CFA rule (register and offset) and the
 * location of the return address. The frame-pointer rule is compared too,
 * but counted apart, since CFI keeps describing a restored frame pointer's
 * slot where recipes say "unchanged" and both are right.
 *
 * Works on files of every ISA knit knows (x86-64, aarch64, ppc64le, ppc64) on any
 * host: nothing is executed or mapped, only read.
 */
#ifndef KNIT_AUDIT_AUDIT_H
#define KNIT_AUDIT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind/bounds.h"
#include "unwind/isa.h"

typedef struct knit_audit_options {
  bool verbose; /* print each disagreement to the stream given */
  size_t limit; /* at most this many disagreement lines per file; 0: all */
} knit_audit_options;

/* Why an instruction was not compared. */
typedef enum knit_audit_skip {
  KNIT_AUDIT_SKIP_NO_CFI = 0,    /* no FDE covers the address */
  KNIT_AUDIT_SKIP_CFI_FORM,      /* CFI uses a rule recipes cannot express
                                     (a CFA expression or a CFA register
                                     other than sp and fp, as in longjmp; the
                                     return address in a register other than
                                     lr, x86-64's vfork, unless it is ppc64's
                                     copy of an intact lr) or
                                     the recipe one CFI lacks (a back chain) */
  KNIT_AUDIT_SKIP_JUMP_ENTERED,  /* the function's CFI at its start is not
                                     the entry rule: a hot/cold split part or
                                     _start, entered by a jump; the analyzer
                                     assumes a call */
  KNIT_AUDIT_SKIP_PADDING,       /* nop/trap after an unconditional end of a
                                     path (alignment, never executed), or
                                     bytes that do not decode */
  KNIT_AUDIT_SKIP_OUTERMOST,     /* CFI says the return address is
                                     undefined: the outermost frame (_start,
                                     thread entry), where unwinding ends */
  KNIT_AUDIT_SKIP_CFI_NOT_EXACT, /* the CFI is provably not this moment's
                                     rule (clang's synchronous tables, exact
                                     only at calls: prologues and epilogues)
                                     and the recipe is the state the audit's
                                     own model follows (audit_model.h). Not
                                     comparable rather than agreement: the
                                     only witness is that model, not the
                                     compiler's; not a disagreement: the
                                     recipe is right. A recipe that differs
                                     from the model stays a disagreement. */
  KNIT_AUDIT_SKIP_COUNT
} knit_audit_skip;

/* What a disagreement looks like; the first that fits is taken, and the
 * rest of a run of disagreements under the same recipe keeps the kind of
 * its first instruction. */
typedef enum knit_audit_category {
  KNIT_AUDIT_CAT_UNCERTAIN = 0,  /* the analyzer flagged its recipe a guess */
  KNIT_AUDIT_CAT_CFI_STATIC,     /* the CFI keeps the entry rule over the
                                    whole function while the code pushes:
                                    hand-written assembly whose CFI does not
                                    describe its frame */
  KNIT_AUDIT_CAT_UNDECODABLE,    /* the function has bytes before this
                                    point that Capstone cannot decode (AVX-512
                                    with Capstone 4): the analyzer's model
                                    lost the instructions there */
  KNIT_AUDIT_CAT_AFTER_PATH_END, /* the block follows a ret or jump or a
                                    call to a noreturn function: its state
                                    comes from a branch the analyzer missed */
  KNIT_AUDIT_CAT_CFA_REGISTER,   /* CFA from the other register (sp vs fp) */
  KNIT_AUDIT_CAT_CFA_OFFSET,     /* same register, another offset */
  KNIT_AUDIT_CAT_RETURN_ADDRESS, /* the CFA agrees, the return address not */
  KNIT_AUDIT_CAT_COUNT
} knit_audit_category;

typedef struct knit_audit_result {
  char path[512];
  const knit_isa_ops *isa; /* NULL when the machine is not supported */
  uint16_t elf_machine;
  bool has_cfi;                 /* .eh_frame or .debug_frame found */
  bool has_analyzer;            /* isa->analyze != NULL; else nothing compared */
  size_t functions;             /* functions with code in the file */
  size_t functions_undecodable; /* the analyzer could not decode them */
  size_t instructions;          /* compared: agree + disagree */
  size_t agree;
  size_t disagree;
  size_t not_comparable; /* sum of skipped[] */
  size_t skipped[KNIT_AUDIT_SKIP_COUNT];
  size_t category[KNIT_AUDIT_CAT_COUNT]; /* disagreements by kind */
  size_t fp_disagree;                    /* CFA and RA agree, the fp rule does not */
  size_t fp_stale;                       /* CFI still names a restored fp's slot */
  /* Agreements where the two sides name different places that both hold
   * the return address (ppc64; see audit_lr.h): */
  size_t ra_copied;   /* CFI: the GPR mflr copied LR to, LR intact */
  size_t ra_restored; /* CFI: the save slot, after mtlr restored LR */
  size_t ra_saved;    /* CFI: the slot LR's copy was stored in; LR
                                 intact since */
  /* Agreements where the CFA comes from the other register (sp against
   * fp) with the same value, as the analyzer knows fp - sp there (clang
   * keeps the CFA on x29/r31 where gcc and the recipes keep it on sp): */
  size_t cfa_other_register;
  size_t printed;  /* disagreement lines written (for limit) */
  char error[256]; /* why the file could not be read */
} knit_audit_result;

/* Audits every function of the ELF file at path. Returns 0 when the file
 * was read (whatever the agreement; res->has_analyzer false when the ISA
 * has no analyzer yet, and then nothing is compared), -1 with a message in
 * res->error when it is not a readable ELF file of a supported ISA.
 * Disagreements go to `disagreements`, one per line, when opt->verbose and
 * the stream is not NULL. */
int knit_audit_file(const char *path, const knit_audit_options *opt, knit_audit_result *res,
                    FILE *disagreements);

/* Agreement in percent of the instructions compared (100 when none were). */
double knit_audit_agreement(const knit_audit_result *res);

/* Short names of the categories and skip reasons, for tables. */
const char *knit_audit_category_name(knit_audit_category c);
const char *knit_audit_skip_name(knit_audit_skip s);

/* One opened file, for auditing chosen functions (the analyzer's tests). */
typedef struct knit_audit_target knit_audit_target;

/* Opens path: its ELF, CFI, function bounds and a decoder. Returns NULL
 * with a message in err when the file cannot be read; the ISA may lack an
 * analyzer (see knit_audit_target_isa). */
knit_audit_target *knit_audit_open(const char *path, char *err, size_t errlen);

const knit_isa_ops *knit_audit_target_isa(const knit_audit_target *t);
const knit_func_table *knit_audit_target_functions(const knit_audit_target *t);

/* Audits the function [start, end) (ELF virtual addresses), adding to res.
 * Returns false when the ISA has no analyzer or the code is not in the
 * file or cannot be decoded. */
bool knit_audit_function(knit_audit_target *t, uint64_t start, uint64_t end,
                         const knit_audit_options *opt, knit_audit_result *res,
                         FILE *disagreements);

void knit_audit_close(knit_audit_target *t);

#endif /* KNIT_AUDIT_AUDIT_H */
