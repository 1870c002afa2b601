/* Where `knit report --format=pprof` writes its profile, and in what form:
 * gzip-compressed, as pprof writes and reads profiles, to the file -o
 * names, else to standard output, which must then not be a terminal (the
 * bytes would only garble it). */
#ifndef KNIT_REPORT_PPROF_OUTPUT_H
#define KNIT_REPORT_PPROF_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"
#include "report/protobuf.h"

/* data[0..len) gzip-compressed into out (empty on entry). Returns 0, or -1
 * when zlib fails or memory runs out. */
int knit_pprof_gzip(const uint8_t *data, size_t len, knit_pb *out);

/* Whether the profile may go to path (NULL or "-": standard output): 0,
 * or 2 with "<who>: ..." on diag when it would go to a terminal. Checked
 * before the measurement is read. */
int knit_pprof_check_output(const char *path, const char *who, FILE *diag);

/* Encodes p (pprof.h), compresses it and writes it to path (NULL or "-":
 * standard output). Returns the exit status: 0 written, 1 out of memory or
 * a failed write, 2 a file that cannot be created; the reason goes to diag
 * as "<who>: error: ...". A regular file that could not be written
 * whole is removed. */
int knit_pprof_write(const knit_profile *p, int inline_frames, const char *path, const char *who,
                     FILE *diag);

#endif /* KNIT_REPORT_PPROF_OUTPUT_H */
