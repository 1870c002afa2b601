/* Choosing threads of a measurement (`knit report --thread=LIST`): LIST is
 * thread indexes as the --threads table shows them, separated by commas,
 * each a number or a range N-M: "0,2-5". The threads left out are removed
 * from the measurement before its tree is merged, so every view, format
 * and total shows the chosen threads alone. */
#ifndef KNIT_REPORT_THREAD_SELECT_H
#define KNIT_REPORT_THREAD_SELECT_H

#include <stddef.h>

#include "measure/read_file.h"

/* Checks LIST's form. Returns 0, or -1 with the reason in err. */
int knit_thread_list_check(const char *list, char *err, size_t errlen);

/* Keeps the threads of m whose index LIST names and frees the others.
 * Every index LIST names must be one of m's: otherwise m is unchanged and
 * -1 returns with "unknown thread N (this measurement has: 0-3, 5)" in
 * err (or the form's error). Returns 0 on success. */
int knit_thread_select(knit_measurement *m, const char *list, char *err, size_t errlen);

#endif /* KNIT_REPORT_THREAD_SELECT_H */
