/* The audit's frame model: see audit_model.h. It reads Capstone's text
 * (the audit's walk decodes without detail) and knows only the handful of
 * instructions that build and tear down frames; every other write of sp
 * ends what it knows, so that it never vouches for a state it did not
 * follow. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_lr.h"
#include "audit/audit_model.h"

void knit_audit_model_start(knit_audit_model *m, const knit_isa_ops *isa) {
  memset(m, 0, sizeof *m);
  m->ppc = strcmp(isa->name, "ppc64le") == 0;
  m->known = m->ppc || strcmp(isa->name, "aarch64") == 0;
  m->ra_in_lr = true;
  m->ra_copy = -1;
}

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The return address must be somewhere the model can name, and a slot
 * below sp may be overwritten by anything (signal frames included). */
static void settle(knit_audit_model *m) {
  if (m->ra_in_slot && m->ra_slot < -m->sp_depth)
    m->ra_in_slot = false;
  if (!m->ra_in_lr && !m->ra_in_slot && m->ra_copy < 0)
    m->known = false;
}

/* ---- aarch64 ---- */

static bool a64_is(const char *tok, const char *x, const char *w) {
  return strcmp(tok, x) == 0 || strcmp(tok, w) == 0;
}

/* Copies the comma-separated operand at *p into tok and moves past it. */
static void a64_token(const char **p, char *tok, size_t len) {
  while (**p == ' ')
    (*p)++;
  size_t n = 0;
  while (**p && **p != ',' && n + 1 < len)
    tok[n++] = *(*p)++;
  tok[n] = '\0';
  if (**p == ',')
    (*p)++;
}

/* "#imm" or "#imm, lsl #n" at p; false for anything else (a register). */
static bool a64_imm(const char *p, int64_t *v) {
  while (*p == ' ')
    p++;
  if (*p != '#')
    return false;
  char *end;
  *v = strtoll(p + 1, &end, 0);
  while (*end == ' ')
    end++;
  if (*end == '\0')
    return true;
  if (strncmp(end, ", lsl #", 7) != 0)
    return false;
  *v = (int64_t)((uint64_t)*v << strtol(end + 7, NULL, 0));
  return true;
}

/* Loads and stores: registers before '[', base and offset inside,
 * pre-index "]!", post-index "], #n". Only x29, x30 and the base's
 * write-back matter here. */
static void a64_mem(knit_audit_model *m, const char *mn, const char *ops,
                    const char *bracket) {
  char base[16];
  const char *p = bracket + 1;
  a64_token(&p, base, sizeof base);
  char *close = strchr(base, ']');
  if (close)
    *close = '\0';
  int64_t disp = 0, post = 0;
  if (!close && *p == ' ' && p[1] == '#')
    disp = strtoll(p + 2, NULL, 0);
  const char *rb = strchr(bracket, ']');
  bool pre = rb && rb[1] == '!';
  bool has_post = rb && strncmp(rb + 1, ", #", 3) == 0;
  if (has_post)
    post = strtoll(rb + 4, NULL, 0);
  bool on_sp = a64_is(base, "sp", "wsp");
  bool on_fp = strcmp(base, "x29") == 0 && m->fp_known;
  bool placed = on_sp || on_fp;
  int64_t addr = (on_sp ? -m->sp_depth : -m->fp_depth) + (has_post ? 0 : disp);
  bool store = starts(mn, "st");
  const char *q = ops;
  for (int i = 0; q < bracket; i++) {
    char reg[16];
    a64_token(&q, reg, sizeof reg);
    if (q > bracket || reg[0] == '[')
      break;
    int64_t slot = addr + 8 * i; /* x29/x30 pairs are 8-byte registers */
    if (store) {
      if (strcmp(reg, "x30") == 0 && placed && m->ra_in_lr && !m->ra_in_slot) {
        m->ra_in_slot = true;
        m->ra_slot = slot;
      }
    } else if (a64_is(reg, "x29", "w29")) {
      m->fp_known = false; /* the caller's value, not this frame's */
    } else if (a64_is(reg, "x30", "w30")) {
      m->ra_in_lr = placed && m->ra_in_slot && slot == m->ra_slot;
    }
  }
  if (pre || has_post) {
    int64_t delta = has_post ? post : disp;
    if (on_sp)
      m->sp_depth -= delta;
    else if (strcmp(base, "x29") == 0)
      m->fp_known = false;
  }
}

/* Instructions whose first operand is only read. */
static bool a64_writes_first(const char *mn) {
  static const char *const readers[] = {
      "b", "bl", "blr", "br", "cbz", "cbnz", "tbz", "tbnz", "ret", "cmp",
      "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "prfm", NULL};
  if (starts(mn, "st") || starts(mn, "b."))
    return false;
  for (size_t i = 0; readers[i]; i++)
    if (strcmp(mn, readers[i]) == 0)
      return false;
  return true;
}

static void a64_step(knit_audit_model *m, const char *mn, const char *ops) {
  const char *bracket = strchr(ops, '[');
  if (bracket && (starts(mn, "st") || starts(mn, "ld"))) {
    a64_mem(m, mn, ops, bracket);
    return;
  }
  if (!a64_writes_first(mn))
    return;
  const char *p = ops;
  char dst[16], src[16];
  a64_token(&p, dst, sizeof dst);
  a64_token(&p, src, sizeof src);
  int64_t imm = 0;
  int sign = strcmp(mn, "add") == 0 ? 1 : strcmp(mn, "sub") == 0 ? -1 : 0;
  bool mov = strcmp(mn, "mov") == 0 && *p == '\0';
  bool arith = sign != 0 && a64_imm(p, &imm);
  if (a64_is(dst, "sp", "wsp")) {
    if ((arith || mov) && strcmp(src, "sp") == 0)
      m->sp_depth -= sign * imm;
    else if ((arith || mov) && strcmp(src, "x29") == 0 && m->fp_known)
      m->sp_depth = m->fp_depth - sign * imm;
    else
      m->known = false;
  } else if (a64_is(dst, "x29", "w29")) {
    m->fp_known = (arith || mov) && strcmp(dst, "x29") == 0 && strcmp(src, "sp") == 0;
    m->fp_depth = m->sp_depth - sign * imm;
  } else if (a64_is(dst, "x30", "w30")) {
    m->ra_in_lr = false;
  }
}

/* ---- ppc64le ---- */

/* The displacement and base GPR of "d(rN)" in the second operand. */
static bool ppc_mem(const char *ops, int64_t *disp, int *base) {
  const char *p = strchr(ops, ',');
  if (!p)
    return false;
  char *end;
  *disp = strtoll(p + 1, &end, 0);
  if (end[0] != '(' || end[1] != 'r')
    return false;
  char *close;
  long r = strtol(end + 2, &close, 10);
  if (close == end + 2 || *close != ')' || r > 31)
    return false;
  *base = (int)r;
  return true;
}

/* The second and third operands of "rD, rA[, imm]". */
static int ppc_second(const char *ops, int64_t *imm, bool *has_imm) {
  const char *p = strchr(ops, ',');
  *has_imm = false;
  if (!p)
    return -1;
  while (*++p == ' ')
    ;
  int r = knit_audit_ppc_gpr(p);
  const char *q = strchr(p, ',');
  if (q) {
    char *end;
    *imm = strtoll(q + 1, &end, 0);
    *has_imm = *end == '\0';
  }
  return r;
}

static void ppc_step(knit_audit_model *m, const char *mn, const char *ops) {
  int reg = knit_audit_ppc_gpr(ops);
  if (knit_audit_ppc_links(mn)) { /* bcl 20,31 and conditional calls */
    m->known = false;
    return;
  }
  if (strcmp(mn, "mflr") == 0) {
    m->ra_copy = m->ra_in_lr ? reg : m->ra_copy == reg ? -1 : m->ra_copy;
    return;
  }
  if (strcmp(mn, "mtlr") == 0) {
    m->ra_in_lr = reg >= 0 && reg == m->ra_copy;
    return;
  }
  int64_t disp, imm = 0;
  int base;
  bool mem = ppc_mem(ops, &disp, &base);
  bool placed = mem && (base == 1 || (base == 31 && m->fp_known));
  int64_t addr = placed ? (base == 1 ? -m->sp_depth : -m->fp_depth) + disp : 0;
  if (strcmp(mn, "stdu") == 0 && reg == 1 && mem && base == 1) {
    m->sp_depth -= disp;
    return;
  }
  if (strcmp(mn, "std") == 0) {
    if (placed && reg >= 0 && reg == m->ra_copy && !m->ra_in_slot) {
      m->ra_in_slot = true;
      m->ra_slot = addr;
    }
    return;
  }
  if (strcmp(mn, "ld") == 0 && mem) {
    if (reg == 1)
      m->known = false; /* the back chain: not followed */
    else if (reg == 31)
      m->fp_known = false;
    if (reg == m->ra_copy)
      m->ra_copy = -1;
    if (placed && m->ra_in_slot && addr == m->ra_slot && reg != 1 && reg != 31)
      m->ra_copy = reg;
    return;
  }
  bool has_imm;
  int src = ppc_second(ops, &imm, &has_imm);
  bool simple = (strcmp(mn, "mr") == 0 && !has_imm) ||
                (strcmp(mn, "addi") == 0 && has_imm);
  if (reg == 1 && simple && src == 1) {
    m->sp_depth -= imm;
  } else if (reg == 1 && simple && src == 31 && m->fp_known) {
    m->sp_depth = m->fp_depth - imm;
  } else if (reg == 31 && simple && src == 1) {
    m->fp_known = true;
    m->fp_depth = m->sp_depth - imm;
  } else if (reg >= 0 && knit_audit_ppc_writes_first(mn)) {
    if (reg == 1)
      m->known = false;
    else if (reg == 31)
      m->fp_known = false;
    if (reg == m->ra_copy)
      m->ra_copy = -1;
  }
}

void knit_audit_model_step(knit_audit_model *m, const char *mnemonic,
                           const char *op_str, unsigned flow) {
  if (!m->known)
    return;
  /* Whatever follows a path end is entered from a state this walk did not
   * see; so is what follows a call that does not return (gcc's CFI then
   * describes the branch that leads there) and alignment padding, which
   * marks a branch target. The model vouches only for fall-through that
   * happens, and learns the state again at the next agreement. */
  if (flow & (KNIT_FLOW_PATH_END | KNIT_FLOW_CALL | KNIT_FLOW_PADDING)) {
    m->known = false;
    return;
  }
  if (m->ppc)
    ppc_step(m, mnemonic, op_str);
  else
    a64_step(m, mnemonic, op_str);
  settle(m);
}

void knit_audit_model_at_return(knit_audit_model *m, const knit_isa_ops *isa,
                                const char *mnemonic, const char *op_str) {
  bool plain;
  if (strcmp(isa->name, "ppc64le") == 0)
    plain = strcmp(mnemonic, "blr") == 0;
  else if (strcmp(isa->name, "aarch64") == 0)
    plain = strcmp(mnemonic, "ret") == 0 &&
            (!op_str || op_str[0] == '\0' || strcmp(op_str, "x30") == 0);
  else
    plain = false; /* no model for the ISA */
  if (plain)
    knit_audit_model_start(m, isa);
}

bool knit_audit_model_holds(const knit_audit_model *m, const knit_frame_rule *r,
                            const knit_isa_ops *isa) {
  if (!m->known || r->cfa_kind != KNIT_AUDIT_CFA_REG)
    return false;
  bool cfa = (r->cfa_reg == isa->dwarf_sp && r->cfa_offset == m->sp_depth) ||
             (r->cfa_reg == isa->dwarf_fp && m->fp_known &&
              r->cfa_offset == m->fp_depth);
  bool ra = false;
  if (r->ra_kind == KNIT_AUDIT_RA_AT_CFA)
    ra = m->ra_in_slot && r->ra_offset == m->ra_slot;
  else if (r->ra_kind == KNIT_AUDIT_RA_IN_REG)
    ra = (r->ra_reg == isa->dwarf_lr && m->ra_in_lr) ||
         (m->ra_copy >= 0 && r->ra_reg == m->ra_copy);
  return cfa && ra;
}

void knit_audit_model_agreed(knit_audit_model *m, const knit_frame_rule *r,
                             const knit_isa_ops *isa) {
  if (knit_audit_model_holds(m, r, isa))
    return;
  bool ppc = m->ppc;
  memset(m, 0, sizeof *m);
  m->ppc = ppc;
  m->ra_copy = -1;
  /* No model for the ISA (x86-64): an agreement teaches it nothing. */
  if (!ppc && strcmp(isa->name, "aarch64") != 0)
    return;
  if (r->cfa_kind != KNIT_AUDIT_CFA_REG)
    return;
  if (r->cfa_reg == isa->dwarf_sp) {
    m->sp_depth = r->cfa_offset;
    m->fp_known = r->fp_known;
    m->fp_depth = r->cfa_offset - r->fp_sp_delta;
  } else if (r->cfa_reg == isa->dwarf_fp && r->fp_known) {
    m->fp_known = true;
    m->fp_depth = r->cfa_offset;
    m->sp_depth = r->cfa_offset + r->fp_sp_delta;
  } else {
    return;
  }
  if (r->ra_kind == KNIT_AUDIT_RA_AT_CFA) {
    m->ra_in_slot = true;
    m->ra_slot = r->ra_offset;
  } else if (r->ra_kind == KNIT_AUDIT_RA_IN_REG && r->ra_reg == isa->dwarf_lr) {
    m->ra_in_lr = true;
  } else {
    return;
  }
  m->known = true;
}
