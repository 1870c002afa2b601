/* Reading the pointers of exception-handling frame data (.eh_frame and
 * .eh_frame_hdr): the DW_EH_PE encodings of the LSB, over a range of bytes
 * whose addresses are known (pc-relative pointers need them).
 *
 * Shared by the bounds reader, which reads sections of a file outside the
 * handler, and by the look-up of a function in a loaded object's
 * .eh_frame_hdr, which reads the process's memory inside it: everything
 * here is pure, allocates nothing and never reads outside its range, so it
 * is async-signal-safe.
 */
#ifndef KNIT_UNWIND_DWARF_POINTER_H
#define KNIT_UNWIND_DWARF_POINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
  KNIT_PE_ABSPTR = 0x00,
  KNIT_PE_ULEB128 = 0x01,
  KNIT_PE_UDATA2 = 0x02,
  KNIT_PE_UDATA4 = 0x03,
  KNIT_PE_UDATA8 = 0x04,
  KNIT_PE_SLEB128 = 0x09,
  KNIT_PE_SDATA2 = 0x0a,
  KNIT_PE_SDATA4 = 0x0b,
  KNIT_PE_SDATA8 = 0x0c,
  KNIT_PE_PCREL = 0x10,
  KNIT_PE_TEXTREL = 0x20,
  KNIT_PE_DATAREL = 0x30,
  KNIT_PE_FUNCREL = 0x40,
  KNIT_PE_ALIGNED = 0x50,
  KNIT_PE_INDIRECT = 0x80,
  KNIT_PE_OMIT = 0xff,
};

/* A cursor over bytes that knows the address of each byte and the byte
 * order of the data. */
typedef struct knit_dwarf_reader {
  const uint8_t *base; /* first byte of the range */
  size_t size;
  size_t pos;
  uint64_t vaddr; /* address of base */
  bool big_endian;
  int addr_size; /* 8 for ELFCLASS64, 4 for ELFCLASS32 */
  bool failed;   /* a read ran past the end, or met what is not understood */
} knit_dwarf_reader;

/* Whether n more bytes can be read; sets failed when not. */
bool knit_dwarf_has(knit_dwarf_reader *r, size_t n);

/* An unsigned integer of n bytes (n <= 8); 0 and failed past the end. */
uint64_t knit_dwarf_read_uint(knit_dwarf_reader *r, int n);
uint64_t knit_dwarf_read_uleb(knit_dwarf_reader *r);
int64_t knit_dwarf_read_sleb(knit_dwarf_reader *r);

/* The value part of a pointer encoded as enc (no base applied). */
uint64_t knit_dwarf_read_encoded_value(knit_dwarf_reader *r, uint8_t enc);

/* A whole encoded pointer, its base applied: data_base is the base of
 * datarel pointers (0: none known). Returns false when it cannot be
 * resolved from the bytes alone (indirect, text- or function-relative, or
 * datarel without a data base); the bytes are consumed all the same. */
bool knit_dwarf_read_encoded(knit_dwarf_reader *r, uint8_t enc, uint64_t data_base, uint64_t *out);

/* The FDE pointer encoding of the CIE at the reader's position (its 'R'
 * augmentation; absptr without one). Returns false for a CIE whose
 * augmentation is not understood: its FDEs cannot be read. */
bool knit_dwarf_cie_fde_encoding(knit_dwarf_reader r, uint8_t *fde_enc);

#endif /* KNIT_UNWIND_DWARF_POINTER_H */
