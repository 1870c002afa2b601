/* How a subcommand refuses its command line: the message after the
 * command's name, then the command's usage, on stderr. */
#ifndef KNIT_CLI_USAGE_ERROR_H
#define KNIT_CLI_USAGE_ERROR_H

#include <stdio.h>

/* Prints "COMMAND: " and fmt with what (one %s) on a line, then usage's
 * text. Returns 2, the exit status of bad usage. */
int knit_usage_error(const char *command, void (*usage)(FILE *out), const char *fmt,
                     const char *what);

#endif /* KNIT_CLI_USAGE_ERROR_H */
