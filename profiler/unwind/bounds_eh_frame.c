/* Function starts and ranges from .eh_frame and .eh_frame_hdr.
 *
 * .eh_frame is never stripped, so its FDEs give bounds even for a stripped
 * library. Only what is needed for bounds is parsed: a CIE's augmentation
 * (for the FDE pointer encoding) and an FDE's initial location and range.
 * The pointer encodings are the DW_EH_PE ones of the LSB; gcc and clang use
 * pcrel|sdata4 in .eh_frame and datarel|sdata4 in the .eh_frame_hdr table.
 */
#include <string.h>

#include "bounds_source.h"
#include "unwind/dwarf_pointer.h"

static int walk_eh_frame(knit_dwarf_reader r, knit_bounds_candidates *c)
{
  size_t cached_cie = (size_t)-1;
  uint8_t cached_enc = KNIT_PE_OMIT;
  while (r.pos < r.size && !r.failed) {
    uint64_t len = knit_dwarf_read_uint(&r, 4);
    int id_size = 4;
    if (len == 0xffffffffu) {
      len = knit_dwarf_read_uint(&r, 8);
      id_size = 8;
    }
    if (len == 0 || r.failed)
      break; /* the terminator */
    size_t body = r.pos;
    if (len > r.size - body)
      break;
    size_t next = body + (size_t)len;
    uint64_t cie_ptr = knit_dwarf_read_uint(&r, id_size);
    if (cie_ptr != 0 && cie_ptr <= body) {
      /* An FDE: its CIE is cie_ptr bytes back from the pointer field. */
      size_t cie = body - (size_t)cie_ptr;
      if (cie != cached_cie) {
        knit_dwarf_reader cr = r;
        cr.pos = cie;
        cached_cie = cie;
        if (!knit_dwarf_cie_fde_encoding(cr, &cached_enc))
          cached_enc = KNIT_PE_OMIT;
      }
      uint64_t start, range;
      if (cached_enc != KNIT_PE_OMIT && knit_dwarf_read_encoded(&r, cached_enc, 0, &start)) {
        range = knit_dwarf_read_encoded_value(&r, cached_enc & 0x0f);
        if (!r.failed && range != 0 && knit_bounds_add(c, start, start + range, KNIT_RANK_FDE) != 0)
          return -1;
      }
    }
    r.failed = false;
    r.pos = next;
  }
  return 0;
}

/* The binary search table of .eh_frame_hdr: sorted initial locations, each
 * with the address of its FDE. Only the starts are used; the FDE walk gives
 * the ranges, and this table still gives starts if that walk fails. */
static int walk_eh_frame_hdr(knit_dwarf_reader r, knit_bounds_candidates *c)
{
  uint64_t hdr = r.vaddr;
  uint8_t version = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t ptr_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t count_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  uint8_t table_enc = (uint8_t)knit_dwarf_read_uint(&r, 1);
  if (r.failed || version != 1 || count_enc == KNIT_PE_OMIT || table_enc == KNIT_PE_OMIT)
    return 0;
  uint64_t ignored, count;
  if (ptr_enc != KNIT_PE_OMIT)
    knit_dwarf_read_encoded(&r, ptr_enc, hdr, &ignored);
  if (!knit_dwarf_read_encoded(&r, count_enc, hdr, &count))
    return 0;
  for (uint64_t i = 0; i < count && !r.failed; i++) {
    uint64_t start, fde;
    bool ok = knit_dwarf_read_encoded(&r, table_enc, hdr, &start);
    ok = knit_dwarf_read_encoded(&r, table_enc, hdr, &fde) && ok;
    if (ok && knit_bounds_add(c, start, 0, KNIT_RANK_OPEN_START) != 0)
      return -1;
  }
  return 0;
}

static bool section_reader(Elf *elf, Elf_Scn *scn, uint64_t vaddr, knit_dwarf_reader *r)
{
  Elf_Data *d = elf_rawdata(scn, NULL);
  if (!d || !d->d_buf)
    return false;
  const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
  memset(r, 0, sizeof *r);
  r->base = d->d_buf;
  r->size = d->d_size;
  r->vaddr = vaddr;
  r->big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
  r->addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
  return true;
}

int knit_bounds_add_eh_frame(Elf *elf, const knit_eh_sections *eh, knit_bounds_candidates *c)
{
  knit_dwarf_reader r;
  if (eh->eh_frame && section_reader(elf, eh->eh_frame, eh->eh_frame_addr, &r) &&
      walk_eh_frame(r, c) != 0)
    return -1;
  if (eh->eh_frame_hdr && section_reader(elf, eh->eh_frame_hdr, eh->eh_frame_hdr_addr, &r) &&
      walk_eh_frame_hdr(r, c) != 0)
    return -1;
  return 0;
}
