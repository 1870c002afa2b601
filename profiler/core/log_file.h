/* The measurement's log (DIR/knit.log): one line per event worth telling,
 * and the SUMMARY at the end.
 *
 * Its descriptor is kept out of the program's way: moved to a high number,
 * close-on-exec, and checked before each line. A program that closes every
 * descriptor and opens files of its own (daemons, shells, test runners do)
 * would otherwise get knit's lines in its files; when the descriptor is no
 * longer the log, the log is opened again by its absolute path.
 * Async-signal-safe: open, fstat, fcntl, write and close only. */
#ifndef KNIT_CORE_LOG_FILE_H
#define KNIT_CORE_LOG_FILE_H

#include <stdbool.h>

/* Opens (appending, creating) dir/knit.log, dir absolute. */
bool knit_log_open(const char *dir);

/* Writes line and a newline. Lines of any length are written whole. */
void knit_log_line(const char *line);

/* Forgets the log without closing it: a forked child's descriptor is its
 * own copy, but the file is the parent's. */
void knit_log_forget(void);

#endif /* KNIT_CORE_LOG_FILE_H */
