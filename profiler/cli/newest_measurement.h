/* The measurement a command reads when none is named: the newest ./knit-*
 * directory, as `knit report` picks it. */
#ifndef KNIT_CLI_NEWEST_MEASUREMENT_H
#define KNIT_CLI_NEWEST_MEASUREMENT_H

#include <stddef.h>

/* "./knit-NAME" of the newest ./knit-* directory by modification time (the
 * name breaking ties) into buf; -1 when there is none. */
int knit_newest_measurement(char *buf, size_t len);

#endif /* KNIT_CLI_NEWEST_MEASUREMENT_H */
