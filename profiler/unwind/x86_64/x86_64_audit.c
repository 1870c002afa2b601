/* x86-64's row of the audit's machine table (audit/audit_isa.h): control
 * flow by mnemonic. The return address is on the stack from the call on,
 * so there is no frame model and no LR to follow. Compiled into the knit
 * command only. */
#include <stddef.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"

/* Traps count both as path ends (ud2 after a noreturn call) and as padding
 * (int3 fills between functions); the audit skips padding only after a path
 * end, so a nop aligning a loop head is still compared. */
static const char *const x86_ends[] = {"ret", "jmp", "ud2", "hlt", "int3", NULL};
static const char *const x86_calls[] = {"call", NULL};
static const char *const x86_padding[] = {"nop", "int3", "ud2", NULL};

/* Every x86 branch mnemonic begins with j (jmp, je, jrcxz, ...) or is a
 * loop or a call; a direct one prints its target alone, "0x401a2b". */
static bool x86_branch_target(const char *mnemonic, const char *op_str, uint64_t *target)
{
  if (mnemonic[0] != 'j' && strncmp(mnemonic, "loop", 4) != 0 && strcmp(mnemonic, "call") != 0)
    return false;
  return knit_audit_hex_operand(op_str, target);
}

/* jcc, jrcxz and the loop family: every j* but jmp. */
static bool x86_conditional(const char *mnemonic)
{
  return (mnemonic[0] == 'j' && strcmp(mnemonic, "jmp") != 0) || strncmp(mnemonic, "loop", 4) == 0;
}

/* jmp (or notrack jmp, under CET) to a register or memory operand: not
 * the hexadecimal address a direct jmp prints. */
static bool x86_indirect_jump(const char *mnemonic, const char *op_str)
{
  uint64_t target;
  return (strcmp(mnemonic, "jmp") == 0 || strcmp(mnemonic, "notrack jmp") == 0) &&
         !knit_audit_hex_operand(op_str, &target);
}

const knit_audit_isa knit_audit_x86_64 = {
    .isa = &knit_isa_x86_64,
    .ends = x86_ends,
    .calls = x86_calls,
    .padding = x86_padding,
    .branch_target = x86_branch_target,
    .conditional = x86_conditional,
    .indirect_jump = x86_indirect_jump,
};
