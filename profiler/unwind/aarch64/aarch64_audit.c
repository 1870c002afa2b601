/* aarch64's row of the audit's machine table (audit/audit_isa.h): control
 * flow by mnemonic and the audit's frame model, from Capstone's text (the
 * audit's walk decodes without detail). Compiled into the knit command
 * only. LR is not followed (audit/audit_lr.h): no copies of it to accept. */
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"
#include "audit/audit_model.h"

/* ---- control flow ---- */

/* "b" alone is unconditional ("b.eq" is not); "blr" is a call. Traps count
 * both as path ends and as padding. */
static const char *const a64_ends[] = {"ret",   "b",     "br",  "brk", "udf",
                                       "retaa", "retab", "hlt", NULL};
static const char *const a64_calls[] = {"bl", "blr", "blraa", "blrab", NULL};
static const char *const a64_padding[] = {"nop", "udf", "brk", NULL};

/* Direct branches print their target last, "#0x1f364" (b, b.ne, bl, cbz,
 * tbz). Other mnemonics that begin with b (bic, bfi) give a false target
 * now and then; the audit only becomes more careful for it. */
static bool a64_branch_target(const char *mnemonic, const char *op_str, uint64_t *target)
{
  if (mnemonic[0] != 'b' && strncmp(mnemonic, "cb", 2) != 0 && strncmp(mnemonic, "tb", 2) != 0)
    return false;
  return knit_audit_hex_operand(op_str, target);
}

/* b.<cond>, and the compare-and-branch and test-and-branch forms. */
static bool a64_conditional(const char *mnemonic)
{
  return strncmp(mnemonic, "b.", 2) == 0 || strcmp(mnemonic, "cbz") == 0 ||
         strcmp(mnemonic, "cbnz") == 0 || strcmp(mnemonic, "tbz") == 0 ||
         strcmp(mnemonic, "tbnz") == 0;
}

/* ---- the frame model (audit/audit_model.h) ---- */

static bool starts(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool a64_is(const char *tok, const char *x, const char *w)
{
  return strcmp(tok, x) == 0 || strcmp(tok, w) == 0;
}

/* Copies the comma-separated operand at *p into tok and moves past it. */
static void a64_token(const char **p, char *tok, size_t len)
{
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
static bool a64_imm(const char *p, int64_t *v)
{
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
static void a64_mem(knit_audit_model *m, const char *mn, const char *ops, const char *bracket)
{
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
static bool a64_writes_first(const char *mn)
{
  static const char *const readers[] = {"b",    "bl",   "blr",  "br",    "cbz",  "cbnz",
                                        "tbz",  "tbnz", "ret",  "cmp",   "cmn",  "tst",
                                        "ccmp", "ccmn", "fcmp", "fcmpe", "prfm", NULL};
  if (starts(mn, "st") || starts(mn, "b."))
    return false;
  for (size_t i = 0; readers[i]; i++)
    if (strcmp(mn, readers[i]) == 0)
      return false;
  return true;
}

static void a64_model_step(knit_audit_model *m, const char *mn, const char *ops)
{
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

/* ret through x30 (the default operand). */
static bool a64_plain_return(const char *mnemonic, const char *op_str)
{
  return strcmp(mnemonic, "ret") == 0 &&
         (!op_str || op_str[0] == '\0' || strcmp(op_str, "x30") == 0);
}

/* br and its pointer-authenticated forms (braa, brab, braaz, brabz). */
static bool a64_indirect_jump(const char *mnemonic, const char *op_str)
{
  (void)op_str;
  return strncmp(mnemonic, "br", 2) == 0 &&
         (mnemonic[2] == '\0' || strcmp(mnemonic + 2, "aa") == 0 ||
          strcmp(mnemonic + 2, "ab") == 0 || strcmp(mnemonic + 2, "aaz") == 0 ||
          strcmp(mnemonic + 2, "abz") == 0);
}

const knit_audit_isa knit_audit_aarch64 = {
    .isa = &knit_isa_aarch64,
    .ends = a64_ends,
    .calls = a64_calls,
    .padding = a64_padding,
    .branch_target = a64_branch_target,
    .conditional = a64_conditional,
    .model_step = a64_model_step,
    .plain_return = a64_plain_return,
    .indirect_jump = a64_indirect_jump,
};
