/* A function's bounds from .eh_frame_hdr: see eh_frame_hdr.h. */
#include "unwind/eh_frame_hdr.h"

/* A reader of mem placed at address addr, or false when addr is outside. */
static bool reader_at(const knit_dwarf_reader *mem, uint64_t addr, knit_dwarf_reader *r)
{
  if (addr < mem->vaddr || addr - mem->vaddr >= mem->size)
    return false;
  *r = *mem;
  r->pos = (size_t)(addr - mem->vaddr);
  r->failed = false;
  return true;
}

/* The header's own encodings: a 4-byte value, absolute or relative to the
 * field or to the header. */
static bool header_encoding(uint8_t enc)
{
  uint8_t format = enc & 0x0f, base = enc & 0xf0;
  return (format == KNIT_PE_UDATA4 || format == KNIT_PE_SDATA4) &&
         (base == 0 || base == KNIT_PE_PCREL || base == KNIT_PE_DATAREL);
}

/* The table's: fixed 8-byte entries relative to the header, which is what
 * makes it searchable in place. */
static bool table_encoding(uint8_t enc)
{
  return enc == (KNIT_PE_DATAREL | KNIT_PE_SDATA4) || enc == (KNIT_PE_DATAREL | KNIT_PE_UDATA4);
}

/* The initial location and FDE address of table entry i. */
static bool table_entry(const knit_dwarf_reader *mem, uint64_t hdr, uint64_t table, uint8_t enc,
                        uint64_t i, uint64_t *loc, uint64_t *fde)
{
  knit_dwarf_reader r;
  if (!reader_at(mem, table + 8 * i, &r))
    return false;
  bool ok = knit_dwarf_read_encoded(&r, enc, hdr, loc);
  return knit_dwarf_read_encoded(&r, enc, hdr, fde) && ok;
}

/* The range [*start, *end) the FDE at address fde describes. */
static bool fde_bounds(const knit_dwarf_reader *mem, uint64_t fde, uint64_t *start, uint64_t *end)
{
  knit_dwarf_reader r;
  if (!reader_at(mem, fde, &r))
    return false;
  uint64_t len = knit_dwarf_read_uint(&r, 4);
  int id_size = 4;
  if (len == 0xffffffffu) {
    len = knit_dwarf_read_uint(&r, 8);
    id_size = 8;
  }
  size_t body = r.pos;
  if (r.failed || len == 0 || len > r.size - body)
    return false;
  /* The FDE ends where its length says: its fields may not run past it. */
  r.size = body + (size_t)len;
  uint64_t cie_ptr = knit_dwarf_read_uint(&r, id_size);
  if (r.failed || cie_ptr == 0 || cie_ptr > body)
    return false; /* a CIE, or a pointer before the range */
  knit_dwarf_reader cie = *mem;
  cie.pos = body - (size_t)cie_ptr;
  cie.failed = false;
  uint8_t enc;
  if (!knit_dwarf_cie_fde_encoding(cie, &enc) || enc == KNIT_PE_OMIT)
    return false;
  uint64_t begin;
  if (!knit_dwarf_read_encoded(&r, enc, 0, &begin))
    return false;
  uint64_t range = knit_dwarf_read_encoded_value(&r, enc & 0x0f);
  if (r.failed || range == 0 || begin + range < begin)
    return false;
  *start = begin;
  *end = begin + range;
  return true;
}

bool knit_eh_frame_hdr_find(const knit_dwarf_reader *mem, uint64_t hdr, uint64_t pc,
                            uint64_t *start, uint64_t *end)
{
  knit_dwarf_reader r;
  if (!reader_at(mem, hdr, &r))
    return false;
  uint8_t version = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t ptr_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t count_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t table_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  if (r.failed || version != 1 || !header_encoding(ptr_enc) || !header_encoding(count_enc) ||
      !table_encoding(table_enc))
    return false;
  uint64_t eh_frame, count;
  if (!knit_dwarf_read_encoded(&r, ptr_enc, hdr, &eh_frame) ||
      !knit_dwarf_read_encoded(&r, count_enc, hdr, &count))
    return false;
  (void)eh_frame; /* read for its length only: the table gives the FDEs */
  uint64_t table = r.vaddr + r.pos;
  if (count == 0 || count > (r.size - r.pos) / 8)
    return false;
  /* The last entry whose initial location is at or below pc. */
  uint64_t lo = 0, hi = count;
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2, loc, fde;
    if (!table_entry(mem, hdr, table, table_enc, mid, &loc, &fde))
      return false;
    if (loc <= pc)
      lo = mid;
    else
      hi = mid;
  }
  uint64_t loc, fde;
  if (!table_entry(mem, hdr, table, table_enc, lo, &loc, &fde) || loc > pc)
    return false;
  uint64_t fstart, fend;
  if (!fde_bounds(mem, fde, &fstart, &fend) || fstart != loc || pc >= fend)
    return false;
  *start = fstart;
  *end = fend;
  return true;
}
