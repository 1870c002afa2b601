/* Encoded pointers of frame data: see dwarf_pointer.h. */
#include "unwind/dwarf_pointer.h"

#include <string.h>

bool knit_dwarf_has(knit_dwarf_reader *r, size_t n)
{
  if (r->failed || r->size - r->pos < n || r->pos > r->size) {
    r->failed = true;
    return false;
  }
  return true;
}

uint64_t knit_dwarf_read_uint(knit_dwarf_reader *r, int n)
{
  if (!knit_dwarf_has(r, (size_t)n))
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

uint64_t knit_dwarf_read_uleb(knit_dwarf_reader *r)
{
  uint64_t v = 0;
  for (int shift = 0; knit_dwarf_has(r, 1); shift += 7) {
    uint8_t b = r->base[r->pos++];
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      break;
  }
  return v;
}

int64_t knit_dwarf_read_sleb(knit_dwarf_reader *r)
{
  uint64_t v = 0;
  int shift = 0;
  uint8_t b = 0;
  while (knit_dwarf_has(r, 1)) {
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

uint64_t knit_dwarf_read_encoded_value(knit_dwarf_reader *r, uint8_t enc)
{
  switch (enc & 0x0f) {
  case KNIT_PE_ABSPTR: return knit_dwarf_read_uint(r, r->addr_size);
  case KNIT_PE_ULEB128: return knit_dwarf_read_uleb(r);
  case KNIT_PE_UDATA2: return knit_dwarf_read_uint(r, 2);
  case KNIT_PE_UDATA4: return knit_dwarf_read_uint(r, 4);
  case KNIT_PE_UDATA8: return knit_dwarf_read_uint(r, 8);
  case KNIT_PE_SLEB128: return (uint64_t)knit_dwarf_read_sleb(r);
  case KNIT_PE_SDATA2: return (uint64_t)sign_extend(knit_dwarf_read_uint(r, 2), 16);
  case KNIT_PE_SDATA4: return (uint64_t)sign_extend(knit_dwarf_read_uint(r, 4), 32);
  case KNIT_PE_SDATA8: return knit_dwarf_read_uint(r, 8);
  default: r->failed = true; return 0;
  }
}

bool knit_dwarf_read_encoded(knit_dwarf_reader *r, uint8_t enc, uint64_t data_base, uint64_t *out)
{
  if ((enc & 0x70) == KNIT_PE_ALIGNED) {
    size_t a = (size_t)r->addr_size;
    uint64_t here = r->vaddr + r->pos;
    r->pos += (size_t)((a - here % a) % a);
  }
  uint64_t field = r->vaddr + r->pos;
  uint64_t v = knit_dwarf_read_encoded_value(r, enc);
  if (r->failed)
    return false;
  switch (enc & 0x70) {
  case 0:
  case KNIT_PE_ALIGNED: break;
  case KNIT_PE_PCREL: v += field; break;
  case KNIT_PE_DATAREL:
    if (data_base == 0)
      return false;
    v += data_base;
    break;
  default: return false;
  }
  if (enc & KNIT_PE_INDIRECT)
    return false; /* the pointer is in memory of the running process */
  *out = v;
  return true;
}

bool knit_dwarf_cie_fde_encoding(knit_dwarf_reader r, uint8_t *fde_enc)
{
  uint64_t len = knit_dwarf_read_uint(&r, 4);
  int id_size = 4;
  if (len == 0xffffffffu) {
    knit_dwarf_read_uint(&r, 8);
    id_size = 8;
  }
  if (knit_dwarf_read_uint(&r, id_size) != 0 || r.failed)
    return false; /* not a CIE */
  uint8_t version = (uint8_t)knit_dwarf_read_uint(&r, 1);
  if (r.failed)
    return false;
  const char *aug = (const char *)r.base + r.pos;
  size_t aug_len = strnlen(aug, r.size - r.pos);
  if (aug_len == r.size - r.pos)
    return false;
  r.pos += aug_len + 1;
  if (strstr(aug, "eh"))
    r.pos += (size_t)r.addr_size; /* the ancient gcc "eh" data pointer */
  knit_dwarf_read_uleb(&r);       /* code alignment */
  knit_dwarf_read_sleb(&r);       /* data alignment */
  if (version == 1)
    knit_dwarf_read_uint(&r, 1);
  else
    knit_dwarf_read_uleb(&r); /* return address register */
  *fde_enc = KNIT_PE_ABSPTR;
  if (aug[0] == '\0')
    return !r.failed;
  if (aug[0] != 'z')
    return false;           /* the FDE layout depends on what we cannot parse */
  knit_dwarf_read_uleb(&r); /* augmentation data length */
  for (const char *a = aug + 1; *a && !r.failed; a++) {
    uint64_t ignored;
    switch (*a) {
    case 'R': *fde_enc = (uint8_t)knit_dwarf_read_uint(&r, 1); return !r.failed;
    case 'L': knit_dwarf_read_uint(&r, 1); break;
    case 'P': {
      uint8_t penc = (uint8_t)knit_dwarf_read_uint(&r, 1);
      knit_dwarf_read_encoded(&r, penc & 0x7f, 0, &ignored);
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
