/* Reading a measurement's file (a thread file or a trace file) whole into
 * memory, the way both readers need it: only a regular file is read, and
 * nothing the directory holds can make the reader block. */
#ifndef KNIT_MEASURE_READ_WHOLE_FILE_H
#define KNIT_MEASURE_READ_WHOLE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Reads the regular file at path. Returns 0 with its bytes in *data (free
 * them) and their number in *len: fewer than the file's size when it
 * shrank while being read, which the parser then reports as it finds it.
 * Returns -1 with the reason in err when the file cannot be opened, is no
 * regular file, or gives none of its bytes. */
int knit_read_whole_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);

#endif /* KNIT_MEASURE_READ_WHOLE_FILE_H */
