/* The two sides of an audit comparison, in one vocabulary: the CFI's rule
 * at an address (read with libdw) and a recipe (translated through the ISA's
 * DWARF register numbers), compared and printed. Internal to profiler/audit.
 */
#ifndef KNIT_AUDIT_RULE_H
#define KNIT_AUDIT_RULE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit/audit.h"
#include "unwind/isa.h"
#include "unwind/recipe.h"

/* How the CFA is computed. */
typedef enum knit_cfa_kind {
  KNIT_AUDIT_CFA_REG = 0,   /* register + offset */
  KNIT_AUDIT_CFA_DEREF = 1, /* *(register + deref offset) + offset (a back
                               chain; a saved DRAP register) */
  KNIT_AUDIT_CFA_OTHER = 2, /* an expression recipes cannot express */
} knit_cfa_kind;

/* Where the return address is. */
typedef enum knit_ra_kind {
  KNIT_AUDIT_RA_AT_CFA = 0,    /* in memory at CFA + offset */
  KNIT_AUDIT_RA_IN_REG = 1,    /* in a register (same value, or register(N)) */
  KNIT_AUDIT_RA_UNDEFINED = 2, /* not recoverable: the outermost frame */
  KNIT_AUDIT_RA_OTHER = 3,     /* an expression recipes cannot express */
} knit_ra_kind;

/* Where the caller's frame pointer is (compared apart from CFA and RA). */
typedef enum knit_fp_kind {
  KNIT_AUDIT_FP_SAME = 0,
  KNIT_AUDIT_FP_AT_CFA = 1,
  KNIT_AUDIT_FP_OTHER = 2,
  KNIT_AUDIT_FP_AT_FP = 3, /* in memory at the frame's own fp + offset */
} knit_fp_kind;

typedef struct knit_frame_rule {
  uint8_t cfa_kind; /* knit_cfa_kind */
  uint8_t ra_kind;  /* knit_ra_kind */
  uint8_t fp_kind;  /* knit_fp_kind */
  int cfa_reg;      /* DWARF register number */
  int ra_reg;       /* for RA_IN_REG */
  int64_t cfa_offset;
  int64_t cfa_deref_offset; /* for CFA_DEREF: added before the load */
  int64_t ra_offset;        /* for RA_AT_CFA */
  int64_t fp_offset;        /* for FP_AT_CFA, FP_AT_FP */
  /* A recipe's knowledge that fp == sp + fp_sp_delta (never set for CFI,
   * which does not say): makes a CFA from either register comparable. */
  bool fp_known;
  int64_t fp_sp_delta;
} knit_frame_rule;

/* The CFI of one file: .eh_frame, and .debug_frame when it is there (for
 * code that .eh_frame does not cover). */
typedef struct knit_audit_cfi {
  Dwarf_CFI *eh_frame;
  Dwarf *dwarf; /* owns debug_frame */
  Dwarf_CFI *debug_frame;
} knit_audit_cfi;

/* Opens the CFI of elf; either part may stay NULL. Never fails. */
void knit_audit_cfi_open(knit_audit_cfi *cfi, Elf *elf);
void knit_audit_cfi_close(knit_audit_cfi *cfi);

/* True when any CFI was found. */
bool knit_audit_cfi_present(const knit_audit_cfi *cfi);

/* Reads the CFI's rule at pc; false when no FDE covers pc. When row_end
 * is not NULL it receives the end of the address range the rule holds for
 * (the next row of the CFI table). */
bool knit_audit_cfi_at(const knit_audit_cfi *cfi, const knit_isa_ops *isa, uint64_t pc,
                       knit_frame_rule *out, uint64_t *row_end);

/* Translates a recipe into the CFI's vocabulary. */
void knit_audit_rule_from_recipe(const knit_recipe *r, const knit_isa_ops *isa,
                                 knit_frame_rule *out);

/* Outcome of comparing the CFA and return-address rules. */
typedef enum knit_rule_verdict {
  KNIT_RULE_AGREE = 0,
  KNIT_RULE_DISAGREE = 1,
  KNIT_RULE_NOT_COMPARABLE = 2, /* one side uses a form the other lacks */
} knit_rule_verdict;

/* A CFI whose return address is undefined (the outermost frame) is not
 * comparable, since unwinding ends there whatever the CFA; nor is a CFI
 * that names registers recipes cannot (the CFA from a register other than
 * sp and fp, the return address in one other than lr). */
knit_rule_verdict knit_audit_compare(const knit_frame_rule *recipe, const knit_frame_rule *cfi,
                                     const knit_isa_ops *isa);

/* The recipe's CFA rewritten on the CFI's register, when the two differ
 * (sp against fp) and the recipe knows fp - sp: CFA = sp + o is
 * fp + (o - delta), CFA = fp + o is sp + (o + delta). Returns false, and
 * leaves *out alone, when no such rewrite applies. */
bool knit_audit_cfa_on_cfi_register(const knit_frame_rule *recipe, const knit_frame_rule *cfi,
                                    const knit_isa_ops *isa, knit_frame_rule *out);

/* True when the frame-pointer rules agree; a CFI that still names the
 * save slot after the restore (gcc leaves it there) counts as agreeing
 * with a recipe that says "same" only when stale_ok. */
bool knit_audit_fp_agrees(const knit_frame_rule *recipe, const knit_frame_rule *cfi, bool *stale);

/* Formats a rule as "cfa=sp+16 ra=[cfa-8] fp=[cfa-16]", naming sp, fp and
 * lr by the ISA and other registers rN. */
void knit_audit_rule_format(const knit_frame_rule *r, const knit_isa_ops *isa, char *buf,
                            size_t len);

#endif /* KNIT_AUDIT_RULE_H */
