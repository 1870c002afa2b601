/* The function a call site calls through its module's PLT, from the module
 * file alone: the ISA's decoder (unwind/isa.h, call_before) reads the
 * direct call that ends at the return address, and the stub it targets is
 * named by the relocation that stub resolves.
 *
 * This is how a call into a shared library is named when the compiler left
 * no DWARF call-site entry for it (clang 14 writes none for calls to
 * functions it declares itself, such as the OpenMP runtime's
 * __kmpc_fork_call). It rests on the PLT being a header (the machine
 * table's plt0_size) followed by one stub per .rela.plt (or .rel.plt)
 * entry, in the relocations' order, all of one length, or on .plt.sec
 * holding the stubs without a header (x86-64's IBT layout): so are the
 * PLTs of x86-64 and aarch64. Where the linker puts its stubs among the
 * code instead, loading their target from a PLT slot (POWER's, from the TOC
 * pointer), the machine table decodes the stub (plt_stub_slot) and the
 * relocation at the slot's address names the callee. Where neither holds
 * or the call is not direct, there is no answer. */
#ifndef KNIT_REPORT_PLT_CALLEE_H
#define KNIT_REPORT_PLT_CALLEE_H

#include <gelf.h>
#include <stdint.h>

#include "unwind/isa.h"

/* The symbol the call returning to ELF address ra of elf calls through a
 * PLT stub, or NULL; a string of elf's, valid while it is. */
const char *knit_plt_callee(Elf *elf, const knit_isa_ops *isa, uint64_t ra);

/* Whether a call instruction of elf ends at ELF address addr (addr is a
 * return address); 0 when it cannot be read. */
int knit_call_ends_at(Elf *elf, const knit_isa_ops *isa, uint64_t addr);

#endif /* KNIT_REPORT_PLT_CALLEE_H */
