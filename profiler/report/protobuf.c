/* The protocol buffers wire format; see protobuf.h. */
#include "report/protobuf.h"

#include <stdlib.h>
#include <string.h>

/* Room for n more bytes; 0, or -1 (b marked failed) when out of memory. */
static int reserve(knit_pb *b, size_t n)
{
  if (b->failed)
    return -1;
  if (b->cap - b->len >= n)
    return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < n) {
    if (cap > SIZE_MAX / 2) {
      b->failed = 1;
      return -1;
    }
    cap *= 2;
  }
  uint8_t *data = realloc(b->data, cap);
  if (data == NULL) {
    b->failed = 1;
    return -1;
  }
  b->data = data;
  b->cap = cap;
  return 0;
}

size_t knit_pb_varint_size(uint64_t v)
{
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

/* v's varint at out, which has room for it; returns the bytes written. */
static size_t put_varint(uint8_t *out, uint64_t v)
{
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

void knit_pb_varint(knit_pb *b, uint64_t v)
{
  if (reserve(b, 10) == 0)
    b->len += put_varint(b->data + b->len, v);
}

void knit_pb_key(knit_pb *b, uint32_t field, int wire_type)
{
  knit_pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire_type);
}

void knit_pb_uint(knit_pb *b, uint32_t field, uint64_t v)
{
  knit_pb_key(b, field, KNIT_PB_VARINT);
  knit_pb_varint(b, v);
}

void knit_pb_int(knit_pb *b, uint32_t field, int64_t v)
{
  knit_pb_uint(b, field, (uint64_t)v);
}

void knit_pb_bytes(knit_pb *b, uint32_t field, const void *bytes, size_t n)
{
  knit_pb_key(b, field, KNIT_PB_DELIMITED);
  knit_pb_varint(b, n);
  if (n > 0 && reserve(b, n) == 0) {
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
  }
}

void knit_pb_string(knit_pb *b, uint32_t field, const char *s)
{
  knit_pb_bytes(b, field, s, strlen(s));
}

void knit_pb_packed(knit_pb *b, uint32_t field, const uint64_t *values, size_t n)
{
  if (n == 0)
    return;
  size_t size = 0;
  for (size_t i = 0; i < n; i++)
    size += knit_pb_varint_size(values[i]);
  knit_pb_key(b, field, KNIT_PB_DELIMITED);
  knit_pb_varint(b, size);
  if (reserve(b, size) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    b->len += put_varint(b->data + b->len, values[i]);
}

size_t knit_pb_begin(knit_pb *b, uint32_t field)
{
  knit_pb_key(b, field, KNIT_PB_DELIMITED);
  return b->len;
}

void knit_pb_end(knit_pb *b, size_t mark)
{
  if (b->failed || mark > b->len)
    return;
  size_t body = b->len - mark;
  size_t size = knit_pb_varint_size(body);
  if (reserve(b, size) != 0)
    return;
  memmove(b->data + mark + size, b->data + mark, body);
  put_varint(b->data + mark, body);
  b->len += size;
}

void knit_pb_free(knit_pb *b)
{
  free(b->data);
  memset(b, 0, sizeof *b);
}
