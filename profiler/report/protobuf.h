/* A writer of the protocol buffers wire format, enough for the pprof export
 * (pprof.h): varints, 64-bit signed values as varints, length-delimited
 * fields (strings, bytes, packed repeated varints) and nested messages.
 *
 * Each field is a key, (field number << 3) | wire type, as a varint, then
 * its value: a varint for wire type 0, a varint length and that many bytes
 * for wire type 2. A nested message is a length-delimited field whose
 * length is known only once its body is written: knit_pb_begin keeps room
 * for nothing, and knit_pb_end moves the body up by the length's own size,
 * so messages nest to any depth without a second buffer.
 *
 * The buffer grows as needed; a failed allocation leaves it marked failed
 * (every later write does nothing) so callers check once, at the end. */
#ifndef KNIT_REPORT_PROTOBUF_H
#define KNIT_REPORT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct knit_pb {
  uint8_t *data;
  size_t len;
  size_t cap;
  int failed; /* 1 once an allocation failed: data is then incomplete */
} knit_pb;

/* Wire types. */
#define KNIT_PB_VARINT    0
#define KNIT_PB_DELIMITED 2

/* The bytes a varint of v takes: 1 to 10. */
size_t knit_pb_varint_size(uint64_t v);

/* v as a bare varint (no key). */
void knit_pb_varint(knit_pb *b, uint64_t v);

/* A key: field number and wire type. */
void knit_pb_key(knit_pb *b, uint32_t field, int wire_type);

/* A varint field (uint64, or an enum or bool). Zero is written too: callers
 * that want proto3's "absent means zero" leave the call out. */
void knit_pb_uint(knit_pb *b, uint32_t field, uint64_t v);

/* An int64 field: a negative value is its two's complement, ten bytes. */
void knit_pb_int(knit_pb *b, uint32_t field, int64_t v);

/* A length-delimited field of n bytes (a string, bytes). */
void knit_pb_bytes(knit_pb *b, uint32_t field, const void *bytes, size_t n);

/* A string field (without its NUL). */
void knit_pb_string(knit_pb *b, uint32_t field, const char *s);

/* A packed repeated varint field of values[0..n); nothing when n is 0, as
 * an empty repeated field is absent. */
void knit_pb_packed(knit_pb *b, uint32_t field, const uint64_t *values, size_t n);

/* Starts a nested message in field; returns the mark knit_pb_end wants. */
size_t knit_pb_begin(knit_pb *b, uint32_t field);

/* Ends the nested message begun at mark: its length goes before its body. */
void knit_pb_end(knit_pb *b, size_t mark);

/* Frees the buffer and empties b. */
void knit_pb_free(knit_pb *b);

#endif /* KNIT_REPORT_PROTOBUF_H */
