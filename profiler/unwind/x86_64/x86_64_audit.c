/* x86-64's row of the audit's machine table (audit/audit_isa.h): control
 * flow by mnemonic. The return address is on the stack from the call on,
 * so there is no frame model and no LR to follow. Compiled into the knit
 * command only. */
#include <stddef.h>

#include "audit/audit_isa.h"

/* Traps count both as path ends (ud2 after a noreturn call) and as padding
 * (int3 fills between functions); the audit skips padding only after a path
 * end, so a nop aligning a loop head is still compared. */
static const char *const x86_ends[] = {"ret", "jmp", "ud2", "hlt", "int3", NULL};
static const char *const x86_calls[] = {"call", NULL};
static const char *const x86_padding[] = {"nop", "int3", "ud2", NULL};

const knit_audit_isa knit_audit_x86_64 = {
    .isa = &knit_isa_x86_64,
    .ends = x86_ends,
    .calls = x86_calls,
    .padding = x86_padding,
};
