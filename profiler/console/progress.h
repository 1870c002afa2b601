/* Progress lines for the knit command's long runs (report, view, conform).
 *
 * A report of a large program spends most of its time naming nodes (DWARF
 * lines, inlined calls, loops), and `knit conform --mutations` runs its
 * programs dozens of times: minutes in which nothing else is printed. When
 * the stream the line goes to is a terminal, a progress line says which
 * phase is running and how far it is; it appears only once a run has taken
 * a second (short runs print nothing), is rewritten in place at most a few
 * times a second, and is erased before anything else is printed, so the
 * command's output reads as without it. When the stream is not a terminal
 * (a file, a pipe, a test), nothing is ever written. KNIT_PROGRESS=0 turns
 * the lines off; KNIT_PROGRESS=1 turns them on for any stream, from the
 * first update on (for tests).
 */
#ifndef KNIT_CONSOLE_PROGRESS_H
#define KNIT_CONSOLE_PROGRESS_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

typedef struct knit_progress {
  FILE *out;             /* where the line goes; NULL: progress is off */
  const char *who;       /* "knit report" */
  struct timespec start; /* when the run began */
  struct timespec shown; /* when the line was last written */
  int visible;           /* 1: a line is on the terminal now */
  int immediate;         /* 1: no wait for the first line (KNIT_PROGRESS=1) */
  int width;             /* its length, to erase it */
} knit_progress;

/* Starts timing a run of `who` whose lines would go to out (stderr). */
void knit_progress_init(knit_progress *p, const char *who, FILE *out);

/* Says that phase ("naming nodes") has done `done` of `total` units, or,
 * with total 0, only that the phase runs. Cheap when called often: it reads the clock and returns
 * unless the line is due. p may be NULL. */
void knit_progress_update(knit_progress *p, const char *phase, size_t done, size_t total);

/* Erases the line if one is shown: before printing anything else, and at
 * the end. p may be NULL. */
void knit_progress_clear(knit_progress *p);

#endif /* KNIT_CONSOLE_PROGRESS_H */
