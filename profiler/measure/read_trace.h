/* Reading one trace file (`knit record -t`; format.h) on the host.
 *
 * A trace file is appended to while its process runs, so a process that
 * was killed may leave a torn last record: the whole records before it are
 * kept and the tear reported, as any damage past the header is. Only a file
 * whose header cannot be trusted is refused.
 */
#ifndef KNIT_MEASURE_READ_TRACE_H
#define KNIT_MEASURE_READ_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

typedef struct knit_trace_file {
  char *name; /* file name within the directory */
  knit_trace_header header;
  knit_trace_record *records; /* in file order, this host's byte order */
  size_t count;
  size_t torn_bytes;    /* bytes after the last whole record (dropped) */
  size_t bad_kinds;     /* records of a kind this reader does not know (dropped) */
  int other_byte_order; /* 1 when written in the other byte order */
} knit_trace_file;

/* Parses a trace file from memory. Returns 0 and fills out (free with
 * knit_trace_file_free); torn_bytes and bad_kinds say what was left out.
 * Returns -1 with the reason in err, and out empty, when the header is
 * missing or wrong. */
int knit_trace_file_parse(const uint8_t *data, size_t len, knit_trace_file *out, char *err,
                          size_t errlen);

/* Reads and parses the file at path (a regular file only), out->name set to
 * its last component. As knit_trace_file_parse. */
int knit_trace_file_read(const char *path, knit_trace_file *out, char *err, size_t errlen);

void knit_trace_file_free(knit_trace_file *f);

/* Whether name is a trace file's name, trace-<index>-<tid>.knit; sets
 * *index and *tid. */
int knit_trace_file_name(const char *name, uint32_t *index, uint32_t *tid);

/* Whether name is a device's trace file's name, trace-device-<N>.knit;
 * sets *device. */
int knit_trace_device_file_name(const char *name, uint32_t *device);

#endif /* KNIT_MEASURE_READ_TRACE_H */
