/* ppc64's row of the audit's machine table: the POWER model
 * (power/power_audit.c) for the ELFv1 unwinder row. */
#include "unwind/power/power_audit.h"

const knit_audit_isa knit_audit_ppc64 = KNIT_POWER_AUDIT_ROW(&knit_isa_ppc64);
