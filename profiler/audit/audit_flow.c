/* Control flow of single instructions, by mnemonic, for the audit. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"

static bool listed(const char *const *list, const char *mnemonic)
{
  for (; list && *list; list++)
    if (strcmp(*list, mnemonic) == 0)
      return true;
  return false;
}

unsigned knit_audit_flow(const knit_isa_ops *isa, const char *mnemonic, const char *op_str)
{
  const knit_audit_isa *a = knit_audit_isa_of(isa);
  if (!a)
    return 0;
  unsigned flags = 0;
  if (listed(a->padding, mnemonic) || (a->also_padding && a->also_padding(mnemonic, op_str)))
    flags |= KNIT_FLOW_PADDING;
  if (listed(a->ends, mnemonic))
    flags |= KNIT_FLOW_PATH_END;
  if (listed(a->calls, mnemonic))
    flags |= KNIT_FLOW_CALL;
  return flags;
}

bool knit_audit_branch_target(const knit_isa_ops *isa, const char *mnemonic, const char *op_str,
                              uint64_t *target)
{
  const knit_audit_isa *a = knit_audit_isa_of(isa);
  return a && a->branch_target && a->branch_target(mnemonic, op_str, target);
}

bool knit_audit_hex_operand(const char *op_str, uint64_t *target)
{
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
