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

enum {
  PE_ABSPTR = 0x00,
  PE_ULEB128 = 0x01,
  PE_UDATA2 = 0x02,
  PE_UDATA4 = 0x03,
  PE_UDATA8 = 0x04,
  PE_SLEB128 = 0x09,
  PE_SDATA2 = 0x0a,
  PE_SDATA4 = 0x0b,
  PE_SDATA8 = 0x0c,
  PE_PCREL = 0x10,
  PE_TEXTREL = 0x20,
  PE_DATAREL = 0x30,
  PE_FUNCREL = 0x40,
  PE_ALIGNED = 0x50,
  PE_INDIRECT = 0x80,
  PE_OMIT = 0xff,
};

/* A cursor over section bytes that knows the virtual address of each byte
 * (pc-relative pointers need it) and the file's byte order. */
typedef struct reader {
  const uint8_t *base; /* first byte of the section */
  size_t size;
  size_t pos;
  uint64_t vaddr; /* virtual address of base */
  bool big_endian;
  int addr_size; /* 8 for ELFCLASS64, 4 for ELFCLASS32 */
  bool failed;   /* a read ran past the end */
} reader;

static bool has(reader *r, size_t n)
{
  if (r->failed || r->size - r->pos < n || r->pos > r->size) {
    r->failed = true;
    return false;
  }
  return true;
}

static uint64_t read_uint(reader *r, int n)
{
  if (!has(r, (size_t)n))
    return 0;
  uint64_t v = 0;
  for (int i = 0; i < n; i++) {
    uint64_t byte = r->base[r->pos + (size_t)(r->big_endian ? i : n - 1 - i)];
    v = (v << 8) | byte;
  }
  r->pos += (size_t)n;
  return v;
}

static int64_t sign_extend(uint64_t v, int bits)
{
  uint64_t m = 1ull << (bits - 1);
  return (int64_t)((v ^ m) - m);
}

static uint64_t read_uleb(reader *r)
{
  uint64_t v = 0;
  for (int shift = 0; has(r, 1); shift += 7) {
    uint8_t b = r->base[r->pos++];
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      break;
  }
  return v;
}

static int64_t read_sleb(reader *r)
{
  uint64_t v = 0;
  int shift = 0;
  uint8_t b = 0;
  while (has(r, 1)) {
    b = r->base[r->pos++];
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80))
      break;
  }
  if (shift < 64 && (b & 0x40))
    v |= ~0ull << shift;
  return (int64_t)v;
}

/* Reads the value part of an encoded pointer (no base applied). */
static uint64_t read_encoded_value(reader *r, uint8_t enc)
{
  switch (enc & 0x0f) {
  case PE_ABSPTR: return read_uint(r, r->addr_size);
  case PE_ULEB128: return read_uleb(r);
  case PE_UDATA2: return read_uint(r, 2);
  case PE_UDATA4: return read_uint(r, 4);
  case PE_UDATA8: return read_uint(r, 8);
  case PE_SLEB128: return (uint64_t)read_sleb(r);
  case PE_SDATA2: return (uint64_t)sign_extend(read_uint(r, 2), 16);
  case PE_SDATA4: return (uint64_t)sign_extend(read_uint(r, 4), 32);
  case PE_SDATA8: return read_uint(r, 8);
  default: r->failed = true; return 0;
  }
}

/* Reads a whole encoded pointer. Returns false when it cannot be resolved
 * from the file alone (indirect, text- or function-relative, or datarel
 * without a data base); the bytes are consumed all the same. */
static bool read_encoded(reader *r, uint8_t enc, uint64_t data_base, uint64_t *out)
{
  if ((enc & 0x70) == PE_ALIGNED) {
    size_t a = (size_t)r->addr_size;
    uint64_t here = r->vaddr + r->pos;
    r->pos += (size_t)((a - here % a) % a);
  }
  uint64_t field = r->vaddr + r->pos;
  uint64_t v = read_encoded_value(r, enc);
  if (r->failed)
    return false;
  switch (enc & 0x70) {
  case 0:
  case PE_ALIGNED: break;
  case PE_PCREL: v += field; break;
  case PE_DATAREL:
    if (data_base == 0)
      return false;
    v += data_base;
    break;
  default: return false;
  }
  if (enc & PE_INDIRECT)
    return false; /* the pointer is in memory of the running process */
  *out = v;
  return true;
}

/* Reads a CIE's FDE pointer encoding. Returns false for a CIE whose
 * augmentation is not understood: its FDEs are then skipped. */
static bool parse_cie(reader r, uint8_t *fde_enc)
{
  uint64_t len = read_uint(&r, 4);
  int id_size = 4;
  if (len == 0xffffffffu) {
    read_uint(&r, 8);
    id_size = 8;
  }
  if (read_uint(&r, id_size) != 0 || r.failed)
    return false; /* not a CIE */
  uint8_t version = (uint8_t)read_uint(&r, 1);
  const char *aug = (const char *)r.base + r.pos;
  size_t aug_len = strnlen(aug, r.size - r.pos);
  if (aug_len == r.size - r.pos)
    return false;
  r.pos += aug_len + 1;
  if (strstr(aug, "eh"))
    r.pos += (size_t)r.addr_size; /* the ancient gcc "eh" data pointer */
  read_uleb(&r);                  /* code alignment */
  read_sleb(&r);                  /* data alignment */
  if (version == 1)
    read_uint(&r, 1);
  else
    read_uleb(&r); /* return address register */
  *fde_enc = PE_ABSPTR;
  if (aug[0] == '\0')
    return !r.failed;
  if (aug[0] != 'z')
    return false; /* the FDE layout depends on what we cannot parse */
  read_uleb(&r);  /* augmentation data length */
  for (const char *a = aug + 1; *a && !r.failed; a++) {
    uint64_t ignored;
    switch (*a) {
    case 'R': *fde_enc = (uint8_t)read_uint(&r, 1); return !r.failed;
    case 'L': read_uint(&r, 1); break;
    case 'P': {
      uint8_t penc = (uint8_t)read_uint(&r, 1);
      read_encoded(&r, penc & 0x7f, 0, &ignored);
      break;
    }
    case 'S':
    case 'B':
    case 'G': break;
    default: return !r.failed; /* no 'R' seen: absptr */
    }
  }
  return !r.failed;
}

static int walk_eh_frame(reader r, knit_bounds_candidates *c)
{
  size_t cached_cie = (size_t)-1;
  uint8_t cached_enc = PE_OMIT;
  while (r.pos < r.size && !r.failed) {
    uint64_t len = read_uint(&r, 4);
    int id_size = 4;
    if (len == 0xffffffffu) {
      len = read_uint(&r, 8);
      id_size = 8;
    }
    if (len == 0 || r.failed)
      break; /* the terminator */
    size_t body = r.pos;
    if (len > r.size - body)
      break;
    size_t next = body + (size_t)len;
    uint64_t cie_ptr = read_uint(&r, id_size);
    if (cie_ptr != 0 && cie_ptr <= body) {
      /* An FDE: its CIE is cie_ptr bytes back from the pointer field. */
      size_t cie = body - (size_t)cie_ptr;
      if (cie != cached_cie) {
        reader cr = r;
        cr.pos = cie;
        cached_cie = cie;
        if (!parse_cie(cr, &cached_enc))
          cached_enc = PE_OMIT;
      }
      uint64_t start, range;
      if (cached_enc != PE_OMIT && read_encoded(&r, cached_enc, 0, &start)) {
        range = read_encoded_value(&r, cached_enc & 0x0f);
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
static int walk_eh_frame_hdr(reader r, knit_bounds_candidates *c)
{
  uint64_t hdr = r.vaddr;
  uint8_t version = (uint8_t)read_uint(&r, 1);
  uint8_t ptr_enc = (uint8_t)read_uint(&r, 1);
  uint8_t count_enc = (uint8_t)read_uint(&r, 1);
  uint8_t table_enc = (uint8_t)read_uint(&r, 1);
  if (r.failed || version != 1 || count_enc == PE_OMIT || table_enc == PE_OMIT)
    return 0;
  uint64_t ignored, count;
  if (ptr_enc != PE_OMIT)
    read_encoded(&r, ptr_enc, hdr, &ignored);
  if (!read_encoded(&r, count_enc, hdr, &count))
    return 0;
  for (uint64_t i = 0; i < count && !r.failed; i++) {
    uint64_t start, fde;
    bool ok = read_encoded(&r, table_enc, hdr, &start);
    ok = read_encoded(&r, table_enc, hdr, &fde) && ok;
    if (ok && knit_bounds_add(c, start, 0, KNIT_RANK_OPEN_START) != 0)
      return -1;
  }
  return 0;
}

static bool section_reader(Elf *elf, Elf_Scn *scn, uint64_t vaddr, reader *r)
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
  reader r;
  if (eh->eh_frame && section_reader(elf, eh->eh_frame, eh->eh_frame_addr, &r) &&
      walk_eh_frame(r, c) != 0)
    return -1;
  if (eh->eh_frame_hdr && section_reader(elf, eh->eh_frame_hdr, eh->eh_frame_hdr_addr, &r) &&
      walk_eh_frame_hdr(r, c) != 0)
    return -1;
  return 0;
}
