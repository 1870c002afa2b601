/* Following LR through a ppc64 function's instructions, by mnemonic and
 * operand text (the audit's walk decodes without detail), to accept the
 * two true descriptions of the return address described in audit_lr.h. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_lr.h"

/* ppc64 ELFv2: r0 and r3..r12 do not survive a call. */
#define PPC_VOLATILE_GPRS (UINT32_C(1) | (((UINT32_C(1) << 10) - 1) << 3))

void knit_audit_lr_start(knit_audit_lr *s, const knit_isa_ops *isa) {
  memset(s, 0, sizeof *s);
  s->tracked = strcmp(isa->name, "ppc64le") == 0;
  s->lr_is_ra = true;
  s->copy_reg = -1;
}

/* The GPR number of operand text "rN..." at p, or -1. */
int knit_audit_ppc_gpr(const char *p) {
  if (p[0] != 'r' || p[1] < '0' || p[1] > '9')
    return -1;
  char *end;
  long n = strtol(p + 1, &end, 10);
  if (n > 31 || (*end != '\0' && *end != ','))
    return -1;
  return (int)n;
}

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A branch that writes LR: bl, bla, bcl, bctrl, blrl, beql, bdnzl... The
 * link bit shows as a final 'l' (before an 'a' for absolute targets), after
 * the prediction hint is set aside. */
bool knit_audit_ppc_links(const char *mn) {
  if (mn[0] != 'b')
    return false;
  size_t n = strlen(mn);
  while (n > 1 && (mn[n - 1] == '+' || mn[n - 1] == '-'))
    n--;
  if (n > 2 && mn[n - 1] == 'a' && mn[n - 2] == 'l')
    return true;
  return n > 1 && mn[n - 1] == 'l';
}

/* Whether an instruction whose first operand is a GPR writes it: stores,
 * compares, traps, branches and moves to special registers only read. */
bool knit_audit_ppc_writes_first(const char *mn) {
  static const char *const readers[] = {"st", "cmp", "tw", "td", "b", "mt",
                                        "dcb", "icb", NULL};
  for (size_t i = 0; readers[i]; i++)
    if (starts(mn, readers[i]))
      return false;
  return true;
}

static void forget(knit_audit_lr *s) {
  s->lr_is_ra = false;
  s->restored = false;
  s->copy_reg = -1;
  s->loaded = 0;
  s->slot_saved = false;
}

/* Stores through r1 ("std r0, 0x10(r1)"): keeps or ends the record of the
 * slot holding LR's copy. Any update form moves r1, which names the slot;
 * another store to the slot's word overwrites it. Stores through other
 * registers are not followed (code does not address its own LR save slot
 * that way). */
static void track_slot(knit_audit_lr *s, const char *mn, const char *ops, int reg) {
  if (!starts(mn, "st"))
    return;
  const char *comma = strchr(ops, ',');
  const char *paren = comma ? strchr(comma, '(') : NULL;
  if (!paren || strcmp(paren, "(r1)") != 0)
    return;
  size_t n = strlen(mn);
  if (mn[n - 1] == 'u' || (n > 2 && mn[n - 2] == 'u' && mn[n - 1] == 'x')) {
    s->slot_saved = false; /* stdu r1, -N(r1): r1 moves */
    return;
  }
  if (mn[n - 1] == 'x')
    return; /* indexed through r1: offset unknown, not a frame store */
  long long off = strtoll(comma + 1, NULL, 0);
  if (strcmp(mn, "std") == 0 && reg >= 0 && reg == s->copy_reg && s->lr_is_ra) {
    s->slot_saved = true;
    s->slot_off = off;
  } else if (s->slot_saved && off > s->slot_off - 8 && off < s->slot_off + 8) {
    s->slot_saved = false; /* another value over the saved word */
  }
}

void knit_audit_lr_step(knit_audit_lr *s, const cs_insn *insn, bool path_end) {
  if (!s->tracked)
    return;
  if (path_end) {
    /* The next block is entered by a branch from a state not seen here. */
    forget(s);
    return;
  }
  const char *mn = insn->mnemonic;
  int reg = knit_audit_ppc_gpr(insn->op_str);
  if (knit_audit_ppc_links(mn)) {
    s->lr_is_ra = false;
    s->restored = false;
    s->slot_saved = false;
    if (s->copy_reg >= 0 && (PPC_VOLATILE_GPRS >> s->copy_reg & 1))
      s->copy_reg = -1;
    s->loaded &= ~PPC_VOLATILE_GPRS;
    return;
  }
  if (strcmp(mn, "mtlr") == 0) {
    /* LR gets the return address back from its copy, or from a register
     * loaded from memory: the save slot the CFI still names. */
    bool from_copy = reg >= 0 && reg == s->copy_reg;
    bool from_load = reg >= 0 && (s->loaded >> reg & 1);
    s->lr_is_ra = from_copy || from_load;
    s->restored = !from_copy && from_load;
    s->slot_saved = false; /* the recipe's LR is the restored one now */
    return;
  }
  track_slot(s, mn, insn->op_str, reg);
  if (reg == 1 && knit_audit_ppc_writes_first(mn))
    s->slot_saved = false; /* r1 moves: the offset no longer names it */
  if (reg < 0 || !knit_audit_ppc_writes_first(mn))
    return;
  if (reg == s->copy_reg)
    s->copy_reg = -1;
  if (strcmp(mn, "mflr") == 0 && s->lr_is_ra)
    s->copy_reg = reg;
  if (strcmp(mn, "ld") == 0 || strcmp(mn, "ldu") == 0)
    s->loaded |= UINT32_C(1) << reg;
  else
    s->loaded &= ~(UINT32_C(1) << reg);
}

knit_lr_equiv knit_audit_lr_equivalent(const knit_audit_lr *s,
                                       const knit_frame_rule *recipe,
                                       const knit_frame_rule *cfi,
                                       const knit_isa_ops *isa) {
  if (!s->tracked || !s->lr_is_ra || recipe->ra_kind != KNIT_AUDIT_RA_IN_REG ||
      recipe->ra_reg != isa->dwarf_lr)
    return KNIT_LR_EQUIV_NONE;
  if (cfi->ra_kind == KNIT_AUDIT_RA_IN_REG && cfi->ra_reg != isa->dwarf_lr &&
      cfi->ra_reg == s->copy_reg)
    return KNIT_LR_EQUIV_COPIED;
  if (cfi->ra_kind == KNIT_AUDIT_RA_AT_CFA && s->restored)
    return KNIT_LR_EQUIV_RESTORED;
  if (cfi->ra_kind == KNIT_AUDIT_RA_AT_CFA && s->slot_saved &&
      cfi->cfa_kind == KNIT_AUDIT_CFA_REG && cfi->cfa_reg == isa->dwarf_sp &&
      cfi->cfa_offset + cfi->ra_offset == s->slot_off)
    return KNIT_LR_EQUIV_SAVED;
  return KNIT_LR_EQUIV_NONE;
}
