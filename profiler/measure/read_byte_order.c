/* Swapping a thread file of the other byte order; see read_byte_order.h. */
#include "measure/read_byte_order.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "measure/format.h"

/* The u32 at `at`, swapped first when the file is being turned into this
 * host's order (counts and lengths are read in the host's order, before a
 * swap away from it or after a swap into it). */
static uint32_t swap32_get(uint8_t *at, bool to_host);

static void swap32(uint8_t *at)
{
  uint32_t v;
  memcpy(&v, at, sizeof v);
  v = __builtin_bswap32(v);
  memcpy(at, &v, sizeof v);
}

static void swap64(uint8_t *at)
{
  uint64_t v;
  memcpy(&v, at, sizeof v);
  v = __builtin_bswap64(v);
  memcpy(at, &v, sizeof v);
}

static uint32_t swap32_get(uint8_t *at, bool to_host)
{
  uint32_t v;
  if (to_host)
    swap32(at);
  memcpy(&v, at, sizeof v);
  if (!to_host)
    swap32(at);
  return v;
}

static uint64_t swap64_get(uint8_t *at, bool to_host)
{
  uint64_t v;
  if (to_host)
    swap64(at);
  memcpy(&v, at, sizeof v);
  if (!to_host)
    swap64(at);
  return v;
}

/* The record layouts, as the offsets of their 32- and 64-bit fields
 * (terminated by -1). */
typedef struct record_layout {
  size_t size;
  int u32[4];
  int u64[4];
} record_layout;

static const record_layout node_layout = {sizeof(knit_node_record),
                                          {offsetof(knit_node_record, id),
                                           offsetof(knit_node_record, parent),
                                           offsetof(knit_node_record, module), -1},
                                          {offsetof(knit_node_record, offset), -1}};
static const record_layout metric_layout = {
    sizeof(knit_metric_record),
    {offsetof(knit_metric_record, node), offsetof(knit_metric_record, metric), -1},
    {offsetof(knit_metric_record, value), -1}};
static const record_layout stat_layout = {sizeof(knit_stat_record),
                                          {offsetof(knit_stat_record, key), -1},
                                          {offsetof(knit_stat_record, value), -1}};
static const record_layout steps_layout = {sizeof(knit_steps_record),
                                           {offsetof(knit_steps_record, module), -1},
                                           {offsetof(knit_steps_record, confirmed),
                                            offsetof(knit_steps_record, probable),
                                            offsetof(knit_steps_record, wrong), -1}};

/* A table section: a u32 count, then count records. */
static void swap_table(uint8_t *body, uint64_t length, const record_layout *l, bool to_host)
{
  if (length < 4)
    return;
  uint32_t count = swap32_get(body, to_host);
  for (uint64_t i = 0, at = 4; i < count && length - at >= l->size; i++, at += l->size) {
    for (const int *f = l->u32; *f >= 0; f++)
      swap32(body + at + *f);
    for (const int *f = l->u64; *f >= 0; f++)
      swap64(body + at + *f);
  }
}

/* MODULES: a u32 count, then per module u32 id, u32 path_len, u64 base and
 * the path's bytes. */
static void swap_modules(uint8_t *body, uint64_t length, bool to_host)
{
  if (length < 4)
    return;
  uint32_t count = swap32_get(body, to_host);
  uint64_t at = 4;
  for (uint32_t i = 0; i < count && length - at >= 16; i++) {
    swap32(body + at);
    uint32_t path_len = swap32_get(body + at + 4, to_host);
    swap64(body + at + 8);
    at += 16;
    if (path_len > length - at)
      return;
    at += path_len;
  }
}

void knit_thread_file_swap(uint8_t *data, size_t len, bool to_host)
{
  if (len < sizeof(knit_file_header))
    return;
  static const int header_u32[] = {
      offsetof(knit_file_header, version),      offsetof(knit_file_header, byte_order),
      offsetof(knit_file_header, tid),          offsetof(knit_file_header, thread_index),
      offsetof(knit_file_header, thread_flags), offsetof(knit_file_header, elf_machine)};
  for (size_t i = 0; i < sizeof header_u32 / sizeof header_u32[0]; i++)
    swap32(data + header_u32[i]);
  swap64(data + offsetof(knit_file_header, period));
  size_t at = sizeof(knit_file_header);
  while (len - at >= sizeof(knit_section_header)) {
    uint8_t *sh = data + at;
    knit_section_header h;
    h.tag = swap32_get(sh + offsetof(knit_section_header, tag), to_host);
    swap32(sh + offsetof(knit_section_header, reserved));
    h.length = swap64_get(sh + offsetof(knit_section_header, length), to_host);
    at += sizeof h;
    if (h.tag == KNIT_SECTION_END || h.length > len - at)
      return;
    uint8_t *body = data + at;
    switch (h.tag) {
    case KNIT_SECTION_MODULES: swap_modules(body, h.length, to_host); break;
    case KNIT_SECTION_NODES: swap_table(body, h.length, &node_layout, to_host); break;
    case KNIT_SECTION_METRICS: swap_table(body, h.length, &metric_layout, to_host); break;
    case KNIT_SECTION_STATS: swap_table(body, h.length, &stat_layout, to_host); break;
    case KNIT_SECTION_STEPS: swap_table(body, h.length, &steps_layout, to_host); break;
    default: break; /* unknown to this reader: skipped by the parser */
    }
    at += (size_t)h.length;
  }
}

_Static_assert(offsetof(knit_trace_header, byte_order) == offsetof(knit_file_header, byte_order),
               "both headers hold the byte-order mark at one offset");

int knit_header_other_byte_order(const uint8_t *data, size_t len)
{
  uint32_t mark;
  if (len < offsetof(knit_file_header, byte_order) + sizeof mark)
    return 0;
  memcpy(&mark, data + offsetof(knit_file_header, byte_order), sizeof mark);
  return mark == __builtin_bswap32(KNIT_BYTE_ORDER_MARK);
}

void knit_trace_header_swap(knit_trace_header *h)
{
  h->version = __builtin_bswap32(h->version);
  h->byte_order = __builtin_bswap32(h->byte_order);
  h->tid = __builtin_bswap32(h->tid);
  h->thread_index = __builtin_bswap32(h->thread_index);
  h->clock = __builtin_bswap64(h->clock);
}
