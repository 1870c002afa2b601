/* Text formatting that is safe inside a signal handler.
 *
 * The C library's printf family is not async-signal-safe. Capstone formats
 * every instruction it decodes through a vsnprintf it lets its user supply,
 * and the sample handler decodes code, so knit supplies this one. It covers
 * the conversions Capstone's printers use: %d %i %u %x %X %o %c %s %p %%, with
 * the flags '-', '0', '#', a width, and the length modifiers hh h l ll z j t.
 */
#ifndef KNIT_CORE_SAFE_FORMAT_H
#define KNIT_CORE_SAFE_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* As vsnprintf: writes at most size bytes including the NUL and returns the
 * length the whole output would have had. */
int knit_safe_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int knit_safe_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* KNIT_CORE_SAFE_FORMAT_H */
