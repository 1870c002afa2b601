/* The audit's rows, and finding one from the unwinder's. */
#include <stddef.h>

#include "audit/audit_isa.h"

const knit_audit_isa *const knit_audit_isas[] = {&knit_audit_x86_64, &knit_audit_aarch64,
                                                 &knit_audit_ppc64le, &knit_audit_ppc64, NULL};

const knit_audit_isa *knit_audit_isa_of(const knit_isa_ops *isa)
{
  for (size_t i = 0; isa && knit_audit_isas[i]; i++)
    if (knit_audit_isas[i]->isa == isa)
      return knit_audit_isas[i];
  return NULL;
}
