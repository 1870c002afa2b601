/* Control flow of single instructions, by mnemonic, for the audit. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"

typedef struct flow_table {
  const char *isa;
  const char *const *ends;
  const char *const *calls;
  const char *const *padding;
} flow_table;

/* Traps count both as path ends (ud2 after a noreturn call) and as padding
 * (int3 fills between functions); the audit skips padding only after a path
 * end, so a nop aligning a loop head is still compared. */
static const char *const x86_ends[] = {"ret", "jmp", "ud2", "hlt", "int3", NULL};
static const char *const x86_calls[] = {"call", NULL};
static const char *const x86_padding[] = {"nop", "int3", "ud2", NULL};

/* aarch64: "b" alone is unconditional ("b.eq" is not); "blr" is a call. */
static const char *const a64_ends[] = {"ret", "b", "br", "brk", "udf",
                                       "retaa", "retab", "hlt", NULL};
static const char *const a64_calls[] = {"bl", "blr", "blraa", "blrab", NULL};
static const char *const a64_padding[] = {"nop", "udf", "brk", NULL};

/* ppc64: "blr" is the return; "b" and "bctr" are unconditional jumps. */
static const char *const ppc_ends[] = {"blr", "b", "ba", "bctr", "trap", NULL};
static const char *const ppc_calls[] = {"bl", "bla", "bctrl", "blrl", NULL};
static const char *const ppc_padding[] = {"nop", "trap", NULL};

static const flow_table tables[] = {
  {"x86_64", x86_ends, x86_calls, x86_padding},
  {"aarch64", a64_ends, a64_calls, a64_padding},
  {"ppc64le", ppc_ends, ppc_calls, ppc_padding},
};

static bool listed(const char *const *list, const char *mnemonic) {
  for (; *list; list++)
    if (strcmp(*list, mnemonic) == 0)
      return true;
  return false;
}

/* gcc aligns ppc64 code with "ori r2,r2,0" as well as with nop (binutils
 * pads with it on POWER8 and later): a no-op by its operands, not by its
 * mnemonic. */
static bool ppc_nop_form(const char *mnemonic, const char *op_str) {
  return op_str && strcmp(mnemonic, "ori") == 0 && strcmp(op_str, "r2, r2, 0") == 0;
}

unsigned knit_audit_flow(const knit_isa_ops *isa, const char *mnemonic,
                         const char *op_str) {
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    if (strcmp(tables[i].isa, isa->name) != 0)
      continue;
    unsigned flags = 0;
    if (listed(tables[i].padding, mnemonic) ||
        (strcmp(isa->name, "ppc64le") == 0 && ppc_nop_form(mnemonic, op_str)))
      flags |= KNIT_FLOW_PADDING;
    if (listed(tables[i].ends, mnemonic))
      flags |= KNIT_FLOW_PATH_END;
    if (listed(tables[i].calls, mnemonic))
      flags |= KNIT_FLOW_CALL;
    return flags;
  }
  return 0;
}

bool knit_audit_branch_target(const char *mnemonic, const char *op_str,
                              uint64_t *target) {
  /* Direct branches print their target last: "#0x1f364" on aarch64
   * (b, b.ne, cbz, tbz), "0x3baa8" on ppc64 (b, beq cr7, bdnz). Other
   * mnemonics that begin with b (bic, bfi) give a false target now and
   * then; the caller only becomes more careful for it. */
  if (mnemonic[0] != 'b' && strncmp(mnemonic, "cb", 2) != 0 &&
      strncmp(mnemonic, "tb", 2) != 0)
    return false;
  const char *last = strrchr(op_str, ' ');
  last = last ? last + 1 : op_str;
  if (*last == '#')
    last++;
  if (strncmp(last, "0x", 2) != 0)
    return false;
  char *end;
  *target = strtoull(last, &end, 16);
  return *end == '\0';
}
