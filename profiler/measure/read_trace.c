/* Parsing one trace file; see read_trace.h. */
#include "measure/read_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/read_byte_order.h"
#include "measure/read_whole_file.h"

_Static_assert(sizeof(knit_trace_header) == 32, "trace header layout");
_Static_assert(sizeof(knit_trace_record) == 16, "trace record layout");

int knit_trace_file_parse(const uint8_t *data, size_t len, knit_trace_file *out, char *err,
                          size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (len < sizeof out->header) {
    snprintf(err, errlen, "truncated: %zu bytes, shorter than the %zu-byte header", len,
             sizeof out->header);
    return -1;
  }
  knit_trace_header h;
  memcpy(&h, data, sizeof h);
  if (memcmp(h.magic, KNIT_TRACE_MAGIC, sizeof h.magic) != 0) {
    snprintf(err, errlen, "bad magic: not a knit trace file");
    return -1;
  }
  int other = knit_header_other_byte_order(data, len);
  if (other)
    knit_trace_header_swap(&h);
  if (h.byte_order != KNIT_BYTE_ORDER_MARK) {
    snprintf(err, errlen, "bad byte-order mark 0x%08x", h.byte_order);
    return -1;
  }
  if (h.version != KNIT_TRACE_VERSION) {
    snprintf(err, errlen, "version %u, this reader knows version %u", h.version,
             KNIT_TRACE_VERSION);
    return -1;
  }
  size_t body = len - sizeof h;
  size_t whole = body / sizeof(knit_trace_record);
  out->header = h;
  out->other_byte_order = other;
  out->torn_bytes = body % sizeof(knit_trace_record);
  out->records = malloc((whole ? whole : 1) * sizeof *out->records);
  if (out->records == NULL) {
    snprintf(err, errlen, "out of memory for %zu records", whole);
    return -1;
  }
  const uint8_t *at = data + sizeof h;
  for (size_t i = 0; i < whole; i++, at += sizeof(knit_trace_record)) {
    knit_trace_record r;
    memcpy(&r, at, sizeof r);
    if (other) {
      r.time_ns = __builtin_bswap64(r.time_ns);
      r.node = __builtin_bswap32(r.node);
      r.kind = __builtin_bswap32(r.kind);
    }
    if (r.kind >= KNIT_TRACE_KIND_COUNT) {
      out->bad_kinds++;
      continue;
    }
    out->records[out->count++] = r;
  }
  return 0;
}

int knit_trace_file_read(const char *path, knit_trace_file *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  uint8_t *data;
  size_t got;
  if (knit_read_whole_file(path, &data, &got, err, errlen) != 0)
    return -1;
  int rc = knit_trace_file_parse(data, got, out, err, errlen);
  free(data);
  if (rc == 0) {
    const char *slash = strrchr(path, '/');
    out->name = strdup(slash ? slash + 1 : path);
  }
  return rc;
}

void knit_trace_file_free(knit_trace_file *f)
{
  free(f->records);
  free(f->name);
  memset(f, 0, sizeof *f);
}

int knit_trace_file_name(const char *name, uint32_t *index, uint32_t *tid)
{
  unsigned a, b;
  int end = 0;
  if (sscanf(name, "trace-%u-%u.knit%n", &a, &b, &end) != 2 || end == 0 || name[end] != '\0')
    return 0;
  *index = a;
  *tid = b;
  return 1;
}

int knit_trace_device_file_name(const char *name, uint32_t *device)
{
  unsigned n;
  int end = 0;
  if (sscanf(name, "trace-device-%u.knit%n", &n, &end) != 1 || end == 0 || name[end] != '\0')
    return 0;
  *device = n;
  return 1;
}
