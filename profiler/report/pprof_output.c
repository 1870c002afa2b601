/* Compressing and writing the pprof profile; see pprof_output.h. */
#include "report/pprof_output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "report/pprof.h"

/* zlib's window bits for a gzip header and trailer around the stream. */
#define GZIP_WINDOW_BITS (15 + 16)

int knit_pprof_gzip(const uint8_t *data, size_t len, knit_pb *out)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return -1;
  /* deflateBound does not count the gzip wrapper's 18 bytes. */
  size_t bound = deflateBound(&z, (uLong)len) + 32;
  out->data = malloc(bound);
  if (out->data == NULL) {
    deflateEnd(&z);
    return -1;
  }
  out->cap = bound;
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)len;
  z.next_out = out->data;
  z.avail_out = (uInt)bound;
  int rc = deflate(&z, Z_FINISH);
  out->len = bound - z.avail_out;
  deflateEnd(&z);
  return rc == Z_STREAM_END ? 0 : -1;
}

static int to_stdout(const char *path)
{
  return path == NULL || strcmp(path, "-") == 0;
}

int knit_pprof_check_output(const char *path, const char *who, FILE *diag)
{
  if (to_stdout(path) && isatty(STDOUT_FILENO)) {
    fprintf(diag,
            "%s: the pprof profile is binary (gzip): not written to a terminal; "
            "name a file with -o FILE, or redirect the output\n",
            who);
    return 2;
  }
  return 0;
}

int knit_pprof_write(const knit_profile *p, int inline_frames, const char *path, const char *who,
                     FILE *diag)
{
  knit_pb message = {0}, gzipped = {0};
  if (knit_pprof_encode(p, inline_frames, &message) != 0 ||
      knit_pprof_gzip(message.data, message.len, &gzipped) != 0) {
    fprintf(diag, "%s: error: out of memory\n", who);
    knit_pb_free(&message);
    knit_pb_free(&gzipped);
    return 1;
  }
  knit_pb_free(&message);
  FILE *out = stdout;
  if (!to_stdout(path) && (out = fopen(path, "wb")) == NULL) {
    fprintf(diag, "%s: error: cannot create %s: %s\n", who, path, strerror(errno));
    knit_pb_free(&gzipped);
    return 2;
  }
  /* Only a regular file is removed when the write fails: -o may name a
   * device (/dev/null, a pipe) that is no output of its own. */
  struct stat st;
  int regular = out != stdout && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
  int ok = fwrite(gzipped.data, 1, gzipped.len, out) == gzipped.len;
  ok = (out == stdout ? fflush(out) : fclose(out)) == 0 && ok;
  int err = errno;
  knit_pb_free(&gzipped);
  if (!ok) {
    fprintf(diag, "%s: error: cannot write %s: %s\n", who, to_stdout(path) ? "the output" : path,
            strerror(err));
    if (regular)
      remove(path);
    return 1;
  }
  return 0;
}
