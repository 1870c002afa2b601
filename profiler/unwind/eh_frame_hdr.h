/* The function that contains an address, from a loaded object's
 * .eh_frame_hdr (its PT_GNU_EH_FRAME segment) and the FDE its binary search
 * table points to.
 *
 * For code the load map does not know yet (unwind/object_lookup.h): the
 * handler has no file to read and may not allocate, so the bounds of the
 * one function at hand come from the object's own memory. Only what the
 * linkers emit is parsed: version 1, an eh_frame_ptr and fde_count of
 * (pc-relative, data-relative or absolute) 4-byte encodings, and a table
 * of data-relative 4-byte pairs; anything else gives no bounds. Pure,
 * every read bounds-checked against the range given: async-signal-safe,
 * and testable over a buffer.
 */
#ifndef KNIT_UNWIND_EH_FRAME_HDR_H
#define KNIT_UNWIND_EH_FRAME_HDR_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/dwarf_pointer.h"

/* The bounds [*start, *end) of the function containing pc, per the
 * .eh_frame_hdr at address hdr. mem describes every byte that may be read
 * (base, size, vaddr, byte order and address size; pos is ignored): the
 * header, its table and the FDEs and CIEs it leads to must lie in it.
 * Returns false when the header is not understood, the table has no entry
 * at or below pc, or pc lies past the end of the FDE found (a gap between
 * functions). */
bool knit_eh_frame_hdr_find(const knit_dwarf_reader *mem, uint64_t hdr, uint64_t pc,
                            uint64_t *start, uint64_t *end);

#endif /* KNIT_UNWIND_EH_FRAME_HDR_H */
