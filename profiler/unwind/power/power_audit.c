/* The POWER rows of the audit's machine table (audit/audit_isa.h, each
 * ISA's row made with KNIT_POWER_AUDIT_ROW): control flow by mnemonic, the
 * audit's frame model and LR's whereabouts, the same under ELFv2 and ELFv1, from
 * Capstone's text (the audit's walk decodes without detail). Compiled into
 * the knit command only. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"
#include "audit/audit_lr.h"
#include "audit/audit_model.h"
#include "unwind/power/power_audit.h"

/* ---- control flow ---- */

/* "blr" is the return; "b" and "bctr" are unconditional jumps. Traps count
 * both as path ends and as padding. */
const char *const knit_power_audit_ends[] = {"blr", "b", "ba", "bctr", "trap", NULL};
const char *const knit_power_audit_calls[] = {"bl", "bla", "bctrl", "blrl", NULL};
const char *const knit_power_audit_padding[] = {"nop", "trap", NULL};

/* gcc aligns ppc64 code with "ori r2,r2,0" as well as with nop (binutils
 * pads with it on POWER8 and later): a no-op by its operands, not by its
 * mnemonic. And a load or store from the literal address base 0 ("d(0)":
 * the first 32 KiB, never mapped) is data that decodes: the flag bytes of
 * gcc's traceback table after a function, on big-endian ppc64 (the
 * analyzer's is_absolute_access). */
bool knit_power_audit_nop_form(const char *mnemonic, const char *op_str)
{
  if (!op_str)
    return false;
  size_t n = strlen(op_str);
  return (strcmp(mnemonic, "ori") == 0 && strcmp(op_str, "r2, r2, 0") == 0) ||
         (n > 3 && strcmp(op_str + n - 3, "(0)") == 0);
}

/* A branch that is neither a path end nor a call (nor a link-setting
 * branch, bcl and the like, which reads the pc): beq, bdnz, bnelr,
 * bnectr... Every POWER branch mnemonic begins with b (but for SPE's
 * brinc, which is no branch). */
bool knit_power_audit_conditional(const char *mnemonic)
{
  if (mnemonic[0] != 'b' || strncmp(mnemonic, "brinc", 5) == 0)
    return false;
  for (const char *const *l = knit_power_audit_ends; *l; l++)
    if (strcmp(*l, mnemonic) == 0)
      return false;
  for (const char *const *l = knit_power_audit_calls; *l; l++)
    if (strcmp(*l, mnemonic) == 0)
      return false;
  size_t n = strlen(mnemonic);
  while (n > 0 && (mnemonic[n - 1] == '+' || mnemonic[n - 1] == '-'))
    n--; /* prediction hints */
  /* A trailing l (or la) sets LR, but for the condition "not less" of
   * bnl, which is bge by another name. */
  bool not_less = n == 3 && strncmp(mnemonic, "bnl", 3) == 0;
  bool links =
      !not_less && n > 1 &&
      (mnemonic[n - 1] == 'l' || (n > 2 && mnemonic[n - 2] == 'l' && mnemonic[n - 1] == 'a'));
  return !links;
}

/* Direct branches print their target last, "0x3baa8" (b, bl, beq cr7,
 * bdnz); every branch mnemonic begins with b. */
bool knit_power_audit_branch_target(const char *mnemonic, const char *op_str, uint64_t *target)
{
  return mnemonic[0] == 'b' && knit_audit_hex_operand(op_str, target);
}

/* ---- instruction text ---- */

/* ppc64 ELFv2: r0 and r3..r12 do not survive a call. */
#define PPC_VOLATILE_GPRS (UINT32_C(1) | (((UINT32_C(1) << 10) - 1) << 3))

/* The GPR number of operand text "rN..." at p, or -1. */
static int ppc_gpr(const char *p)
{
  if (p[0] != 'r' || p[1] < '0' || p[1] > '9')
    return -1;
  char *end;
  long n = strtol(p + 1, &end, 10);
  if (n > 31 || (*end != '\0' && *end != ','))
    return -1;
  return (int)n;
}

static bool starts(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A branch that writes LR: bl, bla, bcl, bctrl, blrl, beql, bdnzl... The
 * link bit shows as a final 'l' (before an 'a' for absolute targets), after
 * the prediction hint is set aside. */
static bool ppc_links(const char *mn)
{
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
static bool ppc_writes_first(const char *mn)
{
  static const char *const readers[] = {"st", "cmp", "tw", "td", "b", "mt", "dcb", "icb", NULL};
  for (size_t i = 0; readers[i]; i++)
    if (starts(mn, readers[i]))
      return false;
  return true;
}

/* ---- LR's whereabouts (audit/audit_lr.h) ----
 *
 * gcc copies LR to a GPR (mflr r0) before saving it (std r0,16(r1)), and
 * in an epilogue restores it by mtlr from the register loaded from the
 * save slot: the state below follows those, by mnemonic and operand text. */

/* Stores through r1 ("std r0, 0x10(r1)"): keeps or ends the record of the
 * slot holding LR's copy. Any update form moves r1, which names the slot;
 * another store to the slot's word overwrites it. Stores through other
 * registers are not followed (code does not address its own LR save slot
 * that way). */
static void track_slot(knit_audit_lr *s, const char *mn, const char *ops, int reg)
{
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

void knit_power_audit_lr_step(knit_audit_lr *s, const char *mn, const char *ops)
{
  int reg = ppc_gpr(ops);
  if (ppc_links(mn)) {
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
  track_slot(s, mn, ops, reg);
  if (reg == 1 && ppc_writes_first(mn))
    s->slot_saved = false; /* r1 moves: the offset no longer names it */
  if (reg < 0 || !ppc_writes_first(mn))
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

/* ---- the frame model (audit/audit_model.h) ---- */

/* The displacement and base GPR of "d(rN)" in the second operand. */
static bool ppc_mem(const char *ops, int64_t *disp, int *base)
{
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
static int ppc_second(const char *ops, int64_t *imm, bool *has_imm)
{
  const char *p = strchr(ops, ',');
  *has_imm = false;
  if (!p)
    return -1;
  while (*++p == ' ')
    ;
  int r = ppc_gpr(p);
  const char *q = strchr(p, ',');
  if (q) {
    char *end;
    *imm = strtoll(q + 1, &end, 0);
    *has_imm = *end == '\0';
  }
  return r;
}

void knit_power_audit_model_step(knit_audit_model *m, const char *mn, const char *ops)
{
  int reg = ppc_gpr(ops);
  if (ppc_links(mn)) { /* bcl 20,31 and conditional calls */
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
  bool simple = (strcmp(mn, "mr") == 0 && !has_imm) || (strcmp(mn, "addi") == 0 && has_imm);
  if (reg == 1 && simple && src == 1) {
    m->sp_depth -= imm;
  } else if (reg == 1 && simple && src == 31 && m->fp_known) {
    m->sp_depth = m->fp_depth - imm;
  } else if (reg == 31 && simple && src == 1) {
    m->fp_known = true;
    m->fp_depth = m->sp_depth - imm;
  } else if (reg >= 0 && ppc_writes_first(mn)) {
    if (reg == 1)
      m->known = false;
    else if (reg == 31)
      m->fp_known = false;
    if (reg == m->ra_copy)
      m->ra_copy = -1;
  }
}

/* bctr: the jump through the count register that a switch's table
 * dispatch (and a tail call through a pointer) ends with. */
bool knit_power_audit_indirect_jump(const char *mnemonic, const char *op_str)
{
  (void)op_str;
  return strcmp(mnemonic, "bctr") == 0;
}

bool knit_power_audit_plain_return(const char *mnemonic, const char *op_str)
{
  (void)op_str;
  return strcmp(mnemonic, "blr") == 0;
}
