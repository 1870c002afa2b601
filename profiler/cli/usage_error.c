/* A subcommand's usage error; see usage_error.h. */
#include "cli/usage_error.h"

int knit_usage_error(const char *command, void (*usage)(FILE *out), const char *fmt,
                     const char *what)
{
  fprintf(stderr, "%s: ", command);
  /* fmt is always one of the commands' own literals. */
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n");
  usage(stderr);
  return 2;
}
