/* The in-process writer of one measurement file (format.h).
 *
 * Async-signal-safe: it may run in a crash handler. It uses only the
 * open/write/pwrite/close/rename/mkdir/unlink system calls, a buffer inside
 * the writer, and no malloc, stdio or locks. It may change errno; a signal
 * handler that calls it saves errno first, as it does for anything else.
 *
 * A file is written as dir/.name.tmp and renamed to dir/name only when it is
 * complete, so a reader never sees half a file under the final name.
 *
 * Errors are sticky: after the first failure every call does nothing, and
 * knit_writer_close() removes the temporary file and returns that error.
 */
#ifndef KNIT_MEASURE_WRITE_FILE_H
#define KNIT_MEASURE_WRITE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

typedef struct knit_writer {
  int fd;                 /* the temporary file, -1 when not open */
  int error;              /* 0, or the first -errno */
  int in_section;         /* 1 between begin_section and end_section */
  uint64_t section_start; /* file offset of the open section's header */
  uint8_t buf[8192];      /* bytes not yet written to fd */
  size_t used;            /* bytes in buf */
  uint64_t written;       /* bytes already written to fd */
  /* Room for any path the system takes (PATH_MAX, 4096 bytes, on Linux):
   * a writer is too large for small stacks (a crash handler on an
   * alternate stack), so knit's writers live in pages of their own. */
  char tmp_path[4096 + 64];   /* dir/.name.tmp */
  char final_path[4096 + 64]; /* dir/name */
} knit_writer;

/* Creates dir (one level, if missing) and dir/.name.tmp, and writes the file
 * header. The writer fills in h's magic, version and byte order; the caller
 * fills in the rest. Returns 0, or -errno (-ENAMETOOLONG when a path does not
 * fit); on failure nothing is left open and close need not be called. */
int knit_writer_open(knit_writer *w, const char *dir, const char *name, const knit_file_header *h);

/* Starts a section with the given tag (enum knit_section_tag). Its length is
 * patched in by knit_writer_end_section(). Sections do not nest: beginning
 * one while another is open ends the open one first. */
void knit_writer_begin_section(knit_writer *w, uint32_t tag);

/* Appends bytes (or one little-endian number) to the open section. */
void knit_writer_put(knit_writer *w, const void *data, size_t len);
void knit_writer_put_u32(knit_writer *w, uint32_t v);
void knit_writer_put_u64(knit_writer *w, uint64_t v);

/* Ends the open section and records its length. */
void knit_writer_end_section(knit_writer *w);

/* Ends any open section, writes the END section, closes the file and renames
 * it into place. Returns 0, or the first error (-errno), in which case the
 * temporary file has been removed and dir/name was not touched. */
int knit_writer_close(knit_writer *w);

/* The number of bytes in the file so far (header and sections). */
uint64_t knit_writer_offset(const knit_writer *w);

#endif /* KNIT_MEASURE_WRITE_FILE_H */
