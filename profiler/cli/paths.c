/* Paths without silent truncation: see paths.h. */
#include "cli/paths.h"

#include <stdarg.h>
#include <stdio.h>

bool knit_path_printf(char *out, size_t outlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, outlen, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= outlen) {
    if (outlen)
      out[0] = '\0';
    return false;
  }
  return true;
}
