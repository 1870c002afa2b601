/* Writing a thread's data into the measurement directory. */
#ifndef KNIT_CORE_WRITER_H
#define KNIT_CORE_WRITER_H

#include "core/thread.h"

/* Writes the thread's file (load map, tree, metrics, statistics) once; later
 * calls do nothing. The thread must not be sampling. Async-signal-safe, so
 * the crash path may use it. Returns 0 or a negative errno. */
int knit_write_thread(knit_thread *t);

/* knit_write_thread's answer for a thread with nothing to write (no file). */
#define KNIT_WRITE_EMPTY 1

/* Writes the thread's file as it is now, in place of the last one, so that
 * a process killed without warning (SIGKILL, the OOM killer, a node
 * failure) leaves its data up to the last snapshot. Only from the thread's
 * own sample handler, which holds its tree still; does nothing once the
 * final file is claimed. Returns 0 or a negative errno. */
int knit_snapshot_thread(knit_thread *t);

/* The first error (an errno) that kept a thread's file from being written,
 * 0 if none: the SUMMARY names it. */
void knit_note_write_error(int err);
int knit_first_write_error(void);

/* An errno's name and meaning, for the log. Async-signal-safe. */
const char *knit_errno_name(int err);

#endif /* KNIT_CORE_WRITER_H */
