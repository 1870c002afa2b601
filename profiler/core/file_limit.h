/* knit's own files and the program's file-size limit (RLIMIT_FSIZE,
 * `ulimit -f`).
 *
 * A write past the limit sends the writing thread SIGXFSZ, whose default
 * action ends the process: a program whose own files stay small would be
 * killed by knit's. While knit writes, SIGXFSZ is held off, and one that
 * knit's write raised is taken back before it is let through; the write
 * itself fails with EFBIG, which the log names like any other write error.
 * Async-signal-safe: raw system calls only (the program's sigprocmask is
 * wrapped, core/signal_masks.c). */
#ifndef KNIT_CORE_FILE_LIMIT_H
#define KNIT_CORE_FILE_LIMIT_H

#include <signal.h>
#include <stdbool.h>

typedef struct knit_file_limit_hold {
  bool held;        /* SIGXFSZ was blocked by knit_file_limit_enter */
  bool was_pending; /* it was pending already: the program's, left alone */
  sigset_t mask;    /* the thread's mask before */
} knit_file_limit_hold;

/* Before knit writes: holds SIGXFSZ off when a file-size limit is set. */
void knit_file_limit_enter(knit_file_limit_hold *h);

/* After: takes back a SIGXFSZ that knit's writes raised, and restores the
 * thread's mask. */
void knit_file_limit_leave(knit_file_limit_hold *h);

#endif /* KNIT_CORE_FILE_LIMIT_H */
