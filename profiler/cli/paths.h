/* Building file paths without silent truncation. */
#ifndef KNIT_CLI_PATHS_H
#define KNIT_CLI_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* As snprintf, but returns false (and leaves an empty string) when the
 * result does not fit: a truncated path would name another file. */
bool knit_path_printf(char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* KNIT_CLI_PATHS_H */
